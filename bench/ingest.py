"""Ingest throughput through the bulk API, and bucketing cost against FuzzManager.

Starts the dashboard (manage.py runserver) on a fresh PostgreSQL database
`fuzzweb_bench` (on the server of DATABASE_URL, default local), then:

1. posts findings in bulk batches of 500 over HTTP with 100 buckets in the
   database, and again with 100,000; prints findings per second for each;
2. times bucketing one crash: fuzzweb (signature + indexed lookup) against
   FuzzManager's matching of the same crash against 10,000 signatures.

--quick posts fewer findings and compares bucketing at 2,000 buckets
instead of 10,000 (FuzzManager's cost grows with the bucket count, so the
quick ratio is the smaller one).

Last line: findings_per_s=<x> buckets_100=<x> buckets_100000=<x> vs_fuzzmanager_matching=<ratio>
(findings_per_s is the lower of the two; each is the best of two interleaved runs.)

    .venv/bin/python bench/ingest.py [--quick]     (make bench-deps first)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BENCH_DB = "fuzzweb_bench"
BATCH = 500


def _database_url() -> str:
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fuzzweb")
    return base.rsplit("/", 1)[0] + "/" + BENCH_DB


def _recreate_database(url: str) -> None:
    import psycopg

    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin.replace("postgres://", "postgresql://"), autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")


def _setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fuzzweb.settings")
    import django

    django.setup()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _corpus() -> list[dict]:
    path = ROOT / "tests" / "data" / "dedup_corpus.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _findings(corpus: list[dict], count: int, rng: random.Random) -> list[dict]:
    """``count`` distinct findings: real traces, each with a fresh testcase."""
    findings = []
    for index in range(count):
        record = corpus[index % len(corpus)]
        findings.append(
            {
                "kind": "crash",
                "target": f"bench-{record['format']}",
                "engine": "bench",
                "trace": record["trace"],
                "testcase": f"input {index} {rng.random()}",
                "versions": {"build": "bench"},
            }
        )
    return findings


def _seed_buckets(count: int) -> None:
    """Empty the tables, then store ``count`` synthetic buckets (in SQL: 100,000
    bucket objects through the ORM would take longer than the measurement)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE triage_finding, triage_bucketevent, triage_bucket RESTART IDENTITY CASCADE")
        cursor.execute(
            "INSERT INTO triage_bucket (signature, signature_version, kind, crash_type, title, key_frames, "
            "method, trace_format, status, hit_count, first_seen, last_seen) "
            "SELECT lpad(to_hex(n), 64, '0'), 1, 'crash', 'Synthetic', 'synthetic bucket ' || n, '[]', "
            "'stack', '', 'new', 0, now(), now() FROM generate_series(1, %s) AS n",
            [count],
        )


def _post_all(url: str, token: str, findings: list[dict]) -> float:
    started = time.perf_counter()
    for start in range(0, len(findings), BATCH):
        body = json.dumps({"findings": findings[start : start + BATCH]}).encode()
        request = urllib.request.Request(
            url + "api/v1/findings/bulk",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=300) as response:  # noqa: S310 - our own server
            answer = json.loads(response.read())
            assert answer["stored"] == len(findings[start : start + BATCH]), answer
    return len(findings) / (time.perf_counter() - started)


def _throughput(server: str, token: str, corpus, buckets: int, count: int, rng) -> float:
    from django.db import connection

    _seed_buckets(buckets)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE triage_bucket")
        cursor.execute("VACUUM ANALYZE triage_finding")
    _post_all(server, token, _findings(corpus, 200, rng))  # warm up the server process
    rate = _post_all(server, token, _findings(corpus, count, rng))
    print(f"  {buckets:>7} buckets: {rate:8.0f} findings/s over {count} findings")
    return rate


