"""Ingest under load: 20 concurrent clients for a minute against gunicorn, then count what was kept.

    .venv/bin/python bench/load.py [--quick] [--clients 20] [--seconds 60] [--workers 4]

Runs gunicorn on a database of its own (``fuzzweb_load``, emptied first; on
DATABASE_URL's server, named ``<DATABASE_URL's name>_load``) and the
configured Redis. Each client posts findings one request at a time,
as a fuzzer box would, a mix of new testcases, repeats and a few buckets'
worth of signatures, each with its own token. ``ingested`` counts the findings the server accepted
(2xx), ``stored`` the hits the database holds afterwards (a repeat is a
hit on the stored finding, not a row), ``errors`` every other answer or
failed request. Nothing lost means stored == ingested.

Last line: ``ingested=<n> stored=<n> errors=<n>``.

--quick: 2 clients for 3 seconds, 2 workers (what `make test` runs: that it
still runs to its last line, whatever the counts). gunicorn is what `make run`
serves with, so it is always installed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest import _database_url  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _fresh_database(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    with psycopg.connect(
        host=parsed.hostname, port=parsed.port or 5432, user=parsed.username or "postgres", dbname="postgres",
        autocommit=True,
    ) as connection:  # fmt: skip
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


def _finding(rng: random.Random, client: int, index: int) -> dict:
    function = f"parse_{rng.randrange(40)}"
    # One in five repeats a testcase this client sent before: a hit, not a new row.
    call = f"{function}({rng.randrange(index // 5 + 1)})" if rng.random() < 0.2 else f"{function}('{client}-{index}')"
    return {
        "kind": "crash",
        "target": "load.target",
        "engine": "loadgen",
        "function": function,
        "crash_type": "KeyError",
        "message": "'k'",
        "trace": (
            "Traceback (most recent call last):\n"
            f'  File "/src/load/{function}.py", line {rng.randrange(1, 500)}, in {function}\n'
            "    return TABLE[key]\nKeyError: 'k'\n"
        ),
        "testcase": call,
        "testcase_language": "python",
    }


def _client(url: str, token: str, client: int, stop: float, totals: dict, lock: threading.Lock) -> None:
    rng = random.Random(client)
    ingested = errors = index = 0
    while time.monotonic() < stop:
        body = json.dumps(_finding(rng, client, index)).encode()
        index += 1
        request = urllib.request.Request(
            url, data=body, method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the local server
                ingested += 200 <= response.status < 300
        except (urllib.error.URLError, OSError):
            errors += 1
    with lock:
        totals["ingested"] += ingested
        totals["errors"] += errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="2 clients for 3 s, 2 workers")
    args = parser.parse_args()
    if args.quick:
        args.clients, args.seconds, args.workers = 2, 3.0, 2
    database = _database_url("load")
    _fresh_database(database)
    env = {**os.environ, "DATABASE_URL": database, "DJANGO_SETTINGS_MODULE": "fuzzweb.settings"}
    env.setdefault("FUZZWEB_AUTO_REDUCE", "0")  # reductions would compete with ingest for the CPU
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=ROOT)
    made = subprocess.run(
        [*manage, "shell", "-c",
         "from django.contrib.auth import get_user_model; from fuzzweb.tokens import api_token_create; "
         "u = get_user_model().objects.create_superuser('load', '', 'load-not-a-secret-9'); "
         f"[print(api_token_create(user=u, name=f'box {{i}}', scope='ingest')[1]) for i in range({args.clients})]"],
        env=env, check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    # A token per client, as each fuzzer box has its own (the rate limit is per token).
    tokens = made.stdout.strip().splitlines()[-args.clients :]
    port = _free_port()
    serving = f"gunicorn ({args.workers} workers)"
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "fuzzweb.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(args.workers), "--log-level", "warning", "--no-control-socket"],
        env=env, cwd=ROOT, start_new_session=True,
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=1)  # noqa: S310
                break
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        totals, lock = {"ingested": 0, "errors": 0}, threading.Lock()
        stop = time.monotonic() + args.seconds
        url = f"http://127.0.0.1:{port}/api/v1/findings"
        threads = [
            threading.Thread(target=_client, args=(url, tokens[i], i, stop, totals, lock)) for i in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    counted = subprocess.run(
        [*manage, "shell", "-c",
         "from django.db.models import Sum; from triage.models import Finding; "
         "print(Finding.objects.aggregate(n=Sum('hit_count'))['n'] or 0)"],
        env=env, check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    stored = int(counted.stdout.strip().splitlines()[-1])
    print(f"{args.clients} clients for {args.seconds:.0f} s against {serving}: "
          f"{totals['ingested'] / args.seconds:.0f} findings/s")  # fmt: skip
    print(f"ingested={totals['ingested']} stored={stored} errors={totals['errors']}")
    if args.quick:
        return 0  # no goals in quick mode: it ran to its last line
    return 0 if stored == totals["ingested"] and not totals["errors"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
