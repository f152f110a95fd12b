"""Python exceptions as cleo renders them: Poetry's crash output, and any cleo application's.

``  AttributeError``, a blank line, ``  'HTTPResponse' object has no attribute 'strict'``,
a blank line, then ``  at ~/…/site-packages/cachecontrol/serialize.py:54 in dumps`` and the
source around that line (``→  54│ …``). Run with ``-vvv``, a ``Stack trace:`` of numbered
frames comes first, outermost first (``  11  ~/…/cleo/application.py:327 in run``). A chained
exception is printed after "The following error occurred when trying to handle this error:",
so the last one is the crash, as in a CPython traceback.

The frames are the ones CPython's traceback would show, innermost first: a crash reported once
in this form and once as a traceback has the same frames.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, per_text

FORMAT = "python"
# Where the exception was raised; cleo's only frame line without a number.
_AT = re.compile(r"^\s{0,8}at (?P<file>\S[^\n]{0,500}?):(?P<line>\d{1,9}) in (?P<function>[\w<>.]{1,200})\s*$")
# A numbered frame of "Stack trace:" ("  11  ~/…/application.py:327 in run").
_NUMBERED = re.compile(
    r"^\s{0,8}(?P<index>\d{1,4})\s{1,4}(?P<file>\S[^\n]{0,500}?):(?P<line>\d{1,9}) in (?P<function>[\w<>.]{1,200})\s*$"
)
# The exception's class name, alone on its line (cleo prints the bare class name).
_TYPE = re.compile(r"^\s{0,8}(?P<type>[A-Z][\w]{0,100}(?:\.[A-Za-z_]\w{0,100}){0,10})\s*$")
# Lines of the message between the class name and "at": cleo wraps long ones.
_MESSAGE_LINES = 12


def recognize(text: str) -> bool:
    """True for a cleo-rendered exception: a class name, its message and an ``at FILE:LINE in F`` line."""
    return _last_exception(text) is not None


@per_text
def _last_exception(text: str) -> tuple[str, str, int, list[str]] | None:
    """(type, message, index of its ``at`` line, lines) of the last exception rendered, or None."""
    if " in " not in text or "at " not in text:
        return None
    lines = text.split("\n")
    found = None
    for index, line in enumerate(lines):
        # The cheap test first: a hostile text is a quarter of a million lines.
        if "at " in line and " in " in line and _AT.match(line[:MAX_LINE]):
            exception = _exception_above(lines, index)
            if exception is not None:
                found = (*exception, index, lines)
    return found


def _exception_above(lines: list[str], at: int) -> tuple[str, str] | None:
    """The class name and message just above an ``at`` line: ``Type``, blank, message lines, blank."""
    above = [line.strip() for line in lines[max(0, at - _MESSAGE_LINES - 3) : at]]
    if len(above) < 4 or above[-1]:
        return None
    # Up from the blank above "at": the message, then a blank, then the class name.
    end = len(above) - 1
    start = end
    while start > 0 and above[start - 1]:
        start -= 1
    if start == end or start < 2 or above[start - 1]:
        return None
    kind = _TYPE.match(above[start - 2])
    if kind is None:
        return None
    return kind["type"], " ".join(above[start:end])


def parse(text: str) -> ParsedTrace:
    """The last exception rendered: its class, message, ``at`` frame and the stack above it."""
    found = _last_exception(text)
    if found is None:
        return ParsedTrace(format=FORMAT, crash_type="", language="python")
    crash_type, message, at, lines = found
    raised = _AT.match(lines[at][:MAX_LINE])
    frames = [_frame(raised)]
    # The numbered frames printed above this exception (and below any earlier one's "at" line).
    for line in reversed(lines[:at]):
        line = line[:MAX_LINE]
        if _AT.match(line) or len(frames) >= MAX_FRAMES:
            break
        numbered = _NUMBERED.match(line)
        if numbered:
            frames.append(_frame(numbered))
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="python")


def _frame(match: re.Match) -> Frame:
    return Frame(function=match["function"], file=match["file"], line=int(match["line"]))
