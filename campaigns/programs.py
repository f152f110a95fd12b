"""The programs of a differential campaign: how often each combination of outcomes came up.

For K1 against K2 this is the thesis' table of outcome pairs (both accept,
one rejects, one crashes); for C compilers, how many programs every
compiler agreed on.
"""

from __future__ import annotations

from django.db.models import Count

from campaigns.models import Campaign, ProgramRun

RECENT = 20


def _backends(outcome_sets: list[dict]) -> list[str]:
    names: list[str] = []
    for outcomes in outcome_sets:
        names += [name for name in outcomes if name not in names]
    return names


def program_outcomes(campaign: Campaign) -> dict | None:
    """Outcome combinations with their counts, most common first, and the latest programs; None if none ran."""
    combinations = list(
        ProgramRun.objects.filter(campaign=campaign)
        .values("outcomes")
        .annotate(programs=Count("id"))
        .order_by("-programs")
    )
    if not combinations:
        return None
    recent = list(
        ProgramRun.objects.filter(campaign=campaign).select_related("shard").order_by("-at", "-number")[:RECENT]
    )
    backends = _backends([row["outcomes"] for row in combinations])
    return {
        "backends": backends,
        "total": sum(row["programs"] for row in combinations),
        "combinations": [
            {
                "outcomes": [row["outcomes"].get(name, "") for name in backends],
                "all_ok": all(outcome == "ok" for outcome in row["outcomes"].values()),
                "programs": row["programs"],
            }
            for row in combinations
        ],
        "recent": [
            {
                "shard": run.shard.index,
                "number": run.number,
                "seed": run.seed,
                "generator": run.generator,
                "outcomes": [run.outcomes.get(name, "") for name in backends],
                "seconds": round(sum(run.seconds.values()), 1),
                "findings": run.findings,
            }
            for run in recent
        ],
    }
