"""pytest's failure reports: a Python exception as pytest prints it, without CPython's traceback lines.

``_________________________ test_parse _________________________``
``    def parse_header(data):``
``>       return data[0]``
``E       IndexError: index out of range``
``src/mylib/parser.py:40: IndexError``

Each frame is a section (sections are parted by ``_ _ _`` lines): the
function's source from its ``def`` (``--tb=long``), ``>`` at the failing
line, ``E`` before the error, and ``file:line:`` closing the section, with
the exception's type on the last. ``--tb=short`` (and ``auto``, between the
first and the last frame) prints ``file:line: in function`` above the
failing line instead. A report cut after its ``E`` line keeps the frame its
``def`` opened.
The crash is that type and the frames are read as CPython's traceback gives
them, innermost first, so a crash reported from pytest and from a plain
traceback is one (the format is CPython's). Only the first failure of a
session's report is read.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces import python

FORMAT = python.FORMAT
# "src/mylib/parser.py:40: IndexError", "tests/test_parser.py:12: " (a frame above the failing one),
# "lib/_base.py:449: in result" (a short entry, its function named).
_LOCATION = re.compile(
    r"^(?P<file>[^\s:][^:\n]{0,500}\.py):(?P<line>\d{1,9}):"
    r"(?: in (?P<function>[A-Za-z_<][\w.<>]{0,200})| (?P<type>[A-Za-z_][\w.]{0,200}))?\s*$"
)
_ERROR = re.compile(r"^E\s{1,12}(?P<type>[A-Za-z_][\w.]{0,200})(?:: ?(?P<message>.{0,1000}))?$")
_DEF = re.compile(r"^\s*(?:async )?def (?P<name>[A-Za-z_]\w{0,200})\s*\(")
# A failure's header ("____ test_parse ____"; a long test id's has as little as one "_" a side), and the line
# between two frames' sections.
_HEADER = re.compile(r"^_+ (?!_ )\S.{0,300} _+$")
_SEPARATOR = re.compile(r"^(?:_ ){3,}_?\s*$")
# Between the tracebacks of a chain, as CPython says it: the last one is the exception that ended the test.
_CHAINED = ("The above exception was the direct cause of the following exception:",
            "During handling of the above exception, another exception occurred:")  # fmt: skip


def recognize(text: str) -> bool:
    """True for pytest's "E   " error lines and a ``file.py:N:`` location line closing a frame's section."""
    if "\nE  " not in text and not text.startswith("E  "):
        return False
    return any(_LOCATION.match(line) for line in text.split("\n") if ".py:" in line)


def _is_header(line: str) -> bool:
    return len(line) < 400 and _HEADER.match(line) is not None and _SEPARATOR.match(line) is None


def _failure(lines: list[str]) -> list[str]:
    """The first failure's lines: from its header to the next failure's or the summary's (all, if none)."""
    start = next((i for i, line in enumerate(lines) if _is_header(line)), -1) + 1
    if not start:
        return lines
    for index in range(start, len(lines)):
        if lines[index].startswith("=====") or _is_header(lines[index]):
            return lines[start:index]
    return lines[start:]


def parse(text: str) -> ParsedTrace:
    """The exception and the frames, innermost first."""
    frames: list[Frame] = []
    crash_type, message, function = "", "", ""
    lines = _failure(text.split("\n"))
    chained = [index for index, line in enumerate(lines) if line.strip() in _CHAINED]
    for line in lines[chained[-1] + 1 :] if chained else lines:
        if _SEPARATOR.match(line):
            function = ""
            continue
        defined = _DEF.match(line) if "def " in line else None
        if defined:
            # The section's own function is its first def; a later one is defined inside it.
            function = function or defined["name"]
            continue
        error = _ERROR.match(line) if line.startswith("E") else None
        if error and not crash_type:
            crash_type, message = error["type"], (error["message"] or "").strip()
            continue
        located = _LOCATION.match(line) if ".py:" in line else None
        if located:
            name = located["function"] or function or "?"
            frames.append(Frame(function=name, file=located["file"], line=int(located["line"])))
            function = ""
            if located["type"]:
                # (The E line's type is qualified as CPython prints it; this one is bare.)
                crash_type = crash_type or located["type"]
                break  # the failing frame closes the failure's traceback
            if len(frames) >= MAX_FRAMES:
                break
    if crash_type and function and len(frames) < MAX_FRAMES:
        frames.append(Frame(function=function))  # the failing section, cut before its location
    frames.reverse()
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="python")
