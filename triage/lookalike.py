"""Buckets that look like the same bug: likely duplicates, and reports already filed for it.

The score is a pure function of what signatures keep (kind, crash type,
normalised frames), so it can say why two buckets look alike. Candidates
come from the database by shared frames, never a scan of every bucket.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Q

from triage.models import Bucket, Status
from triage.visibility import visible_buckets

CANDIDATES = 300
THRESHOLD = 0.3


@dataclass(frozen=True)
class Shape:
    kind: str
    crash_type: str
    frames: tuple[str, ...]


@dataclass(frozen=True)
class Likeness:
    score: float
    reasons: list[str] = field(default_factory=list)


def likeness(a: Shape, b: Shape) -> Likeness:
    """How alike two buckets look (0 to 1), and the reasons, strongest first.

    The crash site (innermost frame) weighs most: two traces that fail in the
    same place are usually one bug reached two ways. Shared frames beyond it
    and the same crash type add to that.
    """
    if a.kind != b.kind:
        return Likeness(0.0)
    score, reasons = 0.0, []
    if a.frames and b.frames and a.frames[0] == b.frames[0]:
        score += 0.5
        reasons.append(f"same crash site {a.frames[0]}")
    shared = [frame for frame in a.frames if frame in set(b.frames)]
    union = len(set(a.frames) | set(b.frames))
    if shared and union:
        score += 0.3 * len(set(shared)) / union
        reasons.append(f"shares {len(set(shared))} of {union} frames ({', '.join(shared[:3])})")
    if a.crash_type and a.crash_type == b.crash_type:
        score += 0.2
        reasons.append(f"same crash type {a.crash_type}")
    return Likeness(round(min(score, 1.0), 3), reasons)


def _shape(bucket: Bucket) -> Shape:
    return Shape(bucket.kind, bucket.crash_type, tuple(bucket.key_frames or ()))


def bucket_lookalikes(
    bucket: Bucket, *, user, limit: int = 5, reported_only: bool = False
) -> list[tuple[Bucket, Likeness]]:
    """The buckets most like ``bucket`` that ``user`` may see, best first, above :data:`THRESHOLD`."""
    alike, reported = bucket_lookalike_sets(bucket, user=user, limit=limit)
    return reported if reported_only else alike


def _reported(other: Bucket) -> bool:
    return other.status in (Status.REPORTED, Status.FIXED) or bool(other.issue_url)


def bucket_lookalike_sets(bucket: Bucket, *, user, limit: int = 5) -> tuple[list, list]:
    """The likely duplicates, and those of them already reported (the bucket page's two lists), in one query."""
    scored = _scored(bucket, user)
    return scored[:limit], [pair for pair in scored if _reported(pair[0])][:limit]


def _scored(bucket: Bucket, user) -> list[tuple[Bucket, Likeness]]:
    # Not buckets already marked duplicate: their findings went elsewhere, their target is the one to show.
    candidates = visible_buckets(user).filter(kind=bucket.kind).exclude(pk=bucket.pk).exclude(status=Status.DUPLICATE)
    frames = list(bucket.key_frames or [])[:3]
    if connection.vendor == "postgresql" and frames:
        # JSONB containment: buckets holding one of the top frames, by the frames themselves.
        overlap = Q()
        for frame in frames:
            overlap |= Q(key_frames__contains=[frame])
        # Not "or the same crash type": that alone scores 0.2, under THRESHOLD, and
        # thousands of buckets share a crash type; they would only crowd out those sharing frames.
        candidates = candidates.filter(overlap)
    elif bucket.crash_type:
        candidates = candidates.filter(crash_type=bucket.crash_type)
    candidates = candidates.only("pk", "title", "kind", "crash_type", "key_frames", "status", "issue_url")
    shape = _shape(bucket)
    scored = [(other, likeness(shape, _shape(other))) for other in candidates.order_by("-last_seen")[:CANDIDATES]]
    scored = [(other, like) for other, like in scored if like.score >= THRESHOLD]
    scored.sort(key=lambda pair: (-pair[1].score, -pair[0].pk))
    return scored
