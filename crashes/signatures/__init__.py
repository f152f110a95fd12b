"""Crash signatures: deterministic hashes of normalised crash data.

Each algorithm lives in its own module and is never edited once findings
were bucketed with it: every stored signature records the version that made
it, so a better algorithm can be added and old findings re-bucketed by a
job. ``CURRENT`` is the one new findings get; ``VERSIONS`` finds the one an
old finding was made with.
"""

from crashes.model import Signature
from crashes.signatures import v2
from crashes.v1 import signature as v1

CURRENT = v2
VERSIONS = {v1.VERSION: v1, v2.VERSION: v2}

__all__ = ["CURRENT", "VERSIONS", "Signature", "compute"]


def compute(**fields) -> Signature:
    """Signature of a finding under the current algorithm (see ``v2.compute``)."""
    return CURRENT.compute(**fields)
