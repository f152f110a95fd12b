"""PaddlePaddle's report of a failure in its C++ core, as Paddle and its libraries (PaddleOCR, PaddleSeg, …) print it.

``C++ Traceback (most recent call last):``, a rule of dashes, then numbered frames, outermost first
(``0   paddle::AnalysisPredictor::ZeroCopyRun()`` … ``5   paddle::framework::OperatorWithKernel::RunImpl(…)``),
then ``Error Message Summary:`` and the error: a signal (``FatalError: `Segmentation fault` is detected by the
operating system.``) or a check (``InvalidArgumentError: The shape of … (at /paddle/paddle/phi/kernels/x.cc:123)``).

The crash is the error's class, and the place its check names (its file, as
an assertion's): the message holds the user's shapes and values. The frames
are read innermost first. "No stack trace in paddle, may be caused by
external reasons." is no frame: a signal with it names nothing.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import lines_of

FORMAT = "paddle"
_HEAD = "C++ Traceback (most recent call last):"
_SUMMARY = "Error Message Summary:"
_FRAME = re.compile(r"^\s{0,8}(?P<index>\d{1,4})\s{2,8}(?P<function>\S.{0,2000}?)\s*$")
# "FatalError: `Segmentation fault` is detected …", "InvalidArgumentError: … (at /paddle/…/x.cc:123)".
_ERROR = re.compile(r"^\s{0,8}(?P<type>[A-Z]\w{0,60}(?:Error|Exception)): (?P<message>.{0,2000})$")
_CHECK_PLACE = re.compile(r"\(at (?P<file>[^\s()]{1,500}):(?P<line>\d{1,9})\)")
_RULE = re.compile(r"^\s*-{3,}\s*$")
_SIGNAL_ERROR = "FatalError"
_SIGNAL = re.compile(r"\[SignalInfo: \*\*\* (SIG[A-Z]{2,8}) ")
# How far below the summary's head its error is (the dashes and blank lines between).
_SUMMARY_LINES = 8


def recognize(text: str) -> bool:
    """True for Paddle's C++ traceback or its error summary."""
    return _HEAD in text or (_SUMMARY in text and "FatalError: " in text)


def parse(text: str) -> ParsedTrace:
    """The summary's error and its check's file, and the C++ frames innermost first."""
    lines = list(lines_of(text))
    frames: list[Frame] = []
    error = None
    reading = False
    for index, line in enumerate(lines):
        if _HEAD in line:
            reading, frames = True, []
            continue
        if _SUMMARY in line:
            error = next(
                (m for m in (_ERROR.match(ln) for ln in lines[index + 1 : index + 1 + _SUMMARY_LINES]) if m), None
            )
            break
        if reading and len(frames) < MAX_FRAMES:
            found = _FRAME.match(line)
            if found:
                frames.append(Frame(function=found["function"]))
            elif frames and line.strip() and not _RULE.match(line):
                reading = False
    signal = _SIGNAL.search(text) if error and error["type"] == _SIGNAL_ERROR else None
    place = _CHECK_PLACE.search(error["message"]) if error else None
    site = place["file"].replace("\\", "/").rsplit("/", 1)[-1] if place else ""
    message = error["message"].strip() if error else ""
    return ParsedTrace(
        format=FORMAT,
        # A signal is named as the handler's SignalInfo names it ("SIGSEGV"): every signal is a FatalError.
        crash_type=signal.group(1) if signal else error["type"] if error else "",
        message=message,
        frames=tuple(reversed(frames)),
        language="native",
        site=site,
        site_line=int(place["line"]) if place else None,
    )