_IDENTIFIER = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{2,})(?=\(|\s*$|::h[0-9a-f]{16})", re.MULTILINE)


def _other_bug(trace: str, k: int) -> str:
    """The same kind of crash in differently named code: another bug, as far
    as any signature can tell."""
    return _IDENTIFIER.sub(lambda m: f"{m.group(1)}_b{k}", trace)


def _bucketing_ratio(corpus, crashes: int, stored: int) -> tuple[float, float]:
    """Seconds to bucket one new crash with ``stored`` buckets, for both systems.

    Both get the same buckets, made from the corpus's real traces with
    their functions renamed (so each is a distinct bug), and the same new
    crashes, taken evenly across every format of the corpus.
    """
    from django.db import connection
    from django.utils import timezone
    from FTB.ProgramConfiguration import ProgramConfiguration
    from FTB.Signatures.CrashInfo import CrashInfo

    from triage import signatures
    from triage.ingest import buckets_by_signature
    from triage.models import Bucket

    config = ProgramConfiguration("target", "x86-64", "linux")
    _seed_buckets(0)
    now = timezone.now()
    rows, fm_signatures = {}, []
    k = 0
    while len(rows) < stored or len(fm_signatures) < stored:
        trace = _other_bug(corpus[k % len(corpus)]["trace"], k)
        k += 1
        if len(rows) < stored:
            signature = signatures.compute(kind="crash", trace_text=trace)
            rows[signature.digest] = Bucket(
                signature=signature.digest,
                signature_version=signature.version,
                kind="crash",
                title=signature.title[:300],
                first_seen=now,
                last_seen=now,
            )
        if len(fm_signatures) < stored:
            fm_signature = CrashInfo.fromRawCrashData([], trace.splitlines(), config).createCrashSignature()
            if fm_signature is not None:
                fm_signatures.append(fm_signature)
    Bucket.objects.bulk_create(rows.values(), batch_size=2000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE triage_bucket")
    print(f"  stored buckets: fuzzweb {len(rows)}, FuzzManager {len(fm_signatures)}")

    new = [r["trace"] for r in corpus][:: max(1, len(corpus) // crashes)][:crashes]
    buckets_by_signature(["0" * 64])  # open the connection before timing
    rounds = 5
    started = time.perf_counter()
    for _ in range(rounds):
        for trace in new:
            signature = signatures.compute(kind="crash", trace_text=trace)
            buckets_by_signature([signature.digest])
    fuzzweb = (time.perf_counter() - started) / (rounds * len(new))

    started = time.perf_counter()
    for trace in new:
        crash = CrashInfo.fromRawCrashData([], trace.splitlines(), config)
        for signature in fm_signatures:
            if signature.matches(crash):
                break
    fuzzmanager = (time.perf_counter() - started) / len(new)
    return fuzzweb, fuzzmanager


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer findings; finishes in under a minute")
    options = parser.parse_args()
    count = 3000 if options.quick else 20000
    crashes = 15 if options.quick else 60
    rng = random.Random(1)

    url = _database_url()
    _recreate_database(url)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "fuzzweb.settings"}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env, check=True)
    _setup_django(url)
    from django.contrib.auth import get_user_model

    from fuzzweb.tokens import api_token_create

    user = get_user_model().objects.create_user("bench")
    token = api_token_create(user=user, name="bench")[1]

    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "runserver", "--noreload", f"127.0.0.1:{port}"],
        env={**env, "LOG_LEVEL": "WARNING"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        corpus = _corpus()
        print(f"bulk API, batches of {BATCH}, one client, runserver, PostgreSQL:")
        # Interleaved and best of two: the machine's own noise (autovacuum,
        # other processes) is not what is being measured.
        runs = {100: [], 100_000: []}
        for buckets in (100, 100_000, 100, 100_000):
            runs[buckets].append(_throughput(base, token, corpus, buckets, count, rng))
        small, large = max(runs[100]), max(runs[100_000])
    finally:
        server.terminate()
        server.wait()

    stored = 2_000 if options.quick else 10_000
    fuzzweb, fuzzmanager = _bucketing_ratio(corpus, crashes, stored)
    ratio = fuzzmanager / fuzzweb
    print(
        f"bucketing one crash at {stored:,} buckets: fuzzweb {fuzzweb * 1e3:.3f} ms, "
        f"FuzzManager {fuzzmanager * 1e3:.1f} ms ({ratio:.0f}x)"
    )
    print(f"large/small throughput: {large / small:.2f}")
    print(
        f"findings_per_s={min(small, large):.0f} buckets_100={small:.0f} buckets_100000={large:.0f} "
        f"vs_fuzzmanager_matching={ratio:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
