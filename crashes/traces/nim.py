"""Nim's tracebacks: the compiler's internal errors and any Nim program's unhandled exception or signal.

``Traceback (most recent call last)``
``/home/u/Nim/compiler/nim.nim(119) nim``
``ccgexprs.nim(2153)       expr``
``ccgexprs.nim(1758)       genMagicExpr``
``msgs.nim(996)            internalError``
``Error: internal error: genMagicExpr: mArrPut`` (or above the traceback: ``bug.nim(7, 5) Error: internal error: …``)

Frames are printed outermost first, each a file, its line and a procedure; the crash is the line below them
(``Error: unhandled exception: index 3 not in 0 .. 2 [IndexDefect]``, ``SIGSEGV: Illegal storage access.``)
or the compiler's internal error. The frames that report it (the compiler's msgs.nim, the runtime's fatal.nim
and assertions) are every crash's: the frames above them say where it happened.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, file_name, lines_of, mask_message

FORMAT = "nim"
# "/home/u/Nim/compiler/ccgexprs.nim(2760) genStmtList", "nim.nim(133)             nim".
_FRAME = re.compile(
    r"^\s{0,8}(?P<file>(?:[A-Za-z]:)?[^\s()]{0,300}\.nim)\((?P<line>\d{1,7})\)\s{1,60}(?P<name>[^\s]{1,200})\s*$"
)
_FRAMES_WANTED = 2
# The compiler's and the runtime's reporting: the compiler's messages (internalError → liMessage → handleError →
# quit), the runtime's fatal path and assertions.
_REPORTING_FILES = frozenset({"msgs.nim", "fatal.nim", "assertions.nim", "excpt.nim", "chcks.nim", "system.nim"})
# "Error: unhandled exception: index 3 not in 0 .. 2 [IndexDefect]"; Nim before 1.4 named it "IndexError".
_UNHANDLED = re.compile(
    r"^(?:.{0,300}?\) )?Error: unhandled exception: (?P<message>.{0,1000}?) ?\[(?P<type>\w{1,100})\]\s*$"
)
# "bug.nim(7, 5) Error: internal error: genMagicExpr: mArrPut" (the user's position first, when there is one).
_INTERNAL = re.compile(r"^(?:.{0,500}?\) )?Error: internal error: (?P<message>.{1,1000}?)\s*$")
# "SIGSEGV: Illegal storage access. (Attempt to read from nil?)"
_SIGNAL = re.compile(r"^(?P<signal>SIG[A-Z]{2,6}): (?P<message>.{1,300}?)\s*$")


def _frames_from(lines: list[str], start: int) -> tuple[list[re.Match], int]:
    """The run of frame lines from ``start`` and the index after it."""
    run = []
    index = start
    while index < len(lines):
        found = _FRAME.match(lines[index][:MAX_LINE])
        if found is None:
            break
        run.append(found)
        index += 1
    return run, index


def _first_run(lines: list[str]) -> tuple[list[re.Match], int, int]:
    """The first run of at least two frame lines: its matches, where it starts and the index after it."""
    index = 0
    while index < len(lines):
        if ".nim(" in lines[index]:
            run, end = _frames_from(lines, index)
            if len(run) >= _FRAMES_WANTED:
                return run, index, end
            index = max(end, index + 1)
        else:
            index += 1
    return [], len(lines), len(lines)


def _reporting(path: str) -> bool:
    """Whether a frame's file is the compiler's or the runtime's reporting: named bare (as Nim names its own
    modules' frames) or in the compiler's or the standard library's folders, not a program's own msgs.nim."""
    path = path.replace("\\", "/")
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    own = not folder or f"/{folder}".endswith(("/compiler", "/lib/system", "/lib/std"))
    return own and file_name(path) in _REPORTING_FILES


def recognize(text: str) -> bool:
    """True for two or more of Nim's frame lines in a row."""
    if ".nim(" not in text:
        return False
    return bool(_first_run(list(lines_of(text)))[0])


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    run, start, end = _first_run(lines)
    crash_type, message, below = "unknown", "", False
    # Below the frames (a program's exception, a signal, the compiler's "FAILURE"), or above them (the compiler's
    # internal error, which old releases printed above the traceback).
    after = lines[end : end + 3]
    for at, line in enumerate([*after, *lines[max(0, start - 3) : start]]):
        line = line[:MAX_LINE].strip()
        below = below or (at < len(after) and line == "FAILURE")
        found = _UNHANDLED.match(line) or _SIGNAL.match(line) or _INTERNAL.match(line)
        if found is None:
            continue
        below = below or at < len(after)
        message = found["message"]
        if found.re is _INTERNAL:
            crash_type = f"internal error: {mask_message(message, 160)}"
        else:
            crash_type = found["type"] if found.re is _UNHANDLED else found["signal"]
        break
    # Outermost first: a traceback the paste cut before its end (nothing below it, no reporting frame last) kept
    # only the driver's frames every crash passes through.
    if not below and not (run and _reporting(run[-1]["file"])):
        run = []
    frames = []
    for found in reversed(run):
        if _reporting(found["file"]):
            continue
        file = file_name(found["file"])
        frames.append(
            Frame(function=f"{file.removesuffix('.nim')}.{found['name']}", file=file, line=int(found["line"]))
        )
        if len(frames) >= MAX_FRAMES:
            break
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="nim")
