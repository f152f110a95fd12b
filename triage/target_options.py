"""Per-target signature settings: how many frames, which extra frames to skip."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.apps import apps

DEFAULT_TOP_N = 3


@dataclass(frozen=True)
class SignatureOptions:
    top_n: int = DEFAULT_TOP_N
    ignore: tuple[re.Pattern, ...] = ()


def parse_ignore_patterns(text: str) -> tuple[re.Pattern, ...]:
    """One regular expression per line; blank lines and ``#`` comments skipped.

    Invalid expressions are rejected when the target is saved, so here they
    can be trusted.
    """
    lines = (line.strip() for line in text.splitlines())
    return tuple(re.compile(line) for line in lines if line and not line.startswith("#"))


def signature_options(target_name: str) -> SignatureOptions:
    """Options of the target called ``target_name``; defaults for unknown targets."""
    # Looked up through the app registry: triage must not import campaigns'
    # models at module level (campaigns imports triage).
    target = (
        apps.get_model("campaigns", "Target")
        .objects.filter(name=target_name)
        .only("signature_frames", "ignore_frames")
        .first()
    )
    if target is None:
        return SignatureOptions()
    return SignatureOptions(top_n=target.signature_frames, ignore=parse_ignore_patterns(target.ignore_frames))
