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


def clean_short(value: str | None, limit: int = SHORT_LIMIT) -> str:
    """Clean text for a single-line column (names, types) of ``limit`` characters.

    Every line break (a bare CR too) becomes a space: one-line fields end up
    in table cells, code spans and issue titles, where a break would let the
    text out.
    """
    text = clean(value, limit * 4)
    return " ".join(text.splitlines())[:limit]


def preview_bytes(data: bytes, limit: int) -> str:
    """A readable stand-in for a binary testcase: text if it decodes, else a hex dump."""
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        lines = []
        for offset in range(0, min(len(data), limit // 4), 16):
            chunk = data[offset : offset + 16]
            printable = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
            lines.append(f"{offset:08x}  {chunk.hex(' '):<47}  {printable}")
        dump = "\n".join(lines)
        shown = min(len(data), limit // 4)
        if shown < len(data):
            dump += f"\n… [truncated: {len(data) - shown} more bytes not shown]"
        return dump
    return clean(decoded, limit)


def clean_json(value, depth: int = 0):
    """Free-form metadata with every string cleaned and the nesting bounded."""
    if depth > 8:
        return None
    if isinstance(value, dict):
        return {clean_short(str(k)): clean_json(v, depth + 1) for k, v in list(value.items())[:200]}
    if isinstance(value, list):
        return [clean_json(v, depth + 1) for v in value[:200]]
    if isinstance(value, str):
        return clean(value, MESSAGE_LIMIT)
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    return clean_short(str(value))
