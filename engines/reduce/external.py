"""C-Vise (or C-Reduce where C-Vise is missing) for C and C++, run under our budget.

Both take an interestingness script with no arguments, run in a scratch
directory holding a copy of the file. Our script runs the caller's check
command on that copy and counts itself, so the number of tests is known.
The reducer rewrites the file in place as it finds smaller versions, so the
file is polled for progress and, when the budget runs out, holds the best
version so far.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engines.reduce.result import Reduction

TOOLS = ("cvise", "creduce")
POLL_SECONDS = 0.5


class ReducerMissing(Exception):
    """Neither C-Vise nor C-Reduce is installed."""


def available_tool() -> str | None:
    return next((tool for tool in TOOLS if shutil.which(tool)), None)


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
    """Reduce ``source`` with C-Vise or C-Reduce while ``check + [path]`` exits 0.

    ``seconds`` bounds the whole reduction; the best version found by then is returned.
    """
    tool = tool or available_tool()
    if tool is None:
        raise ReducerMissing("neither cvise nor creduce is installed")
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
        with open(workdir / "log", "wb") as log:
            process = subprocess.Popen(  # noqa: S603
                command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
            best = source
            try:
                while process.poll() is None:
                    if time.monotonic() - started >= seconds:
                        break
                    time.sleep(POLL_SECONDS)
                    best = _progress(program, best, counter, on_progress)
            finally:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
                    try:
                        process.wait(10)
                    except subprocess.TimeoutExpired:
                        os.killpg(process.pid, signal.SIGKILL)
                        process.wait()
        best = _progress(program, best, counter, on_progress)
        return Reduction(best, len(source), counter.stat().st_size, time.monotonic() - started, tool)
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
