"""The programs of a differential campaign: how often each combination of outcomes came up.

For K1 against K2 this is the thesis' table of outcome pairs (both accept,
one rejects, one crashes); for C compilers, how many programs every
compiler agreed on.
"""

from __future__ import annotations

from django.db.models import Count

from campaigns.models import Campaign, ProgramRun
from triage.models import Finding
from triage.visibility import hidden_by_bucket

RECENT = 20


def _backends(outcome_sets: list[dict]) -> list[str]:
    names: list[str] = []
    for outcomes in outcome_sets:
        names += [name for name in outcomes if name not in names]
    return names


def _programs(campaign: Campaign, user):
    """The campaign's programs, without those whose findings went to buckets ``user`` may not see.

    Such a program's seed and generator command regenerate the restricted
    bucket's testcase, and its outcomes are that bucket's: the program is
    left out of the list and of the tally alike. A finding names its program
    by the seed in its metadata (engines.differential); findings of any
    campaign count, since a program found again is stored once, under the
    campaign that found it first.
    """
    programs = ProgramRun.objects.filter(campaign=campaign)
    with_seed = Finding.objects.filter(metadata__has_key="seed")
    seeds = {
        seed for seed in hidden_by_bucket(user, with_seed).values_list("metadata__seed", flat=True) if type(seed) is int
    }
    return programs.exclude(seed__in=seeds) if seeds else programs


def program_outcomes(campaign: Campaign, *, user) -> dict | None:
    """Outcome combinations with their counts, most common first, and the latest programs; None if none ran.

    Only the programs ``user`` may see (see :func:`_programs`).
    """
    programs = _programs(campaign, user)
    combinations = list(programs.values("outcomes").annotate(programs=Count("id")).order_by("-programs"))
    if not combinations:
        return None
    recent = list(programs.select_related("shard").order_by("-at", "-number")[:RECENT])
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
