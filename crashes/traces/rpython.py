"""RPython's fatal errors: PyPy's JIT and runtime (and any RPython-built VM) failing an internal check.

``RPython traceback:``
``  File "rpython_jit_metainterp_optimizeopt.c", line 31592, in UnrollOptimizer_optimize_bridge``
``  File "rpython_jit_metainterp_optimizeopt_2.c", line 17385, in Optimizer__maybe_replace_guard_value``
``Fatal RPython error: AssertionError``

It looks like a Python traceback and is none: its files are the C that
RPython generated, split into numbered parts (``…_optimizeopt_2.c``) and
renumbered with every build, and its lines are lines of that C. The crash
is the error's class and the functions, innermost last as Python prints
them; a function's name is RPython's own (the class and method:
``Optimizer_emit``) without the suffix a specialisation adds
(``maybe_compile_and_run__star_5_1``, ``jump_absolute__AccessDirect_None``).
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import NAME_REST, find_lines, join_cut_lines, lines_after

FORMAT = "rpython"
_HEADER = "RPython traceback:"
# '  File "rpython_jit_metainterp_warmstate.c", line 16217, in execute_assembler__star_2_2' (or unindented).
_FRAME = re.compile(
    r'^\s{0,8}File "(?P<file>[^"\n]{1,300}\.c)", line (?P<line>\d{1,9}), in (?P<function>\w{1,300})\s*$'
)
_FATAL = re.compile(r"^\s{0,8}Fatal RPython error: (?P<error>\w{1,200})")
# What a specialisation appends: "__star_5_1" (a *args arity), "__AccessDirect_None" (a virtualizable's
# access), "__rpython_jit_…" (the defining module, cut). Not every "__": "Optimizer__maybe_replace…" is a
# class's private method.
_SPECIALISED = re.compile(r"__(?:star_\d+(?:_\d+)*|Access[A-Za-z]*_\w*|rpython_\w*|pypy_\w*)$")
# Lines read below the header at most.
_FRAME_LINES = 4 * MAX_FRAMES


def recognize(text: str) -> bool:
    """True for RPython's traceback header with a frame of generated C below it."""
    return _HEADER in text and _frames(text) != []


def _frames(text: str) -> list[Frame]:
    """The frames below the first header, innermost last as printed."""
    frames = []
    for line in _join_cut_frames(lines_after(text, text.find("\n", text.find(_HEADER)), _FRAME_LINES)):
        found = _FRAME.match(line)
        if found is None:
            if frames:
                break
            continue
        function = _SPECIALISED.sub("", found["function"])
        frames.append(Frame(function=function, file=found["file"], line=int(found["line"])))
    return frames


def _join_cut_frames(lines: list[str]) -> list[str]:
    """Frame lines a terminal's width cut joined back: an RPython frame has no source line below it,
    so a bare name under a frame as wide as a terminal is the rest of its function's name ("Aborted"
    under a short one is not), and a ``File "`` line that is no frame goes on in the lines below until
    it is one."""
    lines, _ = join_cut_lines(
        lines,
        lambda line: len(line) >= MIN_WRAP_WIDTH and bool(_FRAME.match(line)),
        lambda joined, following: True,
        goes_on=lambda line: bool(NAME_REST.fullmatch(line)),
        most=1,
    )
    lines, _ = join_cut_lines(
        lines,
        lambda line: 'File "' in line and not _FRAME.match(line),
        lambda joined, following: bool(_FRAME.match(joined)),
    )
    return lines


def parse(text: str) -> ParsedTrace:
    """The fatal error's class and the frames, innermost first."""
    fatal = find_lines(text, _FATAL, 1, "Fatal RPython error: ")
    return ParsedTrace(
        format=FORMAT,
        crash_type=fatal[0]["error"] if fatal else "",
        frames=tuple(reversed(_frames(text)))[:MAX_FRAMES],
        language="rpython",
    )
