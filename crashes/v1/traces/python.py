"""CPython tracebacks, including chains and SyntaxError.

Handles ``During handling of the above exception`` and ``The above exception
was the direct cause`` chains (the last exception printed is the crash),
``[Previous line repeated N more times]``, 3.11 ``^^^^`` position markers,
and SyntaxError's frame without a function name.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace

FORMAT = "python"
_HEADER = "Traceback (most recent call last):"
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<function>.+))?\s*$')
_REPEATED = re.compile(r"^\s*\[Previous line repeated (?P<count>\d+) more times?\]\s*$")
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<message>.*))?$")
_CHAIN_SEPARATORS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
# A "[Previous line repeated ...]" count can be huge; folding recursion only
# needs a few copies, and expanding all of them would let a trace eat memory.
_MAX_REPEAT = 50
_MAX_MESSAGE_LINES = 50


def recognize(text: str) -> bool:
    """True if ``text`` holds a Python traceback or a SyntaxError report."""
    if _HEADER in text:
        return True
    if 'File "' not in text or "Error" not in text:
        return False
    lines = text.splitlines()
    has_frame = any(_FRAME.match(line) for line in lines)
    has_syntax = any(re.match(r"^(\w+\.)*\w*(SyntaxError|IndentationError|TabError)\b", ln) for ln in lines)
    return has_frame and has_syntax


def _is_marker(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) <= set("^~-")


def _parse_block(lines: list[str], start: int) -> tuple[ParsedTrace | None, int]:
    """Parse one traceback starting at ``lines[start]``; return it and the next index."""
    frames: list[Frame] = []
    index = start
    if index < len(lines) and lines[index].strip() == _HEADER:
        index += 1
    while index < len(lines):
        line = lines[index]
        frame = _FRAME.match(line)
        if frame:
            source = ""
            if index + 1 < len(lines) and lines[index + 1].startswith("    ") and not _FRAME.match(lines[index + 1]):
                source = lines[index + 1].strip()
                index += 1
                while index + 1 < len(lines) and _is_marker(lines[index + 1]):
                    index += 1
            frames.append(
                Frame(
                    function=frame["function"] or "<module>",
                    file=frame["file"],
                    line=int(frame["line"]),
                    source=source,
                )
            )
            index += 1
            continue
        repeated = _REPEATED.match(line)
        if repeated and frames:
            frames.extend([frames[-1]] * min(int(repeated["count"]), _MAX_REPEAT))
            index += 1
            continue
        if line.startswith((" ", "\t")) or not line.strip():
            index += 1
            continue
        exception = _EXCEPTION.match(line.rstrip())
        if not exception:
            return None, index + 1
        message_lines = [exception["message"] or ""]
        index += 1
        # A message can run over several lines, up to a blank line, the next
        # chain separator or the next traceback.
        while index < len(lines) and len(message_lines) < _MAX_MESSAGE_LINES:
            following = lines[index]
            if not following.strip() or following.strip() == _HEADER or following.strip() in _CHAIN_SEPARATORS:
                break
            message_lines.append(following)
            index += 1
        trace = ParsedTrace(
            format=FORMAT,
            crash_type=exception["type"],
            message="\n".join(message_lines).strip(),
            frames=tuple(reversed(frames)),
        )
        return trace, index
    return None, index


def parse(text: str) -> ParsedTrace:
    """Parse the traceback(s) in ``text``; the last exception of a chain is the crash."""
    lines = text.splitlines()
    traces: list[ParsedTrace] = []
    index = 0
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped == _HEADER or _FRAME.match(lines[index]):
            trace, index = _parse_block(lines, index)
            if trace is not None:
                traces.append(trace)
            continue
        index += 1
    if not traces:
        return ParsedTrace(format=FORMAT, crash_type="", language="python")
    last = traces[-1]
    return ParsedTrace(
        language="python",
        format=FORMAT,
        crash_type=last.crash_type,
        message=last.message,
        frames=last.frames,
        causes=tuple(traces[:-1]),
    )
