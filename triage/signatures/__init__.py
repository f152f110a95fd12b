"""Crash signatures: deterministic hashes of normalised crash data.

Each algorithm lives in its own module (``v1``, later ``v2`` ...) and is
never edited once findings were bucketed with it: every stored signature
records the version that made it, so a better algorithm can be added and old
findings re-bucketed by a job. ``CURRENT`` is the one new findings get.
"""

from triage.signatures import v1
from triage.signatures.model import Signature

CURRENT = v1

__all__ = ["CURRENT", "Signature", "compute"]


def compute(**fields) -> Signature:
    """Signature of a finding under the current algorithm (see ``v1.compute``)."""
    return CURRENT.compute(**fields)
