"""The fuzzy stage of bucketing: a new signature may join an existing bucket it closely resembles.

Exact signatures (crashes.signatures) split one bug when two reports of it
differ in what is hashed. For each bucket a batch opened, the candidates
are the buckets of the same target, kind and trace format sharing its
crash site or a top frame (the GIN index on ``fuzzy_keys``: never a scan),
scored by :func:`crashes.similarity.similarity`. Above the threshold the new
bucket is merged into the best one as a maintainer's merge would be, but
recorded as the fuzzy stage's, with its score and matched frames: the
bucket page shows it and one click undoes it. Below it, the closest show as
likely duplicates (triage.lookalike).
"""

from __future__ import annotations

from django.db import connection

from crashes import similarity
from triage.models import Bucket, Method, Status

CANDIDATES = similarity.CANDIDATES


def bucket_shape(bucket: Bucket) -> similarity.Shape:
    """The fuzzy stage's view of a stored bucket."""
    site = next((frame[5:] for frame in bucket.key_frames or () if frame.startswith("site ")), "")
    message_key = next((key for key in bucket.fuzzy_keys or () if key.startswith("message ")), "")
    crash_type = bucket.fuzzy_crash_type
    if crash_type is None:
        # Made before the fuzzy stage's crash type was kept: a bucket keyed on a pasted line has that
        # line as its crash type, no type to compare.
        crash_type = "" if bucket.method == Method.MESSAGE and " " in bucket.crash_type else bucket.crash_type
    return similarity.Shape(
        kind=bucket.kind,
        trace_format=bucket.trace_format,
        crash_type=crash_type,
        frames=tuple(bucket.fuzzy_frames or ()),
        site=site,
        message=message_key.removeprefix("message "),
    )


# Every field bucket_shape reads: a deferred one is a query per candidate.
_SHAPE_FIELDS = (
    "pk",
    "kind",
    "method",
    "trace_format",
    "crash_type",
    "fuzzy_crash_type",
    "key_frames",
    "fuzzy_frames",
    "fuzzy_keys",
)


def _candidates(bucket: Bucket):
    """Buckets of ``bucket``'s target, kind and format sharing a lookup key with it, most recently hit first."""
    candidates = Bucket.objects.filter(
        kind=bucket.kind,
        target=bucket.target,
        duplicate_of__isnull=True,
        restricted_to__isnull=True,
        fuzzy_keys__has_any_keys=list(bucket.fuzzy_keys),
        # Older buckets only: a batch's report joins what came before it, as it would posted alone.
        pk__lt=bucket.pk,
    )
    if bucket.fuzzy_frames:
        # Frames are compared within a format; a report with none, by its message, with any.
        candidates = candidates.filter(trace_format=bucket.trace_format)
    return candidates.only(*_SHAPE_FIELDS).order_by("-last_seen", "-pk")


def buckets_fuzzy_candidates(buckets: list[Bucket], *, spare: int = 0) -> dict[int, list[Bucket]]:
    """For each of ``buckets``, its candidates (:func:`_candidates`), by index: never a scan.

    At most ``CANDIDATES + spare`` each: the caller drops the ones it has
    merged since, ``spare`` at most. On PostgreSQL, one statement for the
    whole batch (a lateral join, each side by the GIN index) and one to load
    the candidates: a batch opens dozens of buckets, and a query each cost
    more than scoring them. Elsewhere (the SQLite of ``make run``), a query each.
    """
    asked = [bucket for bucket in buckets if bucket.fuzzy_keys]
    limit = CANDIDATES + spare
    if connection.vendor != "postgresql":
        return {bucket.pk: list(_candidates(bucket)[:limit]) for bucket in asked}
    if not asked:
        return {}
    table = Bucket._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            # _candidates' conditions, per bucket of the batch (the ORM has no lateral join).
            # "other.id + 0": a bound the primary key's index cannot serve. Given the plain
            # "other.id < fresh.id", PostgreSQL ANDed the GIN index's few dozen candidates with a bitmap
            # of every older bucket, read in full for each bucket of the batch: 3.4 ms each at 100,000
            # buckets, 0.45 ms with this bound checked on the candidates alone.
            f"SELECT fresh.id, found.id FROM {table} AS fresh CROSS JOIN LATERAL ("  # noqa: S608 - the model's table
            f"  SELECT other.id, other.last_seen FROM {table} AS other"
            "   WHERE other.kind = fresh.kind AND other.target = fresh.target AND other.id + 0 < fresh.id"
            "   AND other.duplicate_of_id IS NULL AND other.restricted_to_id IS NULL"
            "   AND other.fuzzy_keys ?| ARRAY(SELECT jsonb_array_elements_text(fresh.fuzzy_keys))"
            "   AND (fresh.fuzzy_frames = '[]'::jsonb OR other.trace_format = fresh.trace_format)"
            "   ORDER BY other.last_seen DESC, other.id DESC LIMIT %s"
            ") AS found WHERE fresh.id = ANY(%s) ORDER BY fresh.id, found.last_seen DESC, found.id DESC",
            [limit, [bucket.pk for bucket in asked]],
        )
        pairs = cursor.fetchall()
    loaded = Bucket.objects.only(*_SHAPE_FIELDS).in_bulk({other for _, other in pairs})
    found: dict[int, list[Bucket]] = {bucket.pk: [] for bucket in asked}
    for fresh, other in pairs:
        found[fresh].append(loaded[other])
    return found


def buckets_fuzzy_join(*, bucket_ids: list[int]) -> dict[int, int]:
    """Merge each new bucket into the most similar existing one above the threshold; {merged: kept}."""
    from triage.decisions import target_threshold  # decisions -> here
    from triage.merge import bucket_merge  # merge -> rebucket -> ingest -> here
    from triage.workflow import TriageError

    joined: dict[int, int] = {}
    if not bucket_ids:
        return joined
    fresh = Bucket.objects.filter(
        pk__in=bucket_ids,
        method__in=(Method.STACK, Method.MESSAGE),
        status=Status.NEW,
        signature_version__gte=2,
        restricted_to__isnull=True,
    ).exclude(fuzzy_keys=[])
    thresholds: dict[str, float] = {}
    fresh = list(fresh.order_by("pk"))
    # Each is asked against the buckets older than it, the batch's own included (as if its findings had been
    # posted one by one); the ones merged meanwhile are dropped below.
    candidates_of = buckets_fuzzy_candidates(fresh, spare=min(len(fresh), CANDIDATES))
    for bucket in fresh:
        shape = bucket_shape(bucket)
        candidates = [other for other in candidates_of.get(bucket.pk, ()) if other.pk not in joined][:CANDIDATES]
        if not candidates:
            continue
        if bucket.target not in thresholds:
            thresholds[bucket.target] = target_threshold(bucket.target)
        best = similarity.best_match(
            shape, [(other.pk, bucket_shape(other)) for other in candidates], threshold=thresholds[bucket.target]
        )
        if best is None:
            continue
        target_id, match = best
        try:
            move = bucket_merge(
                source_id=bucket.pk, target_id=target_id, user=None, score=match.score, matched=match.matched
            )
        except TriageError:
            # Restricted, merged or gone since it was a candidate: the new bucket stays its own.
            continue
        joined[bucket.pk] = move.target_id
    return joined
