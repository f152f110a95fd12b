"""Go stacks as go-errors/errors and the loggers built like it print them (gitea, macaron, lazygit).

One line per frame, its source and program counter, sometimes followed by
the function and its source line::

    2021/04/16 21:11:43 ...routes/base.go:153:1() [E] PANIC: runtime error: slice bounds out of range [:5] with length 2
    /usr/local/go/src/runtime/panic.go:98 (0x4585f)
    /source/modules/gitgraph/graph_models.go:219 (0x1823d2f)
    \tparseGlyphs: return nil, fmt.Errorf(...)

Go's own dump names the functions; these name files, so a frame is its file
(``frames.frame_key`` keys a frame without a function by its file's name).
The function line is printed only where the machine could read the source,
so it is not read: the same crash keys alike on every machine. Left out: Go's
standard library (the runtime raising, net/http serving, reflect calling),
error-wrapping helpers (``errors.go``), and everything above the last
``runtime/panic.go`` frame, which is the recovery handler that printed the
stack, the same in every crash of the program. A logger that prints a stack
with every error (gitea's STACKTRACE_LEVEL) prints several: the one below
``PANIC:`` is the crash's.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import MAX_LINE, at_column_zero, join_cut_lines, per_text

FORMAT = "go"
# Blanks are allowed in the path ("C:/Program Files/Go/src/…", "C:/Users/John Smith/…").
_FRAME = re.compile(
    r"^\s*(?P<file>(?:[A-Za-z]:)?[^\s:()][^:()\n]{0,399}?\.(?:go|s)):(?P<line>\d{1,9}) \(0x[0-9a-f]{1,16}\)\s*$"
)
# go-errors' second line of a frame: "\tFunc: source".
_FUNCTION = re.compile(r"^\s+[\w.*()/\[\]-]{1,300}: ")
# A stack is this many frame lines in a row, at least.
_FRAMES_WANTED = 3
# Go's standard library, wherever the toolchain was installed (/usr/local/go/src/runtime/,
# C:/Program Files/Go/src/net/http/) or with no directory at all (a -trimpath build: runtime/panic.go).
_STANDARD_LIBRARY = re.compile(
    r"(?:^|/src/)(?:archive|bufio|builtin|bytes|cmp|compress|container|context|crypto|database|debug|embed|"
    r"encoding|errors|expvar|flag|fmt|go|hash|html|image|index|internal|io|iter|log|maps|math|mime|net|os|path|"
    r"plugin|reflect|regexp|runtime|slices|sort|strconv|strings|sync|syscall|testing|text|time|unicode|unique|"
    r"unsafe|vendor|weak)/"
)
_RAISED = re.compile(r"(?:^|/src/)runtime/panic\.go$")
# An error-wrapping helper's file (go-errors' own error.go, a program's utils/errors.go): where every
# wrapped error was made, not where this one went wrong.
_WRAPPING = re.compile(r"(?:^|/)errors?\.go$")
# "[E] PANIC: …", "[Macaron] PANIC: …": the logger's tag before the recovered value.
_PANIC = re.compile(r"\bPANIC:+ ?(?P<message>.+)$")


def recognize(text: str) -> bool:
    """True when the text holds a run of go-errors frame lines."""
    if " (0x" not in text or ".go:" not in text:
        return False
    return bool(_runs(_lines(text)))


def _is_frame(line: str) -> bool:
    line = line[:MAX_LINE]  # (the mark looked for in what is matched: a long line may hold it past the cut)
    return " (0x" in line and _FRAME.match(line) is not None


# A frame line starts with its path: no blank before the path's first slash (a sentence has one).
_PATH_START = re.compile(r"^\s*(?:[A-Za-z]:)?[^\s/]*/")


@per_text
def _lines(text: str) -> list[str]:
    """The text's lines, a frame line a terminal cut joined back (a long path cut at 80 columns)."""
    lines, _ = join_cut_lines(
        text.split("\n"),
        lambda line: len(line) >= MIN_WRAP_WIDTH and _PATH_START.match(line) is not None and not _is_frame(line),
        lambda joined, _: _is_frame(joined),
        goes_on=at_column_zero,
    )
    return lines


def _runs(lines: list[str]) -> list[int]:
    """Where each run of ``_FRAMES_WANTED`` or more frame lines starts (function lines may sit between)."""
    starts, start, run = [], None, 0
    for index, line in enumerate(lines):
        if _is_frame(line):
            start = index if run == 0 else start
            run += 1
            if run == _FRAMES_WANTED:
                starts.append(start)
        elif not (run and _FUNCTION.match(line[:MAX_LINE])):
            start, run = None, 0
    return starts


def parse(text: str) -> ParsedTrace:
    lines = _lines(text)
    # Each stack with the line above it and the logger's PANIC: in that line, if there.
    stacks = []
    for start in _runs(lines) or [0]:
        above = _line_above(lines, start)
        stacks.append((start, above, _PANIC.search(above)))
    start, above, panic = next((stack for stack in stacks if stack[2]), stacks[0])
    frames: list[Frame] = []
    for line in lines[start:]:
        found = _FRAME.match(line[:MAX_LINE]) if " (0x" in line else None
        if found:
            frames.append(Frame(function="", file=found["file"].replace("\\", "/"), line=int(found["line"])))
        elif not _FUNCTION.match(line[:MAX_LINE]):
            break
    raised = max((i for i, frame in enumerate(frames) if _RAISED.search(frame.file)), default=-1)
    frames = [
        frame
        for frame in frames[raised + 1 :]
        if not _STANDARD_LIBRARY.search(frame.file) and not _WRAPPING.search(frame.file)
    ]
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
    """The line printed just above the stack: the logger's ``PANIC:`` line, its pieces joined where a
    terminal cut it, or else the nearest line alone.

    A terminal cuts a line into pieces of its width, and the logger's marker is in the first piece:
    a log's previous line, however long, is not joined to it.
    """
    block: list[str] = []
    for line in reversed(lines[max(0, start - _ABOVE_PIECES) : start]):
        if line.strip():
            block.insert(0, line)
        elif block:
            break
    if not block:
        return ""
    for first in range(len(block)):
        cut = block[first:-1]
        if cut and (len(cut[0]) < MIN_WRAP_WIDTH or len({len(piece) for piece in cut}) != 1):
            continue
        joined = "".join(block[first:])
        marker = _PANIC.search(joined)
        if marker and marker.start() < len(block[first]):
            return joined.strip()[:MAX_LINE]
    return block[-1].strip()[:MAX_LINE]
