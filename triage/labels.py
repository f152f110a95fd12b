"""The labels every installation starts with (maintainers add more in the admin)."""

from __future__ import annotations

from triage.models import Label

DEFAULT_LABELS = [
    ("external environment", "Caused by the machine or setup, not the target"),
    ("expected exception", "The target raises this on purpose"),
    ("reproducible from the public API", "Reachable by a user of the documented interface"),
    ("invalid input", "The input breaks the target's documented preconditions"),
    ("wrong return type", "Returns something other than its annotation says"),
    ("generator bug", "The program generator made an invalid program"),
    ("performance", "Too slow or too much memory, not wrong"),
]


def labels_ensure_defaults() -> int:
    """Create the default labels that are missing; return how many were made."""
    made = 0
    for name, description in DEFAULT_LABELS:
        made += Label.objects.get_or_create(name=name, defaults={"description": description})[1]
    return made
