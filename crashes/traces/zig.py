"""Zig's panics and stack traces: the Zig compiler's own crashes and any Zig program's.

``thread 14996 panic: reached unreachable code``
``C:\\zig\\src\\codegen\\llvm.zig:4329:60: 0xf2c100 in lowerPtr (zig.exe.obj)``
``            .arr_elem, .comptime_field => unreachable,``
``                                          ^``

Each frame is a location, an address and a function, then the source line
and a caret under the column (skipped). The crash is the panic's message
(``reached unreachable code``, ``index out of bounds: index 5, len 3``,
numbers masked) or the signal Zig's handler reports (``Segmentation fault
at address 0x0``), and the first frames of the program's own code: Zig's
standard library (``lib/std/``: ``debug.assert``, the start code) and the
panic helpers are where every crash passes, not where it happened (unless
the crash is all inside the standard library: a bug of Zig's own). A
function is named with its file (``llvm.lowerPtr``): Zig prints bare
names, and a compiler has many ``genBody``.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines, mask_message

FORMAT = "zig"
_FRAME = re.compile(
    r"^\s*(?P<file>(?:[A-Za-z]:[\\/])?[^\s:][^:]{0,500}?|\?\?\?):(?P<line>\d{1,9}|\?):(?P<column>\d{1,9}|\?): "
    r"0x[0-9a-fA-F]{1,16} in (?P<rest>.{1,1000})$"
)
# "thread 14996 panic: …" (after a test runner's progress on the same line, too), older Zig's bare
# "panic: …", Bun's "panic(main thread): …"; and an error returned from main ("error: FileNotFound").
_PANIC = re.compile(
    r"(?:thread \d{1,12} panic|panic\((?:main thread|thread \d{1,12})\)|^panic): (?P<message>.{1,500})$"
    r"|^error: (?P<error>[A-Z]\w{0,100})$"
)
# The C++ compiler before 0.10 (stage1): "Assertion failed at src/list.hpp:31 in at. This is a bug in the Zig
# compiler.", "unreachable: src/codegen.cpp:gen_const_val_ptr:6455".
_STAGE1 = re.compile(r"^(?P<message>Assertion failed at \S{1,500} in \w{1,200}|unreachable: \S{1,500})")
_SIGNAL = re.compile(
    r"^(?P<message>(?:Segmentation fault|Illegal instruction|Bus error) at address 0x[0-9a-fA-F]{1,16}|"
    r"General protection exception)"
)
# The installed standard library (where an assert or the start code is; not std/zig/, the compiler's
# parser and AstGen since 0.12), its test and build runners, and the compiler's own panic helpers.
_STD_FILE = re.compile(
    r"(?:^|[/\\])lib[/\\](?:zig[/\\])?(?:std[/\\](?!zig[/\\])|compiler_rt[/\\]|"
    r"compiler[/\\](?:test_runner|build_runner)\.zig$)"
)
# A generic function's instance is numbered per build: spawn__anon_52284.
_ANONYMOUS_INSTANCE = re.compile(r"__anon_\d+")
_HELPERS = frozenset(
    {"assert", "panic", "panicExtra", "defaultPanic", "stage2_panic", "zig_panic", "zig_assert", "zig_unreachable"}
)


def recognize(text: str) -> bool:
    """True for two or more Zig frame lines (``file.zig:12:5: 0x… in f (module)``), or one after a Zig panic."""
    if ": 0x" not in text or " in " not in text:
        return False
    frames = find_lines(text, _FRAME, 8, ": 0x")
    if not frames:
        return False
    # A build without debug info names no file ("???:?:?: 0x… in _Compilation.update (???)"): the panic says Zig.
    panicked = bool(find_lines(text, _PANIC, 1, "panic"))
    if panicked:
        return True
    return len(frames) >= 2 and any(frame["file"].endswith(".zig") for frame in frames)


def _frame(found: re.Match) -> Frame | None:
    rest = found["rest"].rstrip()
    # "f (module)", read from the end: a test's name has blanks ("test.add handles big numbers (test)").
    opening = rest.rfind(" (")
    if opening <= 0 or not rest.endswith(")"):
        return None
    function, module = _ANONYMOUS_INSTANCE.sub("", rest[:opening]), rest[opening + 2 : -1]
    # Blanks in a test's name would read as a return type before a C++ name.
    function = function.replace(" ", "_")
    file = found["file"]
    stem = re.split(r"[/\\]", file)[-1].rsplit(".", 1)[0]
    if "." not in function and stem and function != "???" and file.endswith(".zig"):
        function = f"{stem}.{function}"
    return Frame(
        function="" if function == "???" else function,
        file="" if file == "???" else file,
        line=int(found["line"]) if found["line"].isdigit() else None,
        module=module,
    )


def _is_helper(frame: Frame) -> bool:
    return frame.function.rsplit(".", 1)[-1] in _HELPERS


def _is_library(frame: Frame) -> bool:
    return bool(_STD_FILE.search(frame.file))


def parse(text: str) -> ParsedTrace:
    """The panic (or signal) and the first stack after it."""
    lines = text.split("\n")
    message = ""
    start = 0
    for index, line in enumerate(lines):
        line = line[:MAX_LINE].rstrip()
        said = (
            (_PANIC.search(line) if "panic" in line or line.startswith("error: ") else None)
            or (_SIGNAL.match(line) if " at address " in line or "General protection" in line else None)
            or (_STAGE1.match(line) if "ssertion failed at" in line or "unreachable: " in line else None)
        )
        if said:
            said = said.groupdict()
            message, start = (said["message"] or said.get("error") or "").strip(), index + 1
            break
    frames: list[Frame] = []
    for line in lines[start:]:
        if ": 0x" not in line:
            continue  # a frame's source line, its caret, a blank
        found = _FRAME.match(line[:MAX_LINE])
        frame = _frame(found) if found else None
        if frame is not None:
            frames.append(frame)
        elif frames:
            break
    frames = [frame for frame in frames if not _is_helper(frame)]
    # A crash inside the standard library itself (a bug of Zig's own std) keeps its frames there.
    own = [frame for frame in frames if not _is_library(frame)] or frames
    return ParsedTrace(
        format=FORMAT,
        crash_type=mask_message(message, 160) if message else "",
        message=message,
        frames=tuple(own),
        language="native",
    )
