"""A fuzz target that tries to get out of its sandbox, and reports what it saw.

Every function makes the same attempts (the fuzzer calls it with whatever
arguments); ``report`` raises ``EscapeReport`` whose message lists each
attempt as ``name=blocked`` or ``name=ESCAPED: what it got``, so the finding
records what the target saw. The attack tests read that message and check
the machine afterwards.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import socket
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(os.path.dirname(HERE))
MARKER = "fuzzweb-escape-sleeper"


class EscapeReport(Exception):
    """What the attempts found (raised, so the finding keeps it)."""


def _read(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read(4096).decode("utf-8", "replace")


def _attempt(results: dict, name: str, action) -> None:
    try:
        got = action()
    except Exception as error:  # noqa: BLE001 - every failure is a block
        results[name] = f"blocked ({type(error).__name__})"
        return
    results[name] = f"ESCAPED: {str(got)[:120]}" if got else "blocked (nothing)"


def _environments() -> str:
    leaked = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                text = _read(f"/proc/{pid}/environ")
            except OSError:
                continue
            leaked += [name for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "FUZZWEB_") if name in text]
    return ",".join(sorted(set(leaked)))


def _connect(host: str, port: int) -> str:
    with socket.create_connection((host, port), timeout=2):
        return f"connected to {host}:{port}"


def _write_outside() -> str:
    written = []
    for path in (os.path.join(PROJECT, "escape-canary"), os.path.expanduser("~/escape-canary"), "/escape-canary"):
        try:
            with open(path, "w") as handle:
                handle.write("out")
            written.append(path)
        except OSError:
            pass
    return ",".join(written)


def _leave_a_process() -> str:
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            # exec -a names the sleeper, so the test can look for it from outside.
            os.execvp("sh", ["sh", "-c", f"exec -a {MARKER} sleep 60"])  # noqa: S606
        os._exit(0)
    os.waitpid(pid, 0)
    return ""  # whether it survived is for the test to see, from outside


def _fork_bomb() -> str:
    children = 0
    try:
        for _ in range(5000):
            pid = os.fork()
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            children += 1
    except OSError:
        pass
    return f"{children} processes" if children >= 1000 else ""


def _fill_disk() -> str:
    # Past the file-size limit the kernel sends SIGXFSZ; ignored, the write fails instead.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    written = 0
    with open("filler", "wb") as handle:
        block = b"\0" * (1024 * 1024)
        for _ in range(4096):  # 4 GiB
            handle.write(block)
            written += len(block)
    return f"{written} bytes"


def _raise_limits() -> str:
    raised = []
    for limit in (resource.RLIMIT_AS, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE, resource.RLIMIT_CPU):
        soft, hard = resource.getrlimit(limit)
        try:
            resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            raised.append(str(limit))
        except (ValueError, OSError):
            pass
    return ",".join(raised)


def report(anything: int) -> None:
    """Try every way out; raise what was found."""
    results: dict[str, str] = {}
    _attempt(results, "parent_environment", _environments)
    _attempt(results, "secret_key", lambda: _read(os.path.join(PROJECT, "var", "attack-canary")))
    _attempt(results, "sqlite", lambda: _read(os.path.join(PROJECT, "var", "fuzzweb.sqlite3"))[:16])
    _attempt(results, "home", lambda: _read(os.path.expanduser("~/.bashrc"))[:16])
    _attempt(results, "redis", lambda: _connect("127.0.0.1", 6379))
    _attempt(results, "postgresql", lambda: _connect("127.0.0.1", 5432))
    _attempt(results, "internet", lambda: _connect("1.1.1.1", 53))
    _attempt(results, "write_outside", _write_outside)
    _attempt(results, "raise_limits", _raise_limits)
    _attempt(results, "leave_a_process", _leave_a_process)
    _attempt(results, "fill_disk", _fill_disk)
    _attempt(results, "fork_bomb", _fork_bomb)
    raise EscapeReport(json.dumps(results, sort_keys=True))


def fill_scratch(anything: int) -> None:
    """Many files, each under the file-size limit: only a cap on the whole scratch directory stops this."""
    for number in range(100_000):
        with open(f"filler-{number}", "wb") as handle:
            handle.write(b"\0" * (8 * 1024 * 1024))
