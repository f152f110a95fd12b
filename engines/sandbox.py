"""Resource limits and process-group handling for running untrusted code.

Fuzzed code can segfault, hang, fork or allocate without bound. Each child
runs in its own session (so the whole group can be killed at once), in a
fresh temporary directory, with a scrubbed environment and rlimits on CPU
time, address space, file size and process count. What the child does to
itself is a finding; it must never take the worker down.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import resource
import signal
import time
from dataclasses import dataclass

# Only these variables survive into the child: enough for Python to start and
# find the target, nothing that leaks credentials (DATABASE_URL, tokens, ...).
_KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "TZ", "PYTHONHASHSEED")


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to a sandboxed child process."""

    cpu_seconds: int = 600
    memory_bytes: int = 1024 * 1024 * 1024
    file_size_bytes: int = 16 * 1024 * 1024
    processes: int = 64
    call_timeout_seconds: float = 2.0


def scrubbed_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Return a minimal environment for a child, plus ``extra``."""
    env = {name: os.environ[name] for name in _KEPT_ENVIRONMENT if name in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    env.update(extra or {})
    return env


def apply_limits(limits: Limits) -> None:
    """Set rlimits on the calling process; meant to run in the child before exec."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes, limits.file_size_bytes))
    # RLIMIT_NPROC counts every process of the user; root ignores it. It still
    # stops a fork bomb when workers run unprivileged, which is how they should.
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    # Core dumps of a crashing target would fill the disk and add nothing.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class ProcessCap:
    """A pids cgroup that caps how many processes a child and its descendants have.

    RLIMIT_NPROC does not bind root, and counts every process of the user
    rather than the child's. Where the kernel lets us create a pids cgroup
    (cgroup v1 ``/sys/fs/cgroup/pids``, as on this kind of machine), a fork
    bomb stops at ``limit`` processes whoever runs the worker. Elsewhere
    ``create`` returns None and RLIMIT_NPROC is what remains.
    """

    ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified", "/sys/fs/cgroup")
    _counter = itertools.count()

    def __init__(self, path: str):
        self.path = path

    @classmethod
    def create(cls, limit: int) -> ProcessCap | None:
        """Make a capped cgroup, or return None where the machine does not allow it."""
        for root in cls.ROOTS:
            if not os.path.exists(os.path.join(root, "cgroup.procs")):
                continue
            path = os.path.join(root, f"fuzzweb-{os.getpid()}-{next(cls._counter)}")
            try:
                os.mkdir(path)
            except OSError:
                continue
            try:
                with open(os.path.join(path, "pids.max"), "w") as handle:
                    handle.write(str(limit))
            except OSError:
                os.rmdir(path)
                continue
            return cls(path)
        return None

    def enter(self) -> None:
        """Move the calling process into the cgroup (run in the child before exec)."""
        with open(os.path.join(self.path, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))

    def remove(self) -> None:
        """Delete the cgroup once its processes are gone."""
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid``; a no-op if it is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def signal_name(returncode: int) -> str:
    """Name the signal behind a negative ``returncode`` (``-11`` -> ``SIGSEGV``)."""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"
