"""Clang and LLVM tool crashes: assertion, fatal error or signal, then a stack dump.

The crash type is the assertion (``Assertion `x' failed``), an ``LLVM
ERROR`` message, or ``SEGV`` for a plain crash. Frames come symbolized
(``#3 0x... clang::Sema::Foo(...) (/usr/bin/clang+0x...)``) or not
(``3  opt  0x... llvm::Foo() + 39``).
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.v1.traces.native_frames import parse_frame

FORMAT = "llvm"
_MARKERS = re.compile(r"PLEASE submit a bug report|^Stack dump:|LLVM ERROR:", re.MULTILINE)
_ASSERTION = re.compile(
    r"^(?:\S+: )?(?P<where>\S+?):\d+: (?P<function>.*?): Assertion `(?P<expr>.*)' failed\.?\s*$", re.MULTILINE
)
_FATAL = re.compile(r"^LLVM ERROR: (?P<error>.+?)\s*$", re.MULTILINE)
_UNSYMBOLIZED = re.compile(
    r"^\s*(?P<index>\d+)\s+(?P<module>\S+)\s+0x[0-9a-fA-F]+\s*(?P<function>.*?)(?:\s+\+\s+\d+)?\s*$"
)


def recognize(text: str) -> bool:
    """True for an LLVM tool's crash report."""
    if "PLEASE submit" not in text and "Stack dump" not in text and "LLVM ERROR" not in text:
        return False
    return bool(_MARKERS.search(text))


def _frames(text: str) -> tuple[Frame, ...]:
    dump = text.find("Stack dump")
    frames = []
    for line in text[max(dump, 0) :].splitlines():
        frame = parse_frame(line)
        if frame is None:
            match = _UNSYMBOLIZED.match(line)
            if match:
                frame = Frame(function=match["function"], module=match["module"])
        if frame is not None:
            frames.append(frame)
    return tuple(frames)


def parse(text: str) -> ParsedTrace:
    """Parse the crash reason and the stack dump."""
    assertion = _ASSERTION.search(text) if "Assertion `" in text else None
    fatal = _FATAL.search(text) if "LLVM ERROR" in text else None
    if assertion:
        crash_type = f"Assertion `{assertion['expr']}' failed"
        message = assertion.group(0).strip()
    elif fatal:
        crash_type = f"LLVM ERROR: {re.sub(r'[0-9]+', 'N', fatal['error'])}"
        message = fatal["error"]
    else:
        crash_type = "SEGV"
        message = ""
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=_frames(text), language="native")
