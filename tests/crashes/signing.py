"""Signing a crash text, or a real report of tests/data/dedup by its id, as the crash tests do."""

from __future__ import annotations

from functools import cache

from crashes import signatures
from crashes.model import Signature
from tests.data.record_digests import dedup_records


def sign(text: str, target: str = "t") -> Signature:
    return signatures.compute(kind="crash", trace_text=text, target=target)


@cache
def _records() -> dict[str, dict]:
    return dedup_records()


def record_trace(record_id: str) -> str:
    return _records()[record_id]["trace"]


def sign_record(record_id: str, target: str = "t") -> Signature:
    return sign(record_trace(record_id), target)
