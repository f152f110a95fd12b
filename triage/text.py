"""Make fuzzer-produced text safe to store: bounded, valid UTF-8, no NULs.

Fuzzers produce hostile text: megabyte traces, binary garbage, lone
surrogates, NUL bytes (which PostgreSQL refuses in text columns). Escaping
for HTML happens at render time; this only makes the text storable.
"""

from __future__ import annotations

TRACE_LIMIT = 256 * 1024
INPUT_LIMIT = 64 * 1024
MESSAGE_LIMIT = 8 * 1024
SHORT_LIMIT = 255


def decode(data: bytes | str) -> str:
    """Decode bytes as UTF-8, replacing what is not; pass text through."""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data


def clean(value: bytes | str | None, limit: int) -> str:
    """Return ``value`` as storable text of at most about ``limit`` characters.

    Truncation keeps the head and says how much was cut, in the text itself,
    so every view and export shows it.
    """
    text = decode(value or "")
    # Lone surrogates cannot be encoded; NUL cannot be stored.
    text = text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
    if len(text) > limit:
        cut = len(text) - limit
        text = f"{text[:limit]}\n… [truncated: {cut} more characters not stored]"
    return text


def clean_short(value: str | None) -> str:
    """Clean text for a single-line column (names, types)."""
    text = clean(value, SHORT_LIMIT * 4).replace("\n", " ")
    return text[:SHORT_LIMIT]
