"""Running untrusted code: bubblewrap confinement, resource limits, process-group handling.

Fuzzed code can segfault, hang, fork or allocate without bound, and it can
also read, write and connect: a function that deletes a path or opens a
socket is one random call away. Every child therefore runs

- under bubblewrap (:func:`confine`): new user, PID, network, IPC, UTS and
  cgroup namespaces, no capabilities, a new session, killed with its
  parent; the system directories, the Python installation and the code it
  needs bound read-only; a fresh ``/proc``, ``/dev`` and a size-capped
  ``/tmp``; its own scratch directory as the only writable place; no
  environment beyond an allow-list. It sees no other process, no network
  (loopback included: Redis and PostgreSQL are out of reach), no project
  secrets (``var/`` is masked) and nothing of the worker's home;
- with rlimits on CPU time, address space, file size and process count,
  and a pids cgroup where the kernel allows one;
- in its own process group, killed whole on timeout (killing bubblewrap
  kills everything in the PID namespace, ``setsid`` grandchildren too);
- with its scratch directory watched (:class:`ScratchGuard`): past
  ``SCRATCH_BYTES`` or ``SCRATCH_FILES`` the group is killed and the
  scratch emptied. RLIMIT_FSIZE caps one file; this caps them all, which
  a bind-mounted host directory cannot do by itself.

What the child does to itself is a finding; it must never take the worker
down. Where bubblewrap is missing, nothing untrusted runs:
:class:`SandboxUnavailable` says what to install.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import resource
import shutil
import signal
import sys
import threading
import time
from dataclasses import dataclass

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# System directories a program, a compiler or an interpreter needs, read-only.
# (/etc is not bound whole: only the few files below.)
_SYSTEM_DIRECTORIES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
_ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/java-*",
)
# With the network (a package installed from its index): name resolution, certificates, pip's settings.
_NETWORK_ETC_FILES = ("/etc/resolv.conf", "/etc/hosts", "/etc/ssl", "/etc/ca-certificates", "/etc/pip.conf")
# Inside the project, what a child must never read: the secret key, the
# SQLite database, the embedded Redis, the repository.
_PROJECT_SECRETS = ("var", ".git")
TMP_BYTES = 256 * 1024 * 1024
SCRATCH_BYTES = 512 * 1024 * 1024
SCRATCH_FILES = 20_000


class SandboxUnavailable(RuntimeError):
    """bubblewrap is not installed or cannot create namespaces here: untrusted code does not run."""


def bubblewrap() -> str:
    """The bubblewrap executable, or :class:`SandboxUnavailable` saying what to install."""
    found = os.environ.get("FUZZWEB_BWRAP") or shutil.which("bwrap")
    if not found:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is needed to run untrusted code; install it (Debian: apt-get install bubblewrap)"
        )
    return found


def _readonly_roots(extra: tuple[str, ...]) -> list[str]:
    """Directories bound read-only: the system, the Python running us, the project, and ``extra``."""
    roots = [path for path in _SYSTEM_DIRECTORIES if os.path.exists(path)]
    roots += sorted({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)), PROJECT_ROOT})
    roots += [os.path.abspath(path) for path in extra if path and os.path.exists(path)]
    return roots


def confine(
    argv: list[str],
    *,
    scratch: str,
    environment: dict[str, str],
    readable: tuple[str, ...] = (),
    network: bool = False,
) -> list[str]:
    """``argv`` wrapped in bubblewrap: see the module docstring for what the child can and cannot do.

    ``scratch`` is bound read-write and is the working directory;
    ``readable`` are extra paths (a target's own code) bound read-only.
    """
    args = [bubblewrap(), "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
    if network:
        args.append("--share-net")
    for name, value in sorted(environment.items()):
        args += ["--setenv", name, value]
    # The private /tmp first: a target's own code may live under the host's /tmp
    # and is bound on top of it.
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for root in _readonly_roots(readable):
        # --ro-bind-try: /lib32 and friends may be missing, symlinks are followed.
        args += ["--ro-bind-try", root, root]
    for pattern in _ETC_FILES + (_NETWORK_ETC_FILES if network else ()):
        for path in glob.glob(pattern):
            args += ["--ro-bind-try", path, path]
    for secret in _PROJECT_SECRETS:
        if os.path.exists(os.path.join(PROJECT_ROOT, secret)):
            args += ["--tmpfs", os.path.join(PROJECT_ROOT, secret)]
    args += ["--bind", scratch, scratch, "--chdir", scratch]
    # bubblewrap builds the tree on a tmpfs root: read-only once built, so the
    # scratch directory and the private /tmp are the only writable places.
    args += ["--remount-ro", "/", "--", *argv]
    return args


def descendant(pid: int, marker: str, depth: int = 4) -> int | None:
    """The host pid of the deepest process under ``pid`` whose command line holds ``marker``, or None.

    The deepest: bubblewrap's own processes carry the command in their
    arguments too; the program is below them.
    """
    found = None
    frontier = [pid]
    for _ in range(depth):
        children = []
        for parent in frontier:
            try:
                with open(f"/proc/{parent}/task/{parent}/children") as handle:
                    children += [int(child) for child in handle.read().split()]
            except OSError:
                continue
        for child in children:
            try:
                with open(f"/proc/{child}/cmdline", "rb") as handle:
                    if marker.encode() in handle.read():
                        found = child
            except OSError:
                continue
        frontier = children
    return found


def exit_status(returncode: int) -> int:
    """A confined child's status as Popen reports an unconfined one: 128 + N (bubblewrap's report of signal N) -> -N."""
    if 128 < returncode < 128 + 65:
        return 128 - returncode
    return returncode


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
    # RLIMIT_NPROC counts every task (thread) of the user, and root ignores it.
    # Workers run as their own account (fuzzweb.worker_account), so the user's
    # tasks are all the workers' and their other children's: the child may add
    # ``processes`` to what already runs, which stops a fork bomb without
    # starving a JVM compiling beside it.
    running = _tasks_of(os.getuid()) if os.geteuid() != 0 else 0
    resource.setrlimit(resource.RLIMIT_NPROC, (running + limits.processes, running + limits.processes))
    # Core dumps of a crashing target would fill the disk and add nothing.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _tasks_of(uid: int) -> int:
    """Threads of every process whose real user is ``uid`` (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", "rb") as handle:
                status = handle.read(4096)
        except OSError:
            continue
        fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
        if int(fields.get(b"Uid", b"-1").split()[0]) == uid:
            count += int(fields.get(b"Threads", b"1").strip() or 1)
    return count


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


def scratch_over(path: str, max_bytes: int = SCRATCH_BYTES, max_files: int = SCRATCH_FILES) -> bool:
    """Whether the tree under ``path`` holds more than ``max_bytes`` (allocated) or ``max_files`` entries.

    Stops counting as soon as either is passed, so a directory of a million
    files costs no more than one of ``max_files``.
    """
    used, entries, pending = 0, 0, [path]
    while pending:
        try:
            listing = os.scandir(pending.pop())
        except OSError:
            continue
        with listing:
            for entry in listing:
                entries += 1
                if entries > max_files:
                    return True
                try:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    else:
                        used += entry.stat(follow_symlinks=False).st_blocks * 512
                except OSError:
                    continue
                if used > max_bytes:
                    return True
    return False


def scratch_empty(path: str) -> None:
    """Remove everything inside ``path``, keeping the directory."""
    with contextlib.suppress(OSError), os.scandir(path) as listing:
        for entry in listing:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


class ScratchGuard:
    """Watches a confined process group's scratch directory; past its cap, kills the group and empties it.

    A thread polling every ``interval`` seconds: a program writing as fast
    as the disk allows gets at most a few hundred MiB past the cap before
    it dies, and RLIMIT_FSIZE bounds each file meanwhile.
    """

    def __init__(self, scratch: str, pid: int, *, max_bytes: int | None = None, interval: float = 0.2):
        self.scratch, self.pid, self.interval = scratch, pid, interval
        self.max_bytes = SCRATCH_BYTES if max_bytes is None else max_bytes
        self.tripped = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name=f"scratch-guard-{pid}", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            if scratch_over(self.scratch, self.max_bytes):
                self.tripped = True
                kill_group(self.pid)
                # The sandbox's inner processes die with its PID namespace, a
                # moment after bubblewrap: empty until nothing more appears.
                quiet = 0
                for _ in range(40):
                    scratch_empty(self.scratch)
                    time.sleep(0.05)
                    quiet = quiet + 1 if not os.listdir(self.scratch) else 0
                    if quiet == 3:
                        break
                return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    @property
    def note(self) -> str:
        """What the target is told, in its finding, when the guard killed it."""
        if not self.tripped:
            return ""
        return f"killed by fuzzweb: its scratch directory grew past {self.max_bytes // (1024 * 1024)} MiB"
