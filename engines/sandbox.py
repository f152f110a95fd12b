"""Resource limits and process-group handling for running untrusted code.

Fuzzed code can segfault, hang, fork or allocate without bound. Each child
runs in its own session (so the whole group can be killed at once), in a
fresh temporary directory, with a scrubbed environment and rlimits on CPU
time, address space, file size and process count. What the child does to
itself is a finding; it must never take the worker down.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
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
