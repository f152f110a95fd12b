"""Go stacks as go-errors/errors and the loggers built like it print them (gitea, macaron, lazygit).

One line per frame, its source and program counter, sometimes followed by
the function and its source line::

    2021/04/16 21:11:43 ...routes/base.go:153:1() [E] PANIC: runtime error: slice bounds out of range [:5] with length 2
    /usr/local/go/src/runtime/panic.go:98 (0x4585f)
    /source/modules/gitgraph/graph_models.go:219 (0x1823d2f)
    \tparseGlyphs: return nil, fmt.Errorf(...)

Go's own dump names the functions; these name files, so a frame is its
file (``frames.frame_key`` keys a frame without a function by its file's
name). The Go runtime's frames are left out, and so is everything above the
last ``runtime/panic.go`` frame: that is the recovery handler that printed
the stack, the same in every crash of the program.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import MAX_LINE, join_cut_lines, per_text

FORMAT = "go"
_FRAME = re.compile(r"^\s*(?P<file>(?:[A-Za-z]:)?[^\s:()]{1,400}\.(?:go|s)):(?P<line>\d{1,9}) \(0x[0-9a-f]{1,16}\)\s*$")
# go-errors' second line of a frame: "\tFunc: source".
_FUNCTION = re.compile(r"^\s+(?P<function>[\w.*()/\[\]-]{1,300}): ")
# A stack is this many frame lines in a row, at least.
_FRAMES_WANTED = 3
# The Go runtime and standard library's plumbing, wherever the toolchain was installed
# (/usr/local/go/src/runtime/, /opt/hostedtoolcache/go/1.16.3/x64/src/reflect/).
_RUNTIME = re.compile(r"/src/(?:runtime|reflect|sync|testing|internal)/")
_RAISED = re.compile(r"/src/runtime/panic\.go$")
# "[E] PANIC: …", "[Macaron] PANIC: …": the logger's tag before the recovered value.
_PANIC = re.compile(r"\bPANIC:+ (?P<message>.+)$")


def recognize(text: str) -> bool:
    """True when the text holds a run of go-errors frame lines."""
    if " (0x" not in text or ".go:" not in text:
        return False
    return _first_run(_lines(text)) is not None


def _is_frame(line: str) -> bool:
    return " (0x" in line and _FRAME.match(line[:MAX_LINE]) is not None


@per_text
def _lines(text: str) -> list[str]:
    """The text's lines, a frame line a terminal cut joined back (a long path cut at 80 columns)."""
    lines, _ = join_cut_lines(
        text.split("\n"),
        lambda line: len(line) >= MIN_WRAP_WIDTH and ".go" in line and not _is_frame(line),
        lambda joined, _: _is_frame(joined),
        goes_on=lambda line: bool(line) and not line[:1].isspace(),
    )
    return lines


def _first_run(lines: list[str]) -> int | None:
    """Where the first run of ``_FRAMES_WANTED`` frame lines starts (function lines may sit between)."""
    start, run = None, 0
    for index, line in enumerate(lines):
        if _is_frame(line):
            start = index if run == 0 else start
            run += 1
            if run >= _FRAMES_WANTED:
                return start
        elif not (run and _FUNCTION.match(line[:MAX_LINE])):
            start, run = None, 0
    return None


def parse(text: str) -> ParsedTrace:
    lines = _lines(text)
    start = _first_run(lines) or 0
    frames: list[Frame] = []
    for line in lines[start:]:
        clipped = line[:MAX_LINE]
        found = _FRAME.match(clipped) if " (0x" in clipped else None
        if found:
            frames.append(Frame(function="", file=found["file"].replace("\\", "/"), line=int(found["line"])))
            continue
        named = _FUNCTION.match(clipped) if frames else None
        if named and not frames[-1].function:
            last = frames[-1]
            frames[-1] = Frame(function=named["function"], file=last.file, line=last.line)
            continue
        break
    raised = max((i for i, frame in enumerate(frames) if _RAISED.search(frame.file)), default=-1)
    frames = [frame for frame in frames[raised + 1 :] if not _RUNTIME.search(frame.file)]
    above = _line_above(lines, start)
    panic = _PANIC.search(above)
    message = panic["message"].strip() if panic else above
    return ParsedTrace(
        format=FORMAT,
        crash_type=re.sub(r"\d+", "N", message)[:200],
        message=message,
        frames=tuple(frames),
        language="go",
    )


# How many lines a terminal may have cut the logger's line into.
_ABOVE_PIECES = 4


def _line_above(lines: list[str], start: int) -> str:
    """The line printed just above the stack, its pieces joined where a terminal cut it."""
    pieces: list[str] = []
    for line in reversed(lines[max(0, start - _ABOVE_PIECES) : start]):
        if not line.strip():
            if pieces:
                break
            continue
        if pieces and len(line) < MIN_WRAP_WIDTH:
            break  # a line of its own: the one below it was not cut from it
        pieces.insert(0, line)
        if _PANIC.search(line):
            break
    return "".join(pieces).strip()[:MAX_LINE]
