"""Crash signatures: deterministic hashes of normalised crash data.

A version's digests never change: every stored signature records the
version that made it, so a better algorithm can be added and old findings
re-bucketed by a job. v1 is a frozen copy of its code (``crashes/v1``,
``tests/crashes/test_v1_frozen.py``). The current rules (``v2``, first
released as version 2) are held by the digests recorded of every real
report (``tests/crashes/test_current_frozen.py``): a change that moves one
takes the next version number. ``CURRENT`` is the one new findings get;
``VERSIONS`` finds the code of a version still computable.
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
