"""A campaign shard of a differential engine, as the engine registry calls it."""

from __future__ import annotations

from engines.differential import engine
from engines.registry import Budget, get


def run(target: dict, options: dict, budget: Budget, sink) -> engine.Summary:
    """Generate programs and compare the backends within ``budget``.

    A built-in engine (diff-c, …) takes its language's backend table; a
    user-defined target brings its description, snapshotted into the
    campaign's options at launch (``options["spec"]``), so a campaign runs
    what it was launched with even if the target is edited meanwhile.
    """
    registered = get(target["engine"])
    description = options.get("spec") if registered is not None and registered.user_defined else None
    config = engine.Config(
        language=registered.language if registered is not None else "",
        backends=list(options.get("backends", [])),
        reference=options.get("reference", ""),
        seconds=budget.seconds,
        seed=budget.seed,
        max_programs=budget.max_executions,
        resume=budget.resume,
        diversity=bool(options.get("diversity")),
        spec=description,
        target=target["name"] if description is not None else "",
    )
    if registered is not None and registered.user_defined and description is None:
        raise engine.SetupError("the campaign carries no description of the target's backends")
    return engine.run(config, sink)
