"""Go panics and fatal runtime errors.

``panic: runtime error: index out of range [5] with length 3``, then
``goroutine 1 [running]:`` and pairs of ``main.foo(...)`` /
``\\t/home/u/x/main.go:12 +0x1d`` lines. The crash type is the message with
numbers masked; the frames are the panicking goroutine's.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace

FORMAT = "go"
_PANIC = re.compile(r"^(?:panic|fatal error): (?P<message>.+?)\s*$", re.MULTILINE)
_GOROUTINE = re.compile(r"^goroutine \d+ \[[^\]]*\]:\s*$", re.MULTILINE)
_SOURCE = re.compile(r"^\s+(?P<file>\S+\.go|\S+\.s|\?\?\?):(?P<line>\d+)(?: \+0x[0-9a-f]+)?\s*$")
_FUNCTION = re.compile(r"^\s*(?P<function>[\w./*()\[\]{}-]+\(.*\))\s*$")


def recognize(text: str) -> bool:
    """True for a Go panic with a goroutine dump."""
    if "goroutine " not in text:
        return False
    return bool(_PANIC.search(text) and _GOROUTINE.search(text))


def parse(text: str) -> ParsedTrace:
    """Parse the panic message and the first goroutine's stack."""
    panic = _PANIC.search(text)
    goroutine = _GOROUTINE.search(text, panic.end()) or _GOROUTINE.search(text)
    frames: list[Frame] = []
    lines = text[goroutine.end() :].splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.strip() or line.startswith("goroutine ") or line.lstrip().startswith("created by "):
            if frames:
                break
            index += 1
            continue
        function = _FUNCTION.match(line)
        source = _SOURCE.match(lines[index + 1]) if function and index + 1 < len(lines) else None
        if function:
            frames.append(
                Frame(
                    function=function["function"],
                    file=source["file"] if source else "",
                    line=int(source["line"]) if source else None,
                )
            )
            index += 2 if source else 1
            continue
        index += 1
    message = panic["message"]
    # A nil dereference says which signal on the next line; the message is enough.
    crash_type = re.sub(r"\d+", "N", message)[:200]
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="go")
