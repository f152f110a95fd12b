"""Ingest throughput through the bulk API, and bucketing cost against FuzzManager.

Migrates a fresh PostgreSQL database `fuzzweb_bench` (on the server of
DATABASE_URL, default local; named after DATABASE_URL's database,
`<name>_bench`, so that runs against different databases do not share it),
then:

1. starts the web server as `make run` does (gunicorn, fuzzweb.devstack's
   worker count: 4 on two cores), posts findings in bulk batches of 500
   over HTTP from as many clients at once as it has workers (engines report
   from several campaign workers), with 100 buckets in the database, and
   again with 100,000; prints findings per second for each;
2. times bucketing one crash: fuzzweb (signature + indexed lookup) against
   FuzzManager's matching of the same crash against 10,000 signatures.

--quick posts 1,500 findings, once each against 100 and 2,000 buckets
(its last line says buckets_2000), posts three hostile traces without
ranking them first, and compares bucketing at 2,000
buckets instead of 10,000 (FuzzManager's cost grows with the bucket count,
so the quick ratio is the smaller one).

Last line: findings_per_s=<x> buckets_100=<x> buckets_100000=<x> vs_fuzzmanager_matching=<ratio> hostile_request_ms=<x>
(findings_per_s is the lower of the two; each is the best of two interleaved runs. One finding in ten
is a new bug, which goes through the fuzzy stage. hostile_request_ms: the slowest answer to one POST of
each of the three 256 KiB traces bench/parse_worst.py finds slowest to parse.)

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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BATCH = 500


def _database_url(suffix: str = "bench") -> str:
    """A database of a bench's own on DATABASE_URL's server: ``<DATABASE_URL's name>_<suffix>``.

    fuzzweb_bench for this bench with the default DATABASE_URL (that of ``make test``).
    """
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/fuzzweb")
    server, name = base.rsplit("/", 1)
    return f"{server}/{name}_{suffix}"


def _recreate_database(url: str) -> None:
    import psycopg

    server, name = url.rsplit("/", 1)
    with psycopg.connect(server.replace("postgres://", "postgresql://") + "/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')


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


# One finding in this many is a bug never seen before: it opens a bucket and
# goes through the fuzzy stage's candidate lookup (triage.fuzzy).
NEW_BUG_EVERY = 10


def _findings(corpus: list[dict], count: int, rng: random.Random) -> list[dict]:
    """``count`` distinct findings: real traces, each with a fresh testcase, and some new bugs."""
    findings = []
    for index in range(count):
        record = corpus[index % len(corpus)]
        trace = record["trace"]
        if index % NEW_BUG_EVERY == 0:
            trace = _other_bug(trace, rng.randrange(10**9))
        findings.append(
            {
                "kind": "crash",
                "target": f"bench-{record['format']}",
                "engine": "bench",
                "trace": trace,
                "testcase": f"input {index} {rng.random()}",
                "versions": {"build": "bench"},
            }
        )
    return findings


# Bucket columns the seeding sets itself, as SQL over ``n`` (1..count); every
# other concrete column gets its model default (see _default_columns).
_SEEDED_BUCKET_COLUMNS = {
    "signature": "lpad(to_hex(n), 64, '0')",
    "signature_version": "1",
    "kind": "'crash'",
    "crash_type": "'Synthetic'",
    "title": "'synthetic bucket ' || n",
    # Targets and lookup keys like real ones, so that the fuzzy stage's GIN
    # lookups search a full index: keys shared by a few dozen buckets each.
    "target": "'bench-' || (ARRAY['python','jvm','rust','go','gcc','clang','sanitizer','dotnet'])[1 + mod(n, 8)]",
    "fuzzy_keys": "jsonb_build_array('frame ' || mod(n, 4001), 'frame ' || mod(n, 3989), 'site ' || mod(n, 5003))",
    "fuzzy_frames": "jsonb_build_array('frame ' || mod(n, 4001), 'frame ' || mod(n, 3989))",
    "first_seen": "now()",
    "last_seen": "now()",
}


def _default_columns(model, seeded: dict[str, str], connection) -> tuple[list[str], list[str], list]:
    """Column names, SQL expressions and parameters for one INSERT ... SELECT into ``model``'s table.

    ``seeded`` maps column names to SQL; every other concrete column gets the
    field's own default, prepared for the database as the ORM would save it,
    so a column added to the model later (with a default, or nullable) needs
    no change here. Columns with a database default are left to it.
    """
    from django.db.models import NOT_PROVIDED

    columns, expressions, params = [], [], []
    missing = set(seeded)
    for field in model._meta.concrete_fields:
        column = field.column
        if column in seeded:
            columns.append(connection.ops.quote_name(column))
            expressions.append(seeded[column])
            missing.discard(column)
            continue
        if field.db_returning or getattr(field, "generated", False):
            continue  # the identity id, generated columns: the database computes them
        if getattr(field, "db_default", NOT_PROVIDED) is not NOT_PROVIDED:
            continue  # the database fills it
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            columns.append(connection.ops.quote_name(column))
            expressions.append("now()")
            continue
        if not field.null and field.get_default() is None:
            raise RuntimeError(
                f"{model._meta.label}.{field.name} is NOT NULL without a default: "
                f"add it to the seeded columns of bench/ingest.py"
            )
        columns.append(connection.ops.quote_name(column))
        expressions.append("%s")
        params.append(field.get_db_prep_save(field.get_default(), connection))
    if missing:
        raise RuntimeError(f"{model._meta.label} has no column(s) {', '.join(sorted(missing))} any more")
    return columns, expressions, params


def _seed_buckets(count: int) -> None:
    """Empty the tables, then store ``count`` synthetic buckets (in SQL: 100,000
    bucket objects through the ORM would take longer than the measurement)."""
    from django.db import connection

    from triage.models import Bucket, BucketEvent, Finding

    tables = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in (Finding, BucketEvent, Bucket))
    columns, expressions, params = _default_columns(Bucket, _SEEDED_BUCKET_COLUMNS, connection)
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
        if count:
            cursor.execute(
                f"INSERT INTO {connection.ops.quote_name(Bucket._meta.db_table)} ({', '.join(columns)}) "  # noqa: S608 - names from the model
                f"SELECT {', '.join(expressions)} FROM generate_series(1, %s) AS n",
                [*params, count],
            )
        # Statistics as autovacuum keeps them on a database that grew to this size:
        # without them the planner takes the 100,000 buckets for 40 and skips the GIN index.
        cursor.execute(f"ANALYZE {connection.ops.quote_name(Bucket._meta.db_table)}")


def _post_batch(url: str, token: str, batch: list[dict]) -> None:
    body = json.dumps({"findings": batch}).encode()
    request = urllib.request.Request(
        url + "api/v1/findings/bulk",
        data=body,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=300) as response:  # noqa: S310 - our own server
        answer = json.loads(response.read())
        assert answer["stored"] == len(batch), answer


def _post_all(url: str, token: str, findings: list[dict], clients: int) -> float:
    """Findings per second, posted in batches by ``clients`` at once (engines report from several workers)."""
    batches = [findings[start : start + BATCH] for start in range(0, len(findings), BATCH)]
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for posted in [pool.submit(_post_batch, url, token, batch) for batch in batches]:
            posted.result()
    return len(findings) / (time.perf_counter() - started)


def _throughput(server: str, token: str, corpus, buckets: int, count: int, rng, clients: int) -> float:
    from django.db import connection

    _seed_buckets(buckets)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE triage_bucket")
        cursor.execute("VACUUM ANALYZE triage_finding")
    # Warm up every server process (each answers one batch at a time).
    _post_all(server, token, _findings(corpus, 200 * clients, rng), clients)
    rate = _post_all(server, token, _findings(corpus, count, rng), clients)
    print(f"  {buckets:>7} buckets: {rate:8.0f} findings/s over {count} findings")
    return rate


_IDENTIFIER = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]{2,})(?=\(|\s*$|::h[0-9a-f]{16})", re.MULTILINE)


def _other_bug(trace: str, k: int) -> str:
    """The same kind of crash in differently named code: another bug, as far
    as any signature can tell."""
    return _IDENTIFIER.sub(lambda m: f"{m.group(1)}_b{k}", trace)


def _bucketing_ratio(corpus, crashes: int, stored: int) -> tuple[float, float | None]:
    """Seconds to bucket one new crash with ``stored`` buckets, for both systems.

    Both get the same buckets, made from the corpus's real traces with
    their functions renamed (so each is a distinct bug), and the same new
    crashes, taken evenly across every format of the corpus. FuzzManager's
    figure is None where it is not installed (``make bench-deps``): the
    quick mode of ``make test`` runs without it.
    """
    from django.db import connection
    from django.utils import timezone

    from crashes import signatures
    from triage.ingest import buckets_by_signature
    from triage.models import Bucket

    try:
        from FTB.ProgramConfiguration import ProgramConfiguration
        from FTB.Signatures.CrashInfo import CrashInfo
    except ImportError:
        ProgramConfiguration = CrashInfo = None
    config = ProgramConfiguration("target", "x86-64", "linux") if ProgramConfiguration else None
    _seed_buckets(0)
    now = timezone.now()
    rows, fm_signatures = {}, []
    k = 0
    fm_wanted = stored if config else 0
    while len(rows) < stored or len(fm_signatures) < fm_wanted:
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
        if len(fm_signatures) < fm_wanted:
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
    if config is None:
        return fuzzweb, None

    started = time.perf_counter()
    for trace in new:
        crash = CrashInfo.fromRawCrashData([], trace.splitlines(), config)
        for signature in fm_signatures:
            if signature.matches(crash):
                break
    fuzzmanager = (time.perf_counter() - started) / len(new)
    return fuzzweb, fuzzmanager


def _hostile_request(base: str, token: str, rank: bool = True) -> float:
    """Slowest answer, in ms, to one POST of each of the worst 256 KiB traces of bench/parse_worst.py.

    Without ``rank`` (quick mode), three of them: timing them all to find the worst takes seconds.
    """
    sys.path.insert(0, str(ROOT / "bench"))
    from parse_worst import SIZE, shapes, time_one

    cases = shapes(SIZE)
    worst = sorted(cases, key=lambda name: time_one(cases[name], runs=1), reverse=True)[:3] if rank else list(cases)[:3]
    slowest = 0.0
    for name in worst:
        body = json.dumps({"kind": "crash", "target": "hostile", "trace": cases[name]}).encode()
        request = urllib.request.Request(
            base + "api/v1/findings",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        started = time.perf_counter()
        with urllib.request.urlopen(request, timeout=300) as response:  # noqa: S310 - our own server
            response.read()
        slowest = max(slowest, (time.perf_counter() - started) * 1000)
    print(f"hostile 256 KiB traces (the 3 slowest to parse), one request each: slowest {slowest:.0f} ms")
    return slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer findings; finishes in under a minute")
    options = parser.parse_args()
    count = 1500 if options.quick else 20000
    crashes = 15 if options.quick else 60
    rng = random.Random(1)

    url = _database_url()
    _recreate_database(url)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "fuzzweb.settings"}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env, check=True)
    _setup_django(url)
    from django.contrib.auth import get_user_model

    from fuzzweb.models import Scope
    from fuzzweb.roles import TRIAGER_GROUP, role_set
    from fuzzweb.tokens import api_token_create

    # Ingesting is a change: the token's account must be a triager (a viewer's
    # posts get 403), and the token needs the ingest scope.
    user = get_user_model().objects.create_user("bench")
    role_set(user=user, role=TRIAGER_GROUP)
    token = api_token_create(user=user, name="bench", scope=Scope.INGEST)[1]

    from fuzzweb.devstack import web_command, web_worker_count

    port = _free_port()
    # The web server as `make run` starts it, with as many clients posting at once as it has workers.
    clients = web_worker_count(env)
    server = subprocess.Popen(
        web_command(host="127.0.0.1", port=str(port), web_workers=clients),
        env={**env, "LOG_LEVEL": "WARNING"},
        cwd=ROOT,
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
        print(f"bulk API, batches of {BATCH}, {clients} clients at once, gunicorn with {clients} workers, PostgreSQL:")
        # Interleaved and best of two: the machine's own noise (autovacuum,
        # other processes) is not what is being measured.
        # Quick mode (make test) only shows the bench still runs: one pass each, and 2,000 buckets
        # rather than seeding 100,000 twice.
        many = 2_000 if options.quick else 100_000
        runs = {100: [], many: []}
        for buckets in (100, many) if options.quick else (100, many, 100, many):
            runs[buckets].append(_throughput(base, token, corpus, buckets, count, rng, clients))
        small, large = max(runs[100]), max(runs[many])
        hostile_ms = _hostile_request(base, token, rank=not options.quick)
    finally:
        server.terminate()
        server.wait()

    stored = 2_000 if options.quick else 10_000
    fuzzweb, fuzzmanager = _bucketing_ratio(corpus, crashes, stored)
    if fuzzmanager is None:
        ratio = "n/a"
        print(
            f"bucketing one crash at {stored:,} buckets: fuzzweb {fuzzweb * 1e3:.3f} ms (FuzzManager: make bench-deps)"
        )
    else:
        ratio = f"{fuzzmanager / fuzzweb:.1f}"
        print(
            f"bucketing one crash at {stored:,} buckets: fuzzweb {fuzzweb * 1e3:.3f} ms, "
            f"FuzzManager {fuzzmanager * 1e3:.1f} ms ({fuzzmanager / fuzzweb:.0f}x)"
        )
    print(f"large/small throughput: {large / small:.2f}")
    print(
        f"findings_per_s={min(small, large):.0f} buckets_100={small:.0f} buckets_{many}={large:.0f} "
        f"vs_fuzzmanager_matching={ratio} hostile_request_ms={hostile_ms:.0f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
