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
from crashes.traces.text import MAX_LINE, join_cut_lines, per_text

FORMAT = "python"
# Where the exception was raised; cleo's only frame line without a number.
_AT = re.compile(r"^\s{0,8}at (?P<file>\S[^\n]{0,500}?):(?P<line>\d{1,9}) in (?P<function>[\w<>.]{1,200})\s*$")
_AT_ANYWHERE = re.compile(r"^[ \t]{0,8}at \S[^\n]{0,500}?:\d{1,9} in [\w<>.]{1,200}[ \t]*$", re.M)
# cleo prints the source around each frame's line after a box-drawing bar ("→  54│ …").
_SOURCE_BAR = "\u2502"
# A numbered frame of "Stack trace:" ("  11  ~/…/application.py:327 in run").
_NUMBERED = re.compile(
    r"^\s{0,8}(?P<index>\d{1,4})\s{1,4}(?P<file>\S[^\n]{0,500}?):(?P<line>\d{1,9}) in (?P<function>[\w<>.]{1,200})\s*$"
)
# The exception's class name, alone on its line (cleo prints the bare class name): a CamelCase name
# (SolveFailure) or one ending as exceptions do (KeyError, SystemExit), not a capitalised word ("Log").
_TYPE = re.compile(
    r"^\s{0,8}(?P<type>(?:[A-Za-z_]\w{0,100}\.){0,10}"
    r"(?:[A-Z][a-z0-9_]{0,100}[A-Z]\w{0,100}|\w{0,100}(?:Error|Exception|Warning|Exit|Interrupt|Iteration)))\s*$"
)
# Lines of the message between the class name and "at": cleo wraps long ones.
_MESSAGE_LINES = 12


def recognize(text: str) -> bool:
    """True for a cleo-rendered exception: a class name, its message and an ``at FILE:LINE in F`` line."""
    return _last_exception(text) is not None


@per_text
def _last_exception(text: str) -> tuple[str, str, int, list[str], int] | None:
    """(type, message, index of its ``at`` line, lines, cut lines joined) of the last exception, or None."""
    if " in " not in text or "at " not in text:
        return None
    # Most texts hold neither an "at … in F" line nor cleo's source bar: told at the engine's speed,
    # before a line is split off (a JVM stack is all "at" lines, and comes after this format).
    boxed = _SOURCE_BAR in text
    if not boxed and not _AT_ANYWHERE.search(text):
        return None
    lines = text.split("\n")
    joined = 0
    if boxed:
        # An "at" line is often longer than a terminal: one it cut is joined back while that makes it whole.
        lines, joined = join_cut_lines(
            lines,
            lambda line: line.lstrip().startswith("at ") and not _AT.match(line[:MAX_LINE]),
            lambda whole, _: bool(_AT.match(whole[:MAX_LINE])),
        )
    found = None
    for index, line in enumerate(lines):
        # The cheap test first: a hostile text is a quarter of a million lines.
        if "at " in line and " in " in line and _AT.match(line[:MAX_LINE]):
            exception = _exception_above(lines, index)
            if exception is not None:
                found = (*exception, index, lines, joined)
    return found


def _exception_above(lines: list[str], at: int) -> tuple[str, str] | None:
    """The class name and message above an ``at`` line: blank, ``Type``, blank, message, blank(s).

    A message ending in a newline leaves a second blank line above ``at``, and one of several
    paragraphs has blank lines inside: the class name is the nearest line above, followed by a
    blank line, that names an exception class.
    """
    window = [line[:MAX_LINE].strip() for line in lines[max(0, at - _MESSAGE_LINES - 4) : at]]
    end = len(window)
    while end and not window[end - 1]:
        end -= 1
    if end == len(window):
        return None  # no blank line between the message and "at"
    for index in range(end - 1, -1, -1):
        # Followed by a blank line; what is above it may be anything (a shell prompt, a build's output).
        kind = _TYPE.match(window[index]) if index + 1 < len(window) and not window[index + 1] else None
        if kind is not None:
            message = " ".join(line for line in window[index + 2 : end] if line)
            return kind["type"], message
    return None


def parse(text: str) -> ParsedTrace:
    """The last exception rendered: its class, message, ``at`` frame and the stack above it."""
    found = _last_exception(text)
    if found is None:
        return ParsedTrace(format=FORMAT, crash_type="", language="python")
    crash_type, message, at, lines, joined = found
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
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=tuple(frames),
        language="python",
        repairs=(f"{joined} cut 'at' lines joined",) if joined else (),
    )


def _frame(match: re.Match) -> Frame:
    return Frame(function=match["function"], file=match["file"], line=int(match["line"]))
