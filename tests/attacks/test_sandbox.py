"""Attacks from inside every kind of execution: a hostile fuzz target and a hostile generated program.

Each tries to read the worker's environment, the project's secrets and the
SQLite file, to reach Redis, PostgreSQL and the internet, to write outside
its scratch directory, to leave a ``setsid`` process behind, to fork-bomb,
to fill the disk and to raise its own limits. Every attempt must fail, what
the code saw is recorded, and the worker goes on.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from engines import sandbox
from engines.differential import execute
from engines.pyfunc.executor import Child
from tests.targets import escape

PROJECT = Path(escape.PROJECT)
CANARY = PROJECT / "var" / "attack-canary"
OUTSIDE = (PROJECT / "escape-canary", Path.home() / "escape-canary", Path("/escape-canary"))


@pytest.fixture
def secrets():
    """A secret where the worker keeps its own (var/), and a clean machine after."""
    CANARY.parent.mkdir(exist_ok=True)
    CANARY.write_text("the worker's secret")
    yield
    CANARY.unlink(missing_ok=True)
    _kill_sleepers()
    for path in OUTSIDE:
        path.unlink(missing_ok=True)


def _sleepers() -> list[str]:
    found = subprocess.run(["pgrep", "-f", escape.MARKER], capture_output=True, text=True, check=False)
    return found.stdout.split()


def _kill_sleepers() -> None:
    subprocess.run(["pkill", "-9", "-f", escape.MARKER], check=False)


def _assert_contained(report: dict[str, str]) -> None:
    escaped = {name: result for name, result in report.items() if result.startswith("ESCAPED")}
    assert not escaped, escaped
    if report:
        assert set(report) >= {"parent_environment", "secret_key", "redis", "postgresql", "internet", "write_outside"}
    for path in OUTSIDE:
        assert not path.exists(), f"{path} was written from inside the sandbox"
    time.sleep(0.5)
    assert _sleepers() == [], "a setsid process outlived its sandbox"


def test_a_hostile_python_target_gets_nowhere_and_the_worker_goes_on(secrets):
    child = Child("tests.targets.escape", sandbox.Limits(call_timeout_seconds=60.0))
    child.start()
    try:
        outcome = child.call("report", [1], {})
        assert outcome.status == "exception" and outcome.crash_type.endswith("EscapeReport"), outcome
        report = json.loads(outcome.message)
        # What the target saw is in the finding's message.
        assert report["secret_key"].startswith("blocked") and report["redis"].startswith("blocked")
        assert report["fill_disk"].startswith("blocked") and report["fork_bomb"].startswith("blocked")
    finally:
        child.stop()
    _assert_contained(report)
    # The worker goes on: a new child serves calls as before.
    child.start()
    try:
        assert child.call("report", [2], {}).crash_type.endswith("EscapeReport")
    finally:
        child.stop()


HOSTILE_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <sys/socket.h>

static int can_read(const char *path, const char *needle) {
    char buffer[8192] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    int n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) return 0;
    for (int i = 0; i < n; i++) if (!buffer[i]) buffer[i] = ' ';
    return needle == NULL || strstr(buffer, needle) != NULL;
}

static int can_connect(const char *host, int port) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET; a.sin_port = htons(port); inet_pton(AF_INET, host, &a.sin_addr);
    int ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s);
    return ok;
}

int main(void) {
    printf("environ=%d\n", can_read("/proc/1/environ", "DATABASE_URL") || can_read("/proc/1/environ", "REDIS_URL"));
    printf("secret=%d\n", can_read("%CANARY%", NULL));
    printf("redis=%d\n", can_connect("127.0.0.1", 6379));
    printf("postgresql=%d\n", can_connect("127.0.0.1", 5432));
    int fd = open("%OUTSIDE%", O_WRONLY | O_CREAT, 0644);
    printf("write_outside=%d\n", fd >= 0);
    if (fork() == 0) { setsid(); execlp("sh", "sh", "-c", "exec -a %MARKER% sleep 60", (char *)0); }
    return 0;
}
"""


def test_a_hostile_generated_program_and_its_compiler_run_get_nowhere(secrets):
    workdir = tempfile.mkdtemp(prefix="fuzzweb-attack-")
    source = (
        HOSTILE_C.replace("%CANARY%", str(CANARY))
        .replace("%OUTSIDE%", str(OUTSIDE[0]))
        .replace("%MARKER%", escape.MARKER)
    )
    Path(workdir, "program.c").write_text(source)
    limits = sandbox.Limits()
    built = execute.run(["gcc", "-o", "program", "program.c"], workdir, 60, limits)
    assert built.returncode == 0, built.stderr
    ran = execute.run(["./program"], workdir, 30, limits)
    assert ran.returncode == 0, ran.stderr
    seen = dict(line.split("=") for line in ran.stdout.split())
    assert seen == {"environ": "0", "secret": "0", "redis": "0", "postgresql": "0", "write_outside": "0"}
    _assert_contained({})  # the canaries and the setsid sleeper, checked from outside


def test_a_target_filling_its_scratch_with_small_files_is_killed_and_the_worker_goes_on(monkeypatch):
    monkeypatch.setattr(sandbox, "SCRATCH_BYTES", 64 * 1024 * 1024)
    child = Child("tests.targets.escape", sandbox.Limits(call_timeout_seconds=60.0))
    child.start()
    try:
        workdir = child.workdir
        outcome = child.call("fill_scratch", [1], {})
        assert (outcome.status, outcome.crash_type) == ("crashed", "ScratchFull"), outcome
        assert "64 MiB" in outcome.message
        # Emptied, and dead: nothing more appears.
        assert not [name for name in os.listdir(workdir) if name.startswith("filler-")]
        time.sleep(0.5)
        assert not [name for name in os.listdir(workdir) if name.startswith("filler-")]
    finally:
        child.stop()
    child.start()
    try:
        assert child.call("report", [2], {}).crash_type.endswith("EscapeReport")
    finally:
        child.stop()


def test_a_program_filling_its_scratch_is_killed_and_its_scratch_emptied(monkeypatch):
    monkeypatch.setattr(sandbox, "SCRATCH_BYTES", 64 * 1024 * 1024)
    workdir = tempfile.mkdtemp(prefix="fuzzweb-attack-")
    script = "i=0; while [ $i -lt 100000 ]; do head -c 8000000 /dev/zero > f$i; i=$((i+1)); done"
    ran = execute.run(["/bin/sh", "-c", script], workdir, 60, sandbox.Limits())
    assert ran.returncode == -signal.SIGKILL and "grew past 64 MiB" in ran.stderr
    assert not sandbox.scratch_over(workdir, 1024 * 1024)
    # The next run in the same place works as before.
    assert execute.run(["/bin/sh", "-c", "echo fine"], workdir, 10, sandbox.Limits()).stdout == "fine\n"


def test_the_sandbox_is_required_not_optional(monkeypatch):
    monkeypatch.setenv("FUZZWEB_BWRAP", "")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap"):
        sandbox.confine(["true"], scratch=tempfile.mkdtemp(), environment={})
