"""What the web app asks of the engine registry (engines.registry), in its terms."""

from __future__ import annotations

from engines import registry


def is_differential(engine: str) -> bool:
    """Its shards generate programs and compare backends (a built-in language or a user-defined target)."""
    entry = registry.get(engine)
    return entry is not None and entry.replay == registry.REPLAY_PROGRAM


def builtin_language(engine: str) -> str:
    """The language whose fixed backend table a built-in differential engine uses; "" otherwise."""
    entry = registry.get(engine)
    return entry.language if entry is not None else ""


def is_user_defined(engine: str) -> bool:
    entry = registry.get(engine)
    return entry is not None and entry.user_defined


def targets_ensure() -> list[str]:
    """Create every engine's default targets that are missing; the names of those created.

    Run at start-up (after migrate, by make run and by campaign_run), not by
    data migrations, so a new engine brings its targets with its registry entry.
    """
    from campaigns.models import Target

    created = []
    for entry in registry.engines().values():
        for fields in entry.default_targets:
            _, made = Target.objects.get_or_create(name=fields["name"], defaults={"engine": entry.name, **fields})
            if made:
                created.append(fields["name"])
    return created
