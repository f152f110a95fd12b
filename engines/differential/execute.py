"""Run one command of a backend under limits, and measure what it did.

Compilers and generated programs are untrusted in the same way fuzz targets
are: they can crash, loop or eat memory. Each command runs in its own
session with rlimits and a wall-clock timeout; ``os.wait4`` gives its CPU
time and peak memory.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from dataclasses import dataclass

from engines import sandbox

OUTPUT_LIMIT = 256 * 1024


@dataclass(frozen=True)
class Run:
    """What one command did."""

    returncode: int | None  # None: killed for taking too long
    stdout: str
    stderr: str
    seconds: float
    peak_memory_kb: int

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def signal(self) -> str:
        """SIGSEGV and the like if a signal ended it; empty otherwise."""
        if self.returncode is not None and self.returncode < 0:
            return sandbox.signal_name(self.returncode)
        return ""


def _read(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read(OUTPUT_LIMIT + 1)
    text = data[:OUTPUT_LIMIT].decode("utf-8", "replace")
    return text + ("\n… [output truncated]" if len(data) > OUTPUT_LIMIT else "")


def run(
    command: list[str], workdir: str, timeout: float, limits: sandbox.Limits, environment: dict[str, str] | None = None
) -> Run:
    """Run ``command`` in ``workdir``; output goes through files, so a flood cannot block it."""
    out_path, err_path = os.path.join(workdir, ".stdout"), os.path.join(workdir, ".stderr")
    started = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(  # noqa: S603 - the backend table is the project's own
            command,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=sandbox.scrubbed_environment(environment),
            start_new_session=True,
            preexec_fn=lambda: sandbox.apply_limits(limits),
        )
    # Wait on a pidfd: it becomes readable when the process exits, so the
    # timeout needs no polling. wait4 then reaps it with its resource usage.
    pidfd = os.pidfd_open(process.pid)
    try:
        exited = select.select([pidfd], [], [], timeout)[0]
    finally:
        os.close(pidfd)
    if not exited:
        sandbox.kill_group(process.pid)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = status  # reaped by wait4: keep Popen from waiting again
    seconds = time.monotonic() - started
    if not exited or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
        returncode = None  # killed for taking too long (out of CPU time is a timeout by another clock)
    elif os.WIFSIGNALED(status):
        returncode = -os.WTERMSIG(status)
    else:
        returncode = os.WEXITSTATUS(status)
    return Run(returncode, _read(out_path), _read(err_path), seconds, usage.ru_maxrss)
