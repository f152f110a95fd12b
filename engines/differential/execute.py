"""Run one command of a backend in the sandbox, under limits, and measure what it did.

Compilers and generated programs are untrusted in the same way fuzz targets
are: they can crash, loop, eat memory, read files or connect. Each command
runs under bubblewrap (:func:`engines.sandbox.confine`: the work directory
is the only writable place, no network) in its own session with rlimits and
a wall-clock timeout. Inside, a few lines of Python start it and report its
peak memory with ``wait4`` (outside, ``wait4`` would only see bubblewrap),
then leave with its status, so a signal still reads as a signal.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from engines import sandbox

OUTPUT_LIMIT = 256 * 1024
_USAGE_FILE = ".rusage"
# Runs inside the sandbox: start the command, wait, write its peak memory, die as it died.
_MEASURE = (
    "import os,signal,sys,time\n"
    "t=time.monotonic()\n"
    "pid=os.fork()\n"
    "if pid==0:\n"
    " try: os.execvp(sys.argv[1],sys.argv[1:])\n"
    " except OSError as e: sys.stderr.write(f'{sys.argv[1]}: {e.strerror}\\n'); os._exit(127)\n"
    "_,status,usage=os.wait4(pid,0)\n"
    f"open('{_USAGE_FILE}','w').write(f'{{usage.ru_maxrss}} {{time.monotonic()-t}}')\n"
    "if os.WIFSIGNALED(status):\n"
    " signal.signal(os.WTERMSIG(status),signal.SIG_DFL); os.kill(os.getpid(),os.WTERMSIG(status))\n"
    "os._exit(os.WEXITSTATUS(status))\n"
)


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
    command: list[str],
    workdir: str,
    timeout: float,
    limits: sandbox.Limits,
    environment: dict[str, str] | None = None,
    readable: tuple[str, ...] = (),
) -> Run:
    """Run ``command`` in ``workdir``; output goes through files, so a flood cannot block it.

    Besides the system, the sandbox can read ``readable`` and the install
    prefix of every absolute path the command names (a compiler under
    /opt/x/bin finds its headers and libraries in /opt/x).
    """
    out_path, err_path = os.path.join(workdir, ".stdout"), os.path.join(workdir, ".stderr")
    usage_path = os.path.join(workdir, _USAGE_FILE)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(usage_path)
    env = sandbox.scrubbed_environment(environment)
    confined = sandbox.confine(
        [sys.executable, "-S", "-c", _MEASURE, *command],
        scratch=workdir,
        environment=env,
        readable=(*readable, *_named_prefixes(command, workdir)),
    )
    started = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = subprocess.Popen(  # noqa: S603 - the backend table is the project's own
            confined,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            # bubblewrap's own init keeps this environment: scrubbed too.
            env=env,
            start_new_session=True,
            preexec_fn=lambda: sandbox.apply_limits(limits),
        )
    guard = sandbox.ScratchGuard(workdir, process.pid)
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
    guard.stop()
    process.returncode = status  # reaped by wait4: keep Popen from waiting again
    seconds = time.monotonic() - started
    if not exited or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
        returncode = None  # killed for taking too long (out of CPU time is a timeout by another clock)
    elif os.WIFSIGNALED(status):
        returncode = -os.WTERMSIG(status)
    else:
        returncode = sandbox.exit_status(os.WEXITSTATUS(status))
        if returncode == -signal.SIGXCPU:
            returncode = None
    peak_kb, inside_seconds = _measured(usage_path)
    # The program's own time, without the sandbox's start (a few tens of ms
    # that would blur "far faster than the others" for short runs).
    if returncode is not None and inside_seconds is not None:
        seconds = min(seconds, inside_seconds)
    if guard.tripped:
        # The guard emptied the scratch directory, output files included.
        return Run(returncode, "", guard.note, seconds, peak_kb)
    return Run(returncode, _read(out_path), _read(err_path), seconds, peak_kb)


def _named_prefixes(command: list[str], workdir: str) -> list[str]:
    prefixes = []
    for part in command:
        if not os.path.isabs(part) or part.startswith(workdir) or not os.path.exists(part):
            continue
        # The path as named and, for a link, where it leads: both must exist inside.
        for path in {os.path.abspath(part), os.path.realpath(part)}:
            directory = os.path.dirname(path) if os.path.isfile(path) else path
            if os.path.basename(directory) == "bin":
                directory = os.path.dirname(directory)
            if directory != "/":
                prefixes.append(directory)
    return prefixes


def _measured(path: str) -> tuple[int, float | None]:
    """Peak memory (KiB) and seconds the wrapper inside reported; (0, None) if it died first.

    The program could overwrite the file, lying about itself only.
    """
    try:
        with open(path) as handle:
            peak, elapsed = handle.read(64).split()
        return max(0, int(peak)), max(0.0, float(elapsed))
    except (OSError, ValueError):
        return 0, None
