"""Maintainers' grouping decisions as labelled pairs, and per-target thresholds learned from them.

Every merge and split is stored (BucketMove). Read as pairs of buckets:
a maintainer's merge that stands says "same bug"; a split, or an undone
fuzzy match, says "different bugs"; a merge its maintainer undid says
nothing (they changed their mind). ``bench/dedup_quality.py --decisions``
scores the current algorithm against these pairs; :func:`target_threshold_learn`
moves a target's fuzzy threshold to where it agrees with them best, only
when that beats the global threshold, and records how it was learned so
the admin can show it and an admin can revert it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from crashes import similarity
from triage.fuzzy import bucket_shape
from triage.models import Bucket, BucketMove, FuzzyThreshold

# Fewer decisions than this teach nothing reliable.
MIN_DECISIONS = 4
_CANDIDATE_THRESHOLDS = tuple(round(0.5 + 0.025 * step, 3) for step in range(19))  # 0.5 .. 0.95


@dataclass(frozen=True)
class Decision:
    """Two buckets and whether a maintainer said they are one bug."""

    first_id: int
    second_id: int
    same: bool
    why: str


def decision_pairs(*, target: str | None = None) -> list[Decision]:
    """Every standing maintainer decision (optionally only between buckets of ``target``)."""
    moves = BucketMove.objects.select_related("source", "target").order_by("pk")
    if target is not None:
        moves = moves.filter(source__target=target, target__target=target)
    pairs = []
    for move in moves:
        if move.kind == BucketMove.Kind.SPLIT:
            pairs.append(Decision(move.source_id, move.target_id, False, "split"))
        elif move.by_fuzzy_match and move.undone_at is not None:
            pairs.append(Decision(move.source_id, move.target_id, False, "fuzzy match undone"))
        elif not move.by_fuzzy_match and move.undone_at is None:
            pairs.append(Decision(move.source_id, move.target_id, True, "merged by a maintainer"))
    return pairs


def pair_score(first: Bucket, second: Bucket) -> float:
    """The fuzzy stage's similarity of two stored buckets (symmetric: the larger of both ways)."""
    one, other = bucket_shape(first), bucket_shape(second)
    return max(similarity.similarity(one, other).score, similarity.similarity(other, one).score)


def _agreement(scored: list[tuple[float, bool]], threshold: float) -> int:
    return sum(1 for score, same in scored if (score >= threshold) == same)


def target_threshold_learn(*, target: str) -> FuzzyThreshold | None:
    """Learn ``target``'s threshold from its decisions; keep it only if it agrees with more of them than the default."""
    pairs = decision_pairs(target=target)
    if len(pairs) < MIN_DECISIONS:
        return None
    buckets = Bucket.objects.in_bulk({p.first_id for p in pairs} | {p.second_id for p in pairs})
    scored = [
        (pair_score(buckets[p.first_id], buckets[p.second_id]), p.same)
        for p in pairs
        if p.first_id in buckets and p.second_id in buckets
    ]
    default = _agreement(scored, similarity.THRESHOLD)
    # Most agreement; among equals, the one closest to the global threshold.
    best = max(
        _CANDIDATE_THRESHOLDS,
        key=lambda t: (_agreement(scored, t), -abs(t - similarity.THRESHOLD)),
    )
    if _agreement(scored, best) <= default:
        return None
    row, _ = FuzzyThreshold.objects.update_or_create(
        target=target,
        defaults={
            "threshold": best,
            "active": True,
            "decisions": len(scored),
            "agreed": _agreement(scored, best),
            "agreed_by_default": default,
            "learned_at": timezone.now(),
        },
    )
    return row


def thresholds_learn() -> list[FuzzyThreshold]:
    """Learn every target's threshold that its decisions support (the daily job)."""
    targets = set(BucketMove.objects.exclude(source__target="").values_list("source__target", flat=True).distinct())
    return [row for row in (target_threshold_learn(target=t) for t in sorted(targets)) if row is not None]


def target_threshold(target: str) -> float:
    """The fuzzy threshold ``target`` uses: its learned one if active, else the global one."""
    learned = FuzzyThreshold.objects.filter(target=target, active=True).values_list("threshold", flat=True).first()
    return learned if learned is not None else similarity.THRESHOLD
