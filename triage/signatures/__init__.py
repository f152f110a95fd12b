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


def compute(*, kind: str, crash_type: str, trace_text: str, top_n: int = 3) -> Signature:
    """Signature of a finding under the current algorithm."""
    return CURRENT.compute(kind=kind, crash_type=crash_type, trace_text=trace_text, top_n=top_n)
