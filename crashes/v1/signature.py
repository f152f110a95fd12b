"""Signature algorithm v1.

By kind of finding:

- crash with a parseable trace: kind + crash type + the top N significant
  frames (default 3), normalised by :mod:`triage.signatures.frames`. Line
  numbers are left out on purpose (they move with every unrelated edit, which
  would split one bug into a bucket per release), and so is the message,
  which usually carries the failing value (``KeyError: 'ms'``).
- crash whose trace no parser recognises: kind + a normalised hash of the
  crash message, marked unparsed so the gap shows in the bucket list.
- timeout and out-of-memory: kind + target + stage, exactly. Their stacks
  are wherever the clock or the allocator happened to strike, so merging by
  stack would be a guess.
- miscompilation: kind + reference + each disagreeing backend with its
  outcome class, so many programs hitting one wrong-code bug share a bucket.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from crashes.model import Signature
from crashes.v1 import traces
from crashes.v1.frames import significant_frames

VERSION = 1
STACK, MESSAGE, EXACT, DIFFERENTIAL = "stack", "message", "exact", "differential"

_NOISE = (
    (re.compile(r"0x[0-9a-fA-F]+"), "0x?"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@-]+)+[\\/]?"), "<path>"),
    (re.compile(r"\d+"), "N"),
    (re.compile(r"\s+"), " "),
)


def normalize_message(message: str) -> str:
    """A crash message with addresses, paths and numbers masked."""
    for pattern, replacement in _NOISE:
        message = pattern.sub(replacement, message)
    return message.strip()[:500]


def _digest(*parts: str) -> str:
    payload = "\n".join([f"v{VERSION}", *parts])
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def message_text(message: str, trace_text: str, crash_type: str) -> str:
    """What an unparsed crash is grouped by, before normalising: its message, else its trace's first line."""
    return message or _first_line(trace_text) or crash_type


def compute(
    *,
    kind: str,
    crash_type: str = "",
    trace_text: str = "",
    message: str = "",
    target: str = "",
    stage: str = "",
    reference: str = "",
    backends: Sequence[tuple[str, str]] = (),
    top_n: int = 3,
    ignore: tuple[re.Pattern, ...] = (),
) -> Signature:
    """Signature of one finding. ``backends`` are (name, outcome class) pairs."""
    if kind == "miscompilation":
        outcomes = dict(backends)
        expected = outcomes.get(reference, "ok")
        disagreeing = tuple(sorted(f"{name}={outcome}" for name, outcome in backends if outcome != expected))
        return Signature(
            version=VERSION,
            digest=_digest(kind, f"reference={reference}", *disagreeing),
            kind=kind,
            crash_type="wrong code" if "wrong_output" in outcomes.values() else "backend disagreement",
            frames=disagreeing,
            method=DIFFERENTIAL,
        )
    if kind in ("timeout", "oom"):
        where = stage or "-"
        return Signature(
            version=VERSION,
            digest=_digest(kind, target, where),
            kind=kind,
            crash_type=crash_type or ("Timeout" if kind == "timeout" else "Out of memory"),
            frames=(f"{target}:{where}",),
            method=EXACT,
        )
    parsed = traces.parse(trace_text) if trace_text else None
    if parsed is not None and (parsed.frames or parsed.crash_type):
        frames = significant_frames(parsed.frames, parsed.language, top_n, ignore)
        crash = (parsed.crash_type or crash_type).strip()
        return Signature(
            version=VERSION,
            digest=_digest(kind, crash, *frames),
            kind=kind,
            crash_type=crash,
            frames=frames,
            message=parsed.message,
            method=STACK,
            trace_format=parsed.format,
        )
    text = message_text(message, trace_text, crash_type)
    normalized = normalize_message(text)
    return Signature(
        version=VERSION,
        digest=_digest(kind, crash_type, "message", normalized),
        kind=kind,
        crash_type=crash_type or normalized[:100],
        frames=(),
        message=text,
        method=MESSAGE,
    )
