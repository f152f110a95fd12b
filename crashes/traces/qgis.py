"""QGIS's crash dialog: "Crash ID", then "Stack Trace", one frame a line, innermost first.

``Crash ID: ed5d5ec973b366c2ee071f6886c412fcf10b8d6f``
``Stack Trace``
``QgsMapCanvas::refreshMap qgsmapcanvas.cpp:529``
``QMetaObject::activate :``

Each line is a function and, when the build has its symbols, the source
file and line; " :" alone when it does not. QGIS's users paste the
dialog's text into an issue as it is (its "Copy report" button), followed by
"QGIS Info" and "System Info". The dialog names no signal, so the frames
are the identity. The Crash ID is QGIS's own hash of the stack, which a
maintainer searches for; the frames say the same thing and, read by their
functions, stay one across builds whose lines moved.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "qgis"
# Pasted into an issue, the headings often keep the emphasis QGIS's Markdown copy gives them
# ("*Crash ID*:", "**Stack Trace**"), and the stack an HTML <pre> block.
_HEADING = re.compile(r"^[*_]{0,2}Stack Trace[*_]{0,2}\s*$")
_CRASH_ID = re.compile(r"^[*_]{0,2}Crash ID[*_]{0,2}: \[?[0-9a-f]{40}\b")
_PRE = frozenset({"<pre>", "</pre>"})
# "QgsFoo::bar qgsfoo.cpp:123" or "QObject::event :" (a C++ name may hold blanks: "`anonymous namespace'"),
# read from the line's end.
_LOCATION = re.compile(r"(?P<file>[\w.+-]{1,200}\.\w{1,5}):(?P<line>\d{1,9})")
# The Crash ID and the heading say it is the dialog: one frame is a stack (a build without symbols may
# name only the function that crashed).
_MIN_FRAMES = 1


def recognize(text: str) -> bool:
    """True for the dialog's Crash ID and its "Stack Trace" heading followed by frame lines."""
    if "Crash ID" not in text or "Stack Trace" not in text:
        return False
    if not find_lines(text, _CRASH_ID, 1, "Crash ID"):
        return False
    return len(_frames(text, _MIN_FRAMES)) >= _MIN_FRAMES


def _frames(text: str, limit: int) -> list[Frame]:
    """The frame lines under the "Stack Trace" heading (not "Python Stack Trace"), up to ``limit``."""
    lines = iter(text.split("\n"))
    if not any(line.startswith(("Stack", "*Stack", "**Stack", "_Stack")) and _HEADING.match(line) for line in lines):
        return []
    frames: list[Frame] = []
    for line in lines:
        line = line[:MAX_LINE].strip()
        if line in _PRE:
            if frames:
                break
            continue
        if not line:
            if frames:
                break  # the stack ended ("QGIS Info" follows)
            continue
        frame = _frame(line)
        if frame is None:
            break
        frames.append(frame)
        if len(frames) >= limit:
            break
    return frames


def _frame(line: str) -> Frame | None:
    """``QgsFoo::bar qgsfoo.cpp:123`` or ``QObject::event :`` as a frame; None for any other line."""
    function, _, where = line.rpartition(" ")
    if not function or function[0].isspace():
        return None
    if where == ":":
        return Frame(function=function)
    located = _LOCATION.fullmatch(where)
    if located is None:
        return None
    return Frame(function=function, file=located["file"], line=int(located["line"]))


def parse(text: str) -> ParsedTrace:
    """The stack's frames; the dialog names no crash type."""
    frames = tuple(_frames(text, MAX_FRAMES))
    return ParsedTrace(format=FORMAT, crash_type="", message="", frames=frames, language="native")
