"""C-Vise (or C-Reduce where C-Vise is missing) for C and C++, run under our budget.

Both take an interestingness script with no arguments, run in a scratch
directory holding a copy of the file. Our script runs the caller's check
command on that copy and counts itself, so the number of tests is known.
The reducer rewrites the file in place as it finds smaller versions, so the
file is polled for progress and, when the budget runs out, holds the best
version so far.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engines.reduce.result import Reduction, cli_reduce, command_test

TOOLS = ("cvise", "creduce")
POLL_SECONDS = 0.5


class ReducerMissing(Exception):
    """Neither C-Vise nor C-Reduce is installed."""


PR_SET_PDEATHSIG = 1


def available_tools() -> list[str]:
    """The installed reducers, in the order they are tried."""
    return [tool for tool in TOOLS if shutil.which(tool)]


def available_tool() -> str | None:
    return next(iter(available_tools()), None)


def _script(check: list[str], name: str, counter: Path) -> str:
    return f"#!/bin/sh\nprintf . >> {shlex.quote(str(counter))}\nexec {shlex.join([*check, name])}\n"


def reduce_c(
    source: str,
    check: list[str],
    suffix: str = ".c",
    seconds: float = 300.0,
    jobs: int = 2,
    test_timeout: float = 60.0,
    on_progress: Callable[[str, int], None] | None = None,
    tool: str | None = None,
) -> Reduction:
    """Reduce ``source`` with C-Vise, falling back to C-Reduce, while ``check + [path]`` exits 0.

    ``seconds`` bounds the whole reduction; the best version found by then is
    returned. C-Reduce takes over (on the budget left) where C-Vise is
    missing or dies on its own without having reduced anything: both have
    passes that crash on some inputs, and they crash on different ones.
    """
    tools = [tool] if tool else available_tools()
    if not tools:
        raise ReducerMissing("neither cvise nor creduce is installed")
    started = time.monotonic()
    best, tests, used = source, 0, tools[0]
    for used in tools:
        left = seconds - (time.monotonic() - started)
        if left <= 1:
            break
        best, ran, finished = _run_tool(used, best, check, suffix, left, jobs, test_timeout, on_progress)
        tests += ran
        if finished or best != source:
            break
    return Reduction(best, len(source), tests, time.monotonic() - started, used)


def _die_with_parent() -> None:
    # Its own session keeps C-Vise out of the worker's process group, so a worker killed
    # whole (RQ's timeout, a stop) would leave it running: the kernel kills it instead.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _run_tool(tool, source, check, suffix, seconds, jobs, test_timeout, on_progress) -> tuple[str, int, bool]:
    """One reducer run: (best text, tests run, whether it ended by itself with success)."""
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="fuzzweb-cvise-"))
    try:
        name = f"program{suffix}"
        program = workdir / name
        program.write_text(source, encoding="utf-8", errors="surrogateescape")
        counter = workdir / "tests"
        counter.touch()
        script = workdir / "interesting.sh"
        script.write_text(_script(check, name, counter))
        script.chmod(0o755)
        command = [tool, "--n", str(jobs), "--tidy", "--timeout", str(int(test_timeout)), str(script), name]
        finished = False
        with open(workdir / "log", "wb") as log:
            process = subprocess.Popen(  # noqa: S603
                command,
                cwd=workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
            best = source
            try:
                while process.poll() is None:
                    if time.monotonic() - started >= seconds:
                        break
                    time.sleep(POLL_SECONDS)
                    best = _progress(program, best, counter, on_progress)
                finished = process.poll() == 0
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
                    try:
                        process.wait(10)
                    except subprocess.TimeoutExpired:
                        os.killpg(process.pid, signal.SIGKILL)
                        process.wait()
        best = _progress(program, best, counter, on_progress)
        return best, counter.stat().st_size, finished
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _progress(program: Path, best: str, counter: Path, on_progress) -> str:
    try:
        text = program.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return best
    # A smaller, non-empty file is what the reducer accepted; an empty read is a write in progress.
    if text and len(text) < len(best):
        if on_progress is not None:
            on_progress(text, counter.stat().st_size)
        return text
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Reduce a C or C++ file with C-Vise (or C-Reduce) under a budget.")
    parser.add_argument("program", type=Path)
    parser.add_argument("command", nargs="+", help="run as COMMAND... CANDIDATE_PATH; exit 0 means interesting")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    source = args.program.read_text(encoding="utf-8", errors="surrogateescape")
    suffix = args.program.suffix or ".c"
    test = command_test(args.command, suffix)
    return cli_reduce(
        source, test, lambda text, _: reduce_c(text, args.command, suffix, args.seconds, args.jobs), "program"
    )


if __name__ == "__main__":
    raise SystemExit(main())
