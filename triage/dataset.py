"""A year of findings, made up: for measuring the pages at scale (``manage.py generate_dataset``).

Shaped like real campaigns: a few buckets take most hits (a Zipf-like
spread), most findings are crashes with stack traces, some are
miscompilations with per-backend outputs, statuses carry their history.
Findings go in with PostgreSQL's COPY in batches, never one INSERT each;
the full-text index is rebuilt once at the end, which is several times
faster than updating it row by row.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib
import itertools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection, transaction
from django.utils import timezone

from campaigns.models import Campaign, CampaignStatus, Target
from crashes import signatures
from triage.models import Bucket, BucketEvent, Kind, Method, Priority, Status

BATCH = 20_000
SECURITY_GROUP = "security"
RESTRICTED_SHARE = 0.01
TARGETS = [("dataset: libpng", "diff-c"), ("dataset: cpython", "diff-python"), ("dataset: textkit", "pyfunc")]
CRASH_TYPES = ["SIGSEGV", "heap-buffer-overflow", "KeyError", "IndexError", "ZeroDivisionError", "AssertionError"]
MODULES = ["png", "zlib", "inflate", "parser", "lexer", "codegen", "units", "decoder", "encoder", "io"]
STATUS_WEIGHTS = [
    (Status.NEW, 50),
    (Status.CONFIRMED, 15),
    (Status.REPORTED, 10),
    (Status.FIXED, 15),
    (Status.WONTFIX, 4),
    (Status.EXPECTED, 3),
    (Status.INVALID, 3),
]
KIND_WEIGHTS = [(Kind.CRASH, 75), (Kind.MISCOMPILATION, 15), (Kind.TIMEOUT, 7), (Kind.OOM, 3)]
FINDING_COLUMNS = [
    "bucket_id", "campaign_id", "kind", "target", "engine", "function", "stage", "crash_type", "message", "trace",
    "trace_format", "testcase", "testcase_language", "testcase_size", "content_hash", "reproducer", "reference",
    "backends", "versions", "metadata", "signature", "signature_version", "hit_count", "created_at", "last_seen",
    "origin", "replay_allowed",
]  # fmt: skip


@dataclass
class DatasetSummary:
    campaigns: int = 0
    buckets: int = 0
    findings: int = 0
    events: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class _Bucket:
    pk: int
    kind: str
    crash_type: str
    function: str
    frames: tuple[str, ...]
    signature: str
    first_seen: datetime.datetime
    last_seen: datetime.datetime
    target: str
    engine: str


def _weighted(rng: random.Random, pairs: list[tuple[str, int]]) -> str:
    return rng.choices([value for value, _ in pairs], weights=[weight for _, weight in pairs])[0]


def _frames(rng: random.Random) -> tuple[str, ...]:
    return tuple(f"{rng.choice(MODULES)}.c:{rng.choice(MODULES)}_{rng.randrange(400)}" for _ in range(3))


def _trace(bucket: _Bucket, rng: random.Random) -> str:
    lines = [f"==1234==ERROR: AddressSanitizer: {bucket.crash_type} on address 0x{rng.randrange(2**47):012x}"]
    for depth, frame in enumerate(bucket.frames + ("main.c:main",)):
        path, _, function = frame.partition(":")
        lines.append(
            f"    #{depth} 0x{rng.randrange(2**40):010x} in {function} /src/lib/{path}:{rng.randrange(1, 3000)}:7"
        )
    lines.append(f"SUMMARY: AddressSanitizer: {bucket.crash_type} /src/lib/{bucket.frames[0].split(':')[0]}")
    return "\n".join(lines) + "\n"


def _program(rng: random.Random, index: int) -> str:
    body = "\n".join(
        f"    int v{i} = ({rng.randrange(1000)} * x) ^ {rng.randrange(1 << 16)};" for i in range(rng.randrange(3, 12))
    )
    main = f"int main(void) {{ return f{index}(3); }}\n"
    return f"#include <stdio.h>\nstatic int f{index}(int x) {{\n{body}\n    return x;\n}}\n{main}"


def dataset_generate(
    *,
    findings: int = 1_000_000,
    buckets: int = 50_000,
    campaigns: int = 500,
    seed: int = 1,
    progress: Callable[[str], None] = lambda line: None,
) -> DatasetSummary:
    """Add the dataset to the database (PostgreSQL only: it loads with COPY)."""
    if connection.vendor != "postgresql":
        raise RuntimeError("the dataset loads with PostgreSQL's COPY; set DATABASE_URL to a PostgreSQL database")
    started = timezone.now()
    rng = random.Random(seed)
    now = timezone.now().replace(microsecond=0)
    year_ago = now - datetime.timedelta(days=365)
    summary = DatasetSummary()

    targets = [Target.objects.get_or_create(name=name, defaults={"engine": engine})[0] for name, engine in TARGETS]
    campaign_rows = []
    for index in range(campaigns):
        target = targets[index % len(targets)]
        created = year_ago + datetime.timedelta(seconds=rng.randrange(365 * 86400))
        campaign_rows.append(
            Campaign(
                target=target,
                engine=target.engine,
                seed=rng.randrange(2**31),
                time_budget_seconds=3600,
                shard_count=rng.choice([1, 2, 4]),
                status=CampaignStatus.FINISHED,
                started_at=created,
                finished_at=created + datetime.timedelta(hours=1),
                executions=rng.randrange(10_000, 5_000_000),
            )
        )
    made = Campaign.objects.bulk_create(campaign_rows, batch_size=BATCH)
    campaign_ids = [c.pk for c in made]
    summary.campaigns = len(made)
    progress(f"{len(made)} campaigns")

    version = signatures.CURRENT.VERSION
    # A few security-sensitive buckets, as a real team has: the pages filter them for everyone else.
    security = Group.objects.get_or_create(name=SECURITY_GROUP)[0]
    bucket_specs: list[_Bucket] = []
    for start in range(0, buckets, BATCH):
        rows = []
        for index in range(start, min(buckets, start + BATCH)):
            kind = _weighted(rng, KIND_WEIGHTS)
            crash_type = "" if kind in (Kind.TIMEOUT, Kind.OOM) else rng.choice(CRASH_TYPES)
            frames = _frames(rng)
            function = frames[0].split(":")[1]
            first = year_ago + datetime.timedelta(seconds=rng.randrange(365 * 86400))
            last = min(now, first + datetime.timedelta(seconds=int(rng.expovariate(1 / (20 * 86400)))))
            status = _weighted(rng, STATUS_WEIGHTS)
            reported = first + (last - first) / 3 if status in (Status.REPORTED, Status.FIXED) else None
            rows.append(
                Bucket(
                    signature=hashlib.sha256(f"dataset:{seed}:{index}".encode()).hexdigest(),
                    signature_version=version,
                    kind=kind,
                    crash_type=crash_type,
                    title=f"{crash_type or kind} in {function}",
                    key_frames=list(frames),
                    method=Method.DIFFERENTIAL if kind == Kind.MISCOMPILATION else Method.STACK,
                    trace_format="asan",
                    status=status,
                    priority=rng.choice(Priority.values),
                    first_seen=first,
                    last_seen=last,
                    reported_at=reported,
                    fixed_at=(reported + (last - reported) / 2) if status == Status.FIXED and reported else None,
                    muted=rng.random() < 0.01,
                    restricted_to=security if rng.random() < RESTRICTED_SHARE else None,
                )
            )
        for bucket in Bucket.objects.bulk_create(rows, batch_size=BATCH):
            target = targets[bucket.pk % len(targets)]
            bucket_specs.append(
                _Bucket(
                    bucket.pk,
                    bucket.kind,
                    bucket.crash_type,
                    bucket.key_frames[0].split(":")[1],
                    tuple(bucket.key_frames),
                    bucket.signature,
                    bucket.first_seen,
                    bucket.last_seen,
                    target.name,
                    target.engine,
                )
            )
    summary.buckets = len(bucket_specs)
    progress(f"{len(bucket_specs)} buckets")

    summary.findings = _copy_findings(bucket_specs, campaign_ids, findings, rng, seed, progress)
    summary.events = _status_history(bucket_specs)
    progress(f"{summary.events} history entries")
    _derive_counts([b.pk for b in bucket_specs])
    progress("counts, representatives and daily hits derived; analysing")
    with connection.cursor() as cursor:
        if connection.in_atomic_block:  # tests: VACUUM cannot run in a transaction
            cursor.execute("ANALYZE triage_finding; ANALYZE triage_bucket; ANALYZE triage_buckethits")
        else:
            # The derived counts rewrote every bucket row: reclaim the dead ones and set the
            # visibility map, so counts can be answered from indexes alone.
            for table in ("triage_finding", "triage_bucket", "triage_buckethits", "triage_findingday"):
                cursor.execute(f"VACUUM ANALYZE {table}")
    summary.seconds = (timezone.now() - started).total_seconds()
    return summary


def _copy_findings(specs, campaign_ids, count, rng, seed, progress) -> int:
    # Zipf-like: bucket k gets a share proportional to 1 / (k + 1) ** 0.9.
    cumulative = list(itertools.accumulate(1 / (k + 1) ** 0.9 for k in range(len(specs))))
    table = "triage_finding"
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS finding_text_search")
    written = 0
    for start in range(0, count, BATCH):
        size = min(BATCH, count - start)
        chosen = rng.choices(specs, cum_weights=cumulative, k=size)
        with transaction.atomic(), connection.cursor() as cursor:
            copy_sql = f"COPY {table} ({', '.join(FINDING_COLUMNS)}) FROM STDIN"
            with cursor.cursor.copy(copy_sql) as copy:
                for offset, bucket in enumerate(chosen):
                    copy.write_row(_finding_row(bucket, start + offset, campaign_ids, rng, seed))
        written += size
        if written % 100_000 < BATCH:
            progress(f"{written} findings")
    with connection.cursor() as cursor:
        # Inside an outer transaction (tests), the findings' deferred foreign-key
        # checks must run before PostgreSQL lets the table be indexed.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(_search_index_sql())
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    progress("full-text index rebuilt")
    return written


def _search_index_sql() -> str:
    # The index's SQL lives with the migration that made it; one copy only.
    return importlib.import_module("triage.migrations.0004_labels_roles_search").SEARCH_INDEX


def _finding_row(bucket: _Bucket, index: int, campaign_ids: list[int], rng: random.Random, seed: int) -> tuple:
    span = max(1, int((bucket.last_seen - bucket.first_seen).total_seconds()))
    created = bucket.first_seen + datetime.timedelta(seconds=rng.randrange(span))
    program = _program(rng, index)
    miscompiled = bucket.kind == Kind.MISCOMPILATION
    backends = (
        [
            {"name": "gcc-O0", "outcome": "ok", "output": "checksum = 1\n", "exit_code": 0},
            {"name": "clang-O2", "outcome": "wrong_output", "output": "checksum = 2\n", "exit_code": 0},
        ]
        if miscompiled
        else []
    )
    return (
        bucket.pk,
        rng.choice(campaign_ids),
        bucket.kind,
        bucket.target,
        bucket.engine,
        bucket.function,
        "run",
        bucket.crash_type,
        f"{bucket.crash_type or bucket.kind} at 0x{rng.randrange(2**40):x}",
        "" if miscompiled else _trace(bucket, rng),
        "" if miscompiled else "asan",
        program,
        "c",
        len(program),
        hashlib.sha256(f"dataset:{seed}:finding:{index}".encode()).hexdigest(),
        f"gcc -O2 -fsanitize=address program.c && ./a.out  # {index}",
        "gcc-O0" if miscompiled else "",
        json.dumps(backends),
        json.dumps({"gcc": "12.2.0", "clang": "14.0.6"}),
        json.dumps({"seed": index}),
        bucket.signature,
        signatures.CURRENT.VERSION,
        1 + int(rng.expovariate(0.5)),
        created,
        created,
        "fuzzer",
        True,  # every made-up finding comes from a campaign of this installation
    )


def _status_history(specs) -> int:
    """The events that led each bucket to its status, by a made-up maintainer."""
    user = get_user_model().objects.filter(is_superuser=True).first()
    statuses = dict(Bucket.objects.filter(pk__in=[b.pk for b in specs]).values_list("pk", "status"))
    paths = {
        Status.CONFIRMED: [Status.CONFIRMED],
        Status.REPORTED: [Status.CONFIRMED, Status.REPORTED],
        Status.FIXED: [Status.CONFIRMED, Status.REPORTED, Status.FIXED],
    }
    rows = []
    for bucket in specs:
        previous = Status.NEW
        for status in paths.get(
            statuses[bucket.pk], [statuses[bucket.pk]] if statuses[bucket.pk] != Status.NEW else []
        ):
            rows.append(
                BucketEvent(bucket_id=bucket.pk, user=user, field="status", old_value=previous, new_value=status)
            )
            previous = status
    BucketEvent.objects.bulk_create(rows, batch_size=BATCH)
    return len(rows)


def _derive_counts(bucket_ids: list[int]) -> None:
    """Hit counts, smallest representatives and hits per day, from the findings, in three statements."""
    low, high = min(bucket_ids), max(bucket_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE triage_bucket b SET hit_count = s.hits FROM (SELECT bucket_id, SUM(hit_count) AS hits "
            "FROM triage_finding WHERE bucket_id BETWEEN %s AND %s GROUP BY bucket_id) s WHERE b.id = s.bucket_id",
            [low, high],
        )
        cursor.execute(
            "UPDATE triage_bucket b SET representative_id = s.id, representative_size = s.testcase_size FROM "
            "(SELECT DISTINCT ON (bucket_id) bucket_id, id, testcase_size FROM triage_finding "
            "WHERE bucket_id BETWEEN %s AND %s ORDER BY bucket_id, testcase_size, id) s WHERE b.id = s.bucket_id",
            [low, high],
        )
        cursor.execute(
            "INSERT INTO triage_buckethits (bucket_id, day, hits, new_findings) "
            "SELECT bucket_id, (created_at AT TIME ZONE 'UTC')::date, SUM(hit_count), COUNT(*) FROM triage_finding "
            "WHERE bucket_id BETWEEN %s AND %s GROUP BY 1, 2 "
            "ON CONFLICT (bucket_id, day) DO UPDATE SET hits = excluded.hits, new_findings = excluded.new_findings",
            [low, high],
        )
        cursor.execute(
            "INSERT INTO triage_findingday (day, kind, engine, findings, hits) "
            "SELECT (created_at AT TIME ZONE 'UTC')::date, kind, engine, COUNT(*), SUM(hit_count) FROM triage_finding "
            "WHERE bucket_id BETWEEN %s AND %s GROUP BY 1, 2, 3 ON CONFLICT (day, kind, engine) DO UPDATE SET "
            "findings = triage_findingday.findings + excluded.findings, hits = triage_findingday.hits + excluded.hits",
            [low, high],
        )
