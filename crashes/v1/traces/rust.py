"""Rust panics, with or without a backtrace, and rustc internal compiler errors.

``thread 'main' panicked at src/main.rs:4:5:`` + message (1.73+), or
``thread 'main' panicked at 'message', src/main.rs:4:5`` (older); then
``stack backtrace:`` with ``  12: crate::module::function::h0123456789abcdef``
lines. The crash type is the panic message with its numbers masked (the
index that was out of bounds differs on every hit).
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace

FORMAT = "rust"
_PANIC_NEW = re.compile(
    r"^thread '(?P<thread>[^']*)' panicked at (?P<file>[^\s:]+):(?P<line>\d+):\d+:\s*\n(?P<message>[^\n]*)",
    re.MULTILINE,
)
_PANIC_OLD = re.compile(
    r"^thread '(?P<thread>[^']*)' panicked at '(?P<message>.*)', (?P<file>[^\s:]+):(?P<line>\d+)(?::\d+)?", re.MULTILINE
)
_ICE = re.compile(r"^error: internal compiler error: (?P<message>.+?)\s*$", re.MULTILINE)
_FRAME = re.compile(r"^\s*(?P<index>\d+):\s+(?:0x[0-9a-fA-F]+ - )?(?P<function>\S.*?)\s*$")
_AT = re.compile(r"^\s+at (?P<file>.+?):(?P<line>\d+)(?::\d+)?\s*$")


def recognize(text: str) -> bool:
    """True for a Rust panic or a rustc ICE."""
    if "panicked at" not in text and "internal compiler error" not in text:
        return False
    return bool(_PANIC_NEW.search(text) or _PANIC_OLD.search(text) or _ICE.search(text))


def _mask(message: str) -> str:
    return re.sub(r"\d+", "N", message).strip()[:200]


def _backtrace(text: str) -> tuple[Frame, ...]:
    start = text.find("stack backtrace:")
    if start == -1:
        return ()
    frames: list[Frame] = []
    for line in text[start:].splitlines()[1:]:
        at = _AT.match(line)
        if at and frames:
            last = frames[-1]
            frames[-1] = Frame(function=last.function, file=at["file"], line=int(at["line"]))
            continue
        frame = _FRAME.match(line)
        if frame:
            frames.append(Frame(function=frame["function"]))
        elif frames and line.strip() and not line.startswith(" "):
            break
    return tuple(frames)


def parse(text: str) -> ParsedTrace:
    """Parse the panic (or ICE) message and the backtrace."""
    panics = [m for m in (_PANIC_NEW.search(text), _PANIC_OLD.search(text)) if m]
    panic = min(panics, key=lambda m: m.start()) if panics else None
    ice = _ICE.search(text)
    message = panic["message"].strip() if panic else ""
    if ice:
        crash_type = f"internal compiler error: {_mask(ice['message'])}"
        message = ice["message"]
    else:
        crash_type = _mask(message)
    frames = _backtrace(text)
    if panic:
        # The panic location (the caller, for unwrap and expect) goes last:
        # it only counts when the backtrace has nothing better, as when
        # there is none or it is all <unknown>.
        frames = (*frames, Frame(function="", file=panic["file"], line=int(panic["line"])))
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=frames, language="rust")
