"""What every reducer returns, and the command-line interestingness test they share."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Reduction:
    text: str
    original_size: int
    tests: int
    seconds: float
    reducer: str = ""

    @property
    def ratio(self) -> float:
        """Size after over size before (0.1: ten times smaller)."""
        return len(self.text) / self.original_size if self.original_size else 1.0


def command_test(command: list[str], suffix: str, timeout: float = 60.0) -> Callable[[str], bool]:
    """An interestingness test as C-Reduce takes it: a command run on the candidate, exit status 0 = interesting.

    The command gets the candidate's path as its last argument, and runs in
    a fresh scratch directory holding only that file.
    """

    def interesting(text: str) -> bool:
        with tempfile.TemporaryDirectory(prefix="fuzzweb-reduce-") as scratch:
            path = Path(scratch) / f"candidate{suffix}"
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
            try:
                done = subprocess.run([*command, str(path)], cwd=scratch, capture_output=True, timeout=timeout)  # noqa: S603
            except subprocess.TimeoutExpired:
                return False
            return done.returncode == 0

    return interesting


def cli_reduce(
    source: str, test: Callable[[str], bool], reduce: Callable[[str, Callable[[str], bool]], Reduction], what: str
) -> int:
    """What each reducer's command line does once it has its input and test: check, reduce, print, summarise."""
    if not test(source):
        print(f"the original {what} is not interesting to this test", file=sys.stderr)
        return 2
    result = reduce(source, test)
    sys.stdout.write(result.text)
    print(
        f"{result.original_size} -> {len(result.text)} characters in {result.tests} tests, {result.seconds:.1f} s",
        file=sys.stderr,
    )
    return 0


def file_reducer_main(argv: list[str] | None, description: str, reduce) -> int:
    """The command line of a reducer of files: FILE COMMAND..., with --max-tests and --seconds.

    ``reduce(text, interesting, max_tests, seconds)`` is the reducer.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("file", type=Path)
    parser.add_argument("command", nargs="+", help="run as COMMAND... CANDIDATE_PATH; exit 0 means interesting")
    parser.add_argument("--max-tests", type=int, default=5000)
    parser.add_argument("--seconds", type=float)
    args = parser.parse_args(argv)
    source = args.file.read_text(encoding="utf-8", errors="surrogateescape")
    test = command_test(args.command, args.file.suffix)
    return cli_reduce(source, test, lambda text, check: reduce(text, check, args.max_tests, args.seconds), "file")
