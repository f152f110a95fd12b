"""Turn submissions into stored findings, grouped into buckets by signature.

Bucketing is an index lookup on (signature, version) for the whole batch,
never a scan over buckets. A testcase seen before (same content hash) only
raises its counts. Findings arrive in batches because engines report
hundreds a second; a batch costs a handful of queries however many buckets
exist.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, models, transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone

from crashes import signatures, similarity
from triage import text
from triage.fuzzy import buckets_fuzzy_join
from triage.models import Bucket, BucketHits, Finding, FindingDay
from triage.selectors import final_bucket_id
from triage.signing import cleaned_fields, fields_signature
from triage.status import buckets_reopen_fixed
from triage.submission import Submission
from triage.target_options import signature_options

INSERT_ATTEMPTS = 3


@dataclass(frozen=True)
class Stored:
    """What happened to one submission."""

    finding: Finding
    new_bucket: bool
    duplicate: bool


@dataclass(frozen=True)
class IngestResult:
    """What a batch did, in submission order."""

    stored: list[Stored]

    @property
    def findings(self) -> list[Finding]:
        return [item.finding for item in self.stored]

    @property
    def new_buckets(self) -> list[int]:
        """Ids of the buckets this batch created, in order of first use."""
        seen: dict[int, None] = {}
        for item in self.stored:
            if item.new_bucket:
                seen.setdefault(item.finding.bucket_id, None)
        return list(seen)


def content_hash(submission: Submission) -> str:
    """Identity of a testcase: the same input to the same target is one finding."""
    digest = hashlib.sha256()
    for part in (submission.kind, submission.target, submission.function):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    if submission.testcase_bytes is not None:
        digest.update(b"bytes\0" + submission.testcase_bytes)
    elif submission.testcase:
        digest.update(b"text\0" + submission.testcase.encode("utf-8", "surrogatepass"))
    else:
        # No testcase: the crash output is all there is to tell reports apart.
        digest.update(b"trace\0" + submission.trace.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def finding_signature(finding: Finding, options) -> signatures.Signature:
    """The current algorithm's signature of a finding, from its stored (cleaned) fields.

    Ingest, re-bucketing and reproduction all sign through
    :mod:`triage.signing`, so a finding lands where ingest put it.
    """
    return fields_signature(finding, options)


def prepare_finding(
    submission: Submission, campaign_id: int | None, now, options
) -> tuple[Finding, signatures.Signature]:
    """An unsaved finding for ``submission``, and its signature."""
    fields = cleaned_fields(submission)
    row = Finding(
        campaign_id=campaign_id,
        **fields,
        content_hash=content_hash(submission),
        hit_count=max(1, submission.hits),
        created_at=now,
        last_seen=now,
    )
    signature = fields_signature(fields, options)
    row.signature, row.signature_version = signature.digest, signature.version
    row.trace_format = signature.trace_format
    return row, signature


def findings_ingest(*, submissions: Sequence[Submission], campaign_id: int | None = None) -> IngestResult:
    """Store ``submissions``, creating buckets for signatures seen for the first time."""
    if not submissions:
        return IngestResult([])
    options = {}
    for submission in submissions:
        if submission.target not in options:
            # The name as it will be stored: raw fuzzer text may hold NULs the database refuses.
            options[submission.target] = signature_options(text.clean_short(submission.target))
    for attempt in range(1, INSERT_ATTEMPTS + 1):
        now = timezone.now()
        prepared = [prepare_finding(s, campaign_id, now, options[s.target]) for s in submissions]
        try:
            result = _store(prepared, now)
            break
        except IntegrityError:
            # Another worker stored one of these testcases between our
            # lookup and our insert. Nothing of this batch was kept; the
            # next attempt finds that row and counts a hit on it instead.
            if attempt == INSERT_ATTEMPTS:
                raise
    else:
        raise AssertionError("unreachable")
    # After the batch committed: a merge takes its own locks, in key order.
    joined = buckets_fuzzy_join(bucket_ids=result.new_buckets)
    if not joined:
        return result
    stored = []
    for item in result.stored:
        if item.finding.bucket_id in joined:
            item.finding.bucket_id = joined[item.finding.bucket_id]
            item = Stored(item.finding, new_bucket=False, duplicate=item.duplicate)
        stored.append(item)
    return IngestResult(stored)


def _store(prepared: list[tuple[Finding, signatures.Signature]], now) -> IngestResult:
    with transaction.atomic():
        existing = {
            f.content_hash: f
            for f in Finding.objects.filter(content_hash__in={row.content_hash for row, _ in prepared}).select_related(
                "bucket"
            )
        }
        fresh = [(row, sig) for row, sig in prepared if row.content_hash not in existing]
        # A new bucket is its first finding's (its shape, its target), as if the batch had come one by one.
        by_signature: dict[tuple[str, int], signatures.Signature] = {}
        targets: dict[tuple[str, int], str] = {}
        for row, sig in fresh:
            by_signature.setdefault((sig.digest, sig.version), sig)
            targets.setdefault((sig.digest, sig.version), row.target)
        buckets = _buckets_for(by_signature, now, targets)
        new_bucket_ids = {pk for pk, hits in buckets.values() if hits == 0}

        # One row per distinct testcase; repeats inside the batch count as hits.
        unique_rows: dict[str, Finding] = {}
        repeats: dict[str, int] = defaultdict(int)
        for row, sig in fresh:
            if row.content_hash in unique_rows:
                repeats[row.content_hash] += row.hit_count
                continue
            row.bucket_id = buckets[(sig.digest, sig.version)][0]
            unique_rows[row.content_hash] = row
        for row in unique_rows.values():
            row.hit_count += repeats.get(row.content_hash, 0)
        created = _insert_findings(list(unique_rows.values()))
        by_hash = {row.content_hash: row for row in created}

        old_hits: dict[str, int] = defaultdict(int)
        for row, _ in prepared:
            if row.content_hash in existing:
                old_hits[row.content_hash] += row.hit_count
        if old_hits:
            increments = [When(pk=existing[content].pk, then=Value(count)) for content, count in old_hits.items()]
            Finding.objects.filter(pk__in=[existing[content].pk for content in old_hits]).update(
                hit_count=F("hit_count") + Case(*increments, output_field=models.PositiveIntegerField()),
                last_seen=now,
            )
            _restore_expired(existing, prepared)

        per_bucket = _count_bucket_hits(created, existing, old_hits, now)
        _count_daily_hits(per_bucket, created, now)
        _reopen_regressions(per_bucket, created, existing, prepared)

    stored = []
    seen_in_batch: set[str] = set()
    for row, _ in prepared:
        if row.content_hash in existing:
            stored.append(Stored(existing[row.content_hash], new_bucket=False, duplicate=True))
            continue
        finding = by_hash[row.content_hash]
        duplicate = row.content_hash in seen_in_batch
        seen_in_batch.add(row.content_hash)
        # Only the first finding of a new bucket made it new.
        new_bucket = finding.bucket_id in new_bucket_ids
        new_bucket_ids.discard(finding.bucket_id)
        stored.append(Stored(finding, new_bucket=new_bucket, duplicate=duplicate))
    return IngestResult(stored)


def _restore_expired(existing: dict[str, Finding], prepared: list[tuple[Finding, signatures.Signature]]) -> None:
    """A testcase retention emptied came back: keep it again (a fixed bucket's hit is a regression's evidence)."""
    restored = set()
    for row, _ in prepared:
        old = existing.get(row.content_hash)
        if old is None or old.expired_at is None or old.pk in restored:
            continue
        restored.add(old.pk)
        Finding.objects.filter(pk=old.pk).update(
            testcase=row.testcase,
            testcase_bytes=row.testcase_bytes,
            trace=row.trace,
            backends=row.backends,
            reproducer=row.reproducer,
            expired_at=None,
        )


def _insert_findings(rows: list[Finding]) -> list[Finding]:
    """Insert new findings and give them their primary keys.

    On PostgreSQL this is COPY with keys drawn from the sequence first: a
    500-row INSERT has 13,000 parameters, and building that statement costs
    more than storing the rows. Elsewhere (the SQLite default of `make run`)
    bulk_create is fast enough.
    """
    if not rows or connection.vendor != "postgresql":
        return Finding.objects.bulk_create(rows)
    table = Finding._meta.db_table
    fields = [f for f in Finding._meta.concrete_fields]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, len(rows)]
        )
        for row, (pk,) in zip(rows, cursor.fetchall(), strict=True):
            row.pk = pk
        # The raw psycopg cursor: Django's wrapper has no COPY. Its errors are
        # translated as Django's own would be (UniqueViolation -> IntegrityError).
        copy_sql = f"COPY {connection.ops.quote_name(table)} ({columns}) FROM STDIN"
        with connection.wrap_database_errors, cursor.cursor.copy(copy_sql) as copy:
            for row in rows:
                copy.write_row([_copy_value(f, getattr(row, f.attname)) for f in fields])
    for row in rows:
        row._state.adding = False
    return rows


# Values psycopg writes exactly as Django would prepare them (Django's preparation
# of these is the identity on PostgreSQL); the rest (JSON, choices' enums) go
# through the field. A 500-row batch has 15,000 values: preparing each through its
# field was half of what COPY cost this process.
_PLAIN_TYPES = frozenset({str, int, bool, type(None), bytes})


def _copy_value(field, value):
    if type(value) in _PLAIN_TYPES or (type(value) is datetime and value.tzinfo is not None):
        return value
    return field.get_db_prep_save(value, connection)


def buckets_by_signature(digests: list[str]) -> dict[tuple[str, int], tuple[int, int]]:
    """(signature, version) -> (bucket id, hit count), by the unique index.

    A bucket marked duplicate hands its hits to the bucket it duplicates
    (followed to the end of the chain), with that bucket's hit count.
    Plain SQL on purpose: this runs for every batch, and building the same
    query through the ORM costs several times the index lookup itself.
    """
    if not digests:
        return {}
    placeholders = ", ".join(["%s"] * len(digests))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT signature, signature_version, id, hit_count, duplicate_of_id FROM {Bucket._meta.db_table} "  # noqa: S608
            f"WHERE signature IN ({placeholders})",
            digests,
        )
        rows = cursor.fetchall()
    found = {}
    for digest, version, pk, hits, duplicate_of in rows:
        if duplicate_of is not None:
            pk = final_bucket_id(pk)
            # Never 0: a merged-into bucket is not new.
            hits = max(1, Bucket.objects.filter(pk=pk).values_list("hit_count", flat=True).first() or 0)
        found[(digest, version)] = (pk, hits)
    return found


def _buckets_for(by_signature: dict[tuple[str, int], signatures.Signature], now, targets: dict) -> dict:
    """(signature, version) -> (bucket id, hit count before this batch), creating missing buckets."""
    if not by_signature:
        return {}
    found = buckets_by_signature(sorted({digest for digest, _ in by_signature}))
    found = {key: value for key, value in found.items() if key in by_signature}
    missing = [key for key in by_signature if key not in found]
    if missing:
        # ignore_conflicts: another worker may create the same bucket between
        # our select and insert; the unique constraint settles it, and the
        # re-select below picks up whichever row won.
        Bucket.objects.bulk_create(
            [bucket_from_signature(by_signature[key], now, targets.get(key, "")) for key in missing],
            ignore_conflicts=True,
        )
        created = buckets_by_signature(sorted({digest for digest, _ in missing}))
        found.update({key: value for key, value in created.items() if key in by_signature})
    return found


def bucket_from_signature(signature: signatures.Signature, now, target: str = "") -> Bucket:
    """An unsaved bucket for ``signature`` of a finding of ``target``, first seen ``now``."""
    shape = similarity.shape_of(signature)
    return Bucket(
        target=text.clean_short(target),
        fuzzy_frames=[text.clean_short(frame) for frame in shape.frames],
        fuzzy_keys=[text.clean_short(key) for key in shape.lookup_keys()],
        fuzzy_crash_type=text.clean_short(shape.crash_type),
        signature=signature.digest,
        signature_version=signature.version,
        kind=signature.kind,
        crash_type=text.clean_short(signature.crash_type),
        title=text.clean_short(signature.title),
        key_frames=[text.clean_short(frame) for frame in signature.frames],
        method=signature.method,
        trace_format=signature.trace_format,
        first_seen=now,
        last_seen=now,
    )


def _count_bucket_hits(created: list[Finding], existing: dict, old_hits: dict, now) -> dict[int, int]:
    """Add the batch's hits to its buckets and offer each a smaller representative.

    One UPDATE for all the batch's buckets, in plain SQL: a batch of real
    findings touches hundreds of buckets, and an ORM CASE expression per
    bucket cost more to build than the update itself.
    """
    per_bucket: dict[int, int] = defaultdict(int)
    smallest: dict[int, Finding] = {}
    for row in created:
        per_bucket[row.bucket_id] += row.hit_count
        if row.bucket_id not in smallest or row.testcase_size < smallest[row.bucket_id].testcase_size:
            smallest[row.bucket_id] = row
    for content, count in old_hits.items():
        per_bucket[existing[content].bucket_id] += count
    if not per_bucket:
        return per_bucket
    ids = sorted(per_bucket)
    table = Bucket._meta.db_table
    values, params = [], []
    for pk in ids:
        offer = smallest.get(pk)
        values.append("(CAST(%s AS BIGINT), CAST(%s AS BIGINT), CAST(%s AS BIGINT), CAST(%s AS BIGINT))")
        params += [pk, per_bucket[pk], offer.pk if offer else None, offer.testcase_size if offer else None]
    # The representative is the smallest testcase seen, the one a maintainer
    # wants to read, until one is verified (triage.reduction): from then on
    # only a smaller verified reproducer replaces it.
    smaller = (
        "v.rep_id IS NOT NULL AND NOT b.representative_verified "
        "AND (b.representative_size IS NULL OR b.representative_size > v.rep_size)"
    )
    with connection.cursor() as cursor:
        if connection.features.has_select_for_update:
            # Lock in primary-key order, so that two workers updating the
            # same buckets cannot deadlock.
            placeholders = ", ".join(["%s"] * len(ids))
            cursor.execute(f"SELECT id FROM {table} WHERE id IN ({placeholders}) ORDER BY id FOR UPDATE", ids)  # noqa: S608
        cursor.execute(
            f"WITH v(id, hits, rep_id, rep_size) AS (VALUES {', '.join(values)}) "  # noqa: S608
            f"UPDATE {table} AS b SET hit_count = b.hit_count + v.hits, last_seen = %s, "
            f"representative_id = CASE WHEN {smaller} THEN v.rep_id ELSE b.representative_id END, "
            f"representative_size = CASE WHEN {smaller} THEN v.rep_size ELSE b.representative_size END "
            f"FROM v WHERE b.id = v.id",
            [*params, now],
        )
    return per_bucket


def _count_daily_hits(per_bucket: dict[int, int], created: list[Finding], now) -> None:
    """Add the batch to each bucket's hits of the day (the overview's charts), one upsert for all."""
    if not per_bucket:
        return
    fresh: dict[int, int] = defaultdict(int)
    for row in created:
        fresh[row.bucket_id] += 1
    day = timezone.localdate(now)
    table = BucketHits._meta.db_table
    values = ", ".join(["(%s, %s, %s, %s)"] * len(per_bucket))
    params = []
    for pk in sorted(per_bucket):
        params += [pk, day, per_bucket[pk], fresh.get(pk, 0)]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (bucket_id, day, hits, new_findings) VALUES {values} "  # noqa: S608
            f"ON CONFLICT (bucket_id, day) DO UPDATE SET hits = {table}.hits + excluded.hits, "
            f"new_findings = {table}.new_findings + excluded.new_findings",
            params,
        )
    _count_finding_days(created, day)


def _count_finding_days(created: list[Finding], day) -> None:
    """New findings per day, kind and engine (hits of stored testcases are in BucketHits)."""
    per_group: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for row in created:
        counts = per_group[(row.kind, row.engine[:64])]
        counts[0] += 1
        counts[1] += row.hit_count
    if not per_group:
        return
    table = FindingDay._meta.db_table
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(per_group))
    params = []
    for (kind, engine), (findings, hits) in sorted(per_group.items()):
        params += [day, kind, engine, findings, hits]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (day, kind, engine, findings, hits) VALUES {values} "  # noqa: S608
            f"ON CONFLICT (day, kind, engine) DO UPDATE SET findings = {table}.findings + excluded.findings, "
            f"hits = {table}.hits + excluded.hits",
            params,
        )


def _reopen_regressions(per_bucket: dict[int, int], created: list[Finding], existing: dict, prepared) -> None:
    """A hit on a fixed bucket reopens it as a regression, naming the versions that hit it."""
    if not per_bucket:
        return
    versions: dict[int, dict] = {}
    for row in created:
        versions[row.bucket_id] = row.versions
    for row, _ in prepared:
        if row.content_hash in existing:
            versions.setdefault(existing[row.content_hash].bucket_id, row.versions)
    buckets_reopen_fixed(bucket_ids=sorted(per_bucket), versions=versions)


def finding_ingest(*, submission: Submission, campaign_id: int | None = None) -> Finding:
    """Store one submission; see :func:`findings_ingest`."""
    return findings_ingest(submissions=[submission], campaign_id=campaign_id).findings[0]
