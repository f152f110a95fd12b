"""Command line: ``python -m engines.pyfunc MODULE [--seconds N] [--seed N]``.

Prints each finding as it is found and a summary at the end, without the web
application.
"""

from __future__ import annotations

import argparse
import signal
import sys

from engines import events
from engines.pyfunc.engine import Config, TargetError, run


class PrintingSink:
    """Writes findings and progress to the terminal."""

    def __init__(self, show_examples: bool = False):
        self.interrupted = False
        self.show_examples = show_examples
        self.latest_examples: dict[str, dict] = {}

    def finding(self, finding: events.Finding) -> None:
        repeats = f" (+{finding.hits} hits at this site)" if finding.hits > 1 else ""
        print(f"[{finding.kind}] {finding.crash_type} in {finding.function}: {finding.input_text}{repeats}")
        print(f"    reproduce: {finding.reproducer}")

    def stats(self, stats: events.Stats) -> None:
        rate = stats.executions_per_second
        print(
            f"  {stats.elapsed_seconds:6.1f}s  {stats.executions} execs ({rate:.0f}/s)  {stats.findings} findings",
            file=sys.stderr,
        )

    def should_stop(self) -> bool:
        return self.interrupted

    def checkpoint(self, state: dict) -> None:
        """The command line keeps no state between runs."""

    def examples(self, function: str, report: dict) -> None:
        self.latest_examples[function] = report

    def print_examples(self) -> None:
        for function, report in sorted(self.latest_examples.items()):
            print(f"examples of {function}:")
            for example in report["examples"]:
                arrow = "->" if example["outcome"] == "returned" else "raises"
                print(f"    {example['call']} {arrow} {example['result']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engines.pyfunc", description=__doc__)
    parser.add_argument("target", help="importable module, e.g. engines.demo.textkit")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-executions", type=int)
    parser.add_argument("--path", action="append", default=[], help="extra import path")
    parser.add_argument("--examples", action="store_true", help="print example calls per function at the end")
    parser.add_argument("--include", action="append", default=[], help="fnmatch pattern of functions to fuzz")
    parser.add_argument("--exclude", action="append", default=[], help="fnmatch pattern of functions to leave out")
    parser.add_argument(
        "--setup", action="append", default=[], help="module to import first (custom generators: FUZZ_GENERATORS)"
    )
    options = parser.parse_args(argv)
    sink = PrintingSink(show_examples=options.examples)

    def interrupt(signum, frame):
        sink.interrupted = True

    signal.signal(signal.SIGINT, interrupt)
    config = Config(
        target=options.target,
        seconds=options.seconds,
        seed=options.seed,
        max_executions=options.max_executions,
        search_path=options.path,
        include=options.include,
        exclude=options.exclude,
        setup=options.setup,
    )
    try:
        summary = run(config, sink)
    except TargetError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if sink.show_examples:
        sink.print_examples()
    for skipped in summary.skipped:
        print(f"skipped {skipped['name']}: {skipped['reason']}")
    print(f"{summary.executions} executions, {summary.findings} findings, {summary.restarts} child restarts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
