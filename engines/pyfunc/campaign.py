"""A campaign shard of the function engine, as the engine registry calls it."""

from __future__ import annotations

from engines.pyfunc import engine
from engines.registry import Budget


def run(target: dict, options: dict, budget: Budget, sink) -> engine.Summary:
    """Fuzz the functions of ``target`` (its fields: module, search_path, include, …) within ``budget``."""
    config = engine.Config(
        target=target["module"],
        seconds=budget.seconds,
        seed=budget.seed,
        max_executions=budget.max_executions,
        search_path=[p for p in target.get("search_path", "").split(":") if p],
        resume=budget.resume,
        include=target.get("include", "").split(),
        exclude=target.get("exclude", "").split(),
        setup=target.get("setup_modules", "").split(),
        ignore_exceptions=target.get("ignore_exceptions", "").split(),
    )
    return engine.run(config, sink)
