"""Julia's errors with their stack traces, as the REPL, a script or a test set prints them.

``ERROR: LoadError: MethodError: no method matching f(::Int64)``
``Stacktrace:``
`` [1] g(::Int64) at /home/u/src/a.jl:12``              (Julia 1.5 and older)
``  [1] g(x::Int64)``
``    @ Main ~/src/a.jl:12``                            (1.6 on: the place on a line of its own)

The crash is the error's type and message ("MethodError", "LLVM error:
Cannot cast …" when the message has no type of its own) and the functions,
innermost first, by name without their arguments' types or a closure's
number. A test set prints the error inside its report ("Test threw
exception", the message above the stack, indented). Frames that name no
function ("top-level scope", "macro expansion") are skipped, as are
Julia's own error helpers in ``Base`` (``error``, ``throw_boundserror``):
where every error is raised, not where it happened.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import lines_of, mask_message

FORMAT = "julia"
_HEADER = "Stacktrace:"
# " [1] g(::Int64) at /a/b.jl:12 [inlined]", "  [2] top-level scope", "  [3] macro expansion".
_FRAME = re.compile(
    r"^\s{0,12}\[(?P<number>\d{1,6})\] (?P<function>\S.{0,1000}?)(?: at (?P<place>\S{1,500}))?(?: \[inlined\])?\s*$"
)
# 1.6's place line below its frame: "    @ Base ./error.jl:33", "    @ REPL[1]:1", "    @ ~/a.jl:3 [inlined]".
_PLACE = re.compile(r"^\s{0,16}@ (?:(?P<module>[\w.]{1,200}) )?(?P<place>\S{1,500})(?: \[inlined\])?\s*$")
# "ERROR: LoadError: MethodError: …" (a script's, wrapped in LoadError; the REPL's; a task's).
_ERROR = re.compile(r"^\s*ERROR: (?:(?:LoadError|TaskFailedException|CompositeException): )*(?P<message>\S.{0,1000})$")
# A type that opens a message: "MethodError: no method matching …", "Base.IOError: …".
_TYPED = re.compile(r"^(?P<type>(?:[A-Z]\w{0,100}\.)*[A-Z]\w{0,100}(?:Error|Exception)): ?(?P<message>.*)$")
_NAMELESS = frozenset(
    {"top-level scope", "macro expansion", "anonymous", "eval", "include", "_include", "include_string"}
)
# Base's helpers that raise for their caller.
_RAISING = re.compile(r"^(?:error|throw\w*|check\w*|_throw\w*|rethrow|assert\w*)$")
_BASE_FILE = re.compile(
    r"^\./|[/\\]share[/\\]julia[/\\](?:base|stdlib)[/\\]|^(?:[\w.]+[/\\])?(?:base|compiler)[/\\]\w+\.jl:"
)
# "#f#12" (a keyword sorter), "#3" (a closure): a generated function's number, which moves with the code.
_NUMBERED = re.compile(r"#\d+")
# Lines read below the header at most (a 1.6 frame takes two).
_FRAME_LINES = 8 * MAX_FRAMES


def recognize(text: str) -> bool:
    """True for a "Stacktrace:" header with Julia's numbered frame lines below it."""
    return _HEADER in text and "[1] " in text and _header_at(list(lines_of(text))) != -1


def _header_at(lines: list[str]) -> int:
    """The index of the first "Stacktrace:" line with a "[1]" frame right below it, or -1."""
    for index, line in enumerate(lines):
        if line.strip() == _HEADER and index + 1 < len(lines):
            found = _FRAME.match(lines[index + 1])
            if found and found["number"] == "1":
                return index
    return -1


def _name(function: str) -> str:
    """A frame's function without its arguments, type parameters or a closure's or keyword sorter's number."""
    name = function.split("(", 1)[0].split("{", 1)[0].strip()
    return _NUMBERED.sub("#", name).strip("#")


def _frames(lines: list[str], start: int) -> list[Frame]:
    frames: list[Frame] = []
    for index, line in enumerate(lines[start + 1 : start + 1 + _FRAME_LINES], start + 1):
        found = _FRAME.match(line)
        if found is None:
            if _PLACE.match(line):
                continue
            break
        place = found["place"] or ""
        module = ""
        following = lines[index + 1] if index + 1 < len(lines) else ""
        below = _PLACE.match(following) if "@ " in following else None
        if below:
            place, module = below["place"], below["module"] or ""
        name = _name(found["function"])
        if name in _NAMELESS or not name:
            continue
        base = module in ("Base", "Core") or bool(_BASE_FILE.search(place))
        if base and _RAISING.match(name):
            continue
        file, _, line_number = place.rpartition(":")
        frames.append(Frame(function=name, file=file, line=int(line_number) if line_number.isdigit() else None))
    return frames


def _error(lines: list[str], start: int) -> str:
    """The error above the stack: an "ERROR:" line, else the first line a type opens (a notebook's), else the
    last line above the header (a test set's, whose message has no type: "LLVM error: …")."""
    above = lines[:start]
    for line in above:
        if "ERROR: " in line:
            found = _ERROR.match(line)
            if found:
                return found["message"].strip()
    typed = next((line.strip() for line in above if ": " in line and _TYPED.match(line.strip())), "")
    return typed or next((line.strip() for line in reversed(above) if line.strip()), "")


def parse(text: str) -> ParsedTrace:
    """The error's type (or its message) and the frames below the first "Stacktrace:"."""
    lines = list(lines_of(text))
    start = _header_at(lines)
    message = _error(lines, start)
    typed = _TYPED.match(message)
    crash_type = typed["type"] if typed else mask_message(message, 160)
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=typed["message"] if typed else message,
        frames=tuple(_frames(lines, start)[:MAX_FRAMES]),
        language="julia",
    )
