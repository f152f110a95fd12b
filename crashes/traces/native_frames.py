"""Frame lines shared by sanitizer, libFuzzer and LLVM symbolizer output.

``    #3 0x4f3c2a in png_read_row /src/libpng/pngread.c:123:5``
``    #4 0x7f8e1ae7fc86 in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x21c86)``
``    #5 0x5567506cb5e9  (/usr/bin/clang+0x2c4e5e9)``
``  #0 0x000055d2e1f3b2a8 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x2c4e2a8)``
"""

from __future__ import annotations

import re

from crashes.model import Frame
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import MAX_LINE

# ThreadSanitizer leaves the address out: "#0 xmalloc /sol/src/util.c:198 (sol+0x45b8e7)".
# Greedy `rest` and the module found with rfind, not a lazy pattern: LLVM
# stack dumps have 300-character lines, and lazy matching made this the
# slowest step of bucketing.
FRAME = re.compile(r"^\s*#(?P<index>\d+)\s+(?:0x[0-9a-fA-F]+\s*)?(?:in\s+)?(?P<rest>.*)")
_CUT_ADDRESS = re.compile(r"^(?:0x)?[0-9a-fA-F]{0,16}$")
_MODULE = re.compile(r"\((?P<module>[^()\s]*?)(?:\+0x[0-9a-fA-F]+)\)$")
# The module in square brackets, as some symbolizers print it: "f(int) [libLLVM-14.so.1+0xe9e4dc]" (an address
# with "@" where the module has no file: "[linux-vdso.so.1@0x7fa95497b0]").
_BRACKETED_MODULE = re.compile(r" \[(?P<module>[^\[\]\s]{1,300}?)(?:\+|@)0x[0-9a-fA-F]+\]$")
_SOURCE = re.compile(r"^(?P<file>\S+?):(?P<line>\d+)(?::\d+)?$")
# A source file named without a line ("cxa_noexception.cpp"), as libFuzzer's
# own frames are printed.
_BARE_FILE = re.compile(r"^\S+\.(?:c|cc|cpp|cxx|h|hh|hpp|inc|rs|go|m|mm|s|S)$")


def parse_frame(line: str) -> Frame | None:
    """Parse one ``#N 0x...`` frame line, or return None if it is not one."""
    if "#" not in line:
        return None
    match = FRAME.match(line[:MAX_LINE])
    if not match:
        return None
    rest = match["rest"].rstrip()
    module = ""
    if rest.endswith(")"):
        opening = rest.rfind("(")
        trailing = _MODULE.match(rest, opening) if opening != -1 else None
        if trailing:
            module, rest = trailing["module"], rest[:opening].rstrip()
    elif rest.endswith("]"):
        bracketed = _BRACKETED_MODULE.search(rest[-320:])
        if bracketed:
            module, rest = bracketed["module"], rest[: len(rest) - len(bracketed[0])].rstrip()
    if _CUT_ADDRESS.match(rest):
        return Frame(function="")  # "#0 0" / "#0 0x7f44": the line was cut inside its address
    if rest.startswith("(") and not rest.startswith("(anonymous namespace)"):
        # "#5 0x55d2… (/usr/bin/clang+0x2c4e5e9)" cut before its closing parenthesis: no name.
        return Frame(function="", module=rest.strip("()"))
    function, _, location = rest.rpartition(" ")
    source = _SOURCE.match(location)
    if source and not location.endswith(")"):
        return Frame(function=function.strip(), file=source["file"], line=int(source["line"]), module=module)
    if (location.startswith("/") or _BARE_FILE.match(location)) and function:
        return Frame(function=function.strip(), file=location, module=module)
    called = _GDB_CALL.match(rest)
    if called:
        # gdb's "f (arg=0x1, s=\"a b\", …" whose arguments run on to the next lines: the name is f.
        return Frame(function=called["function"], module=module)
    return Frame(function=rest.strip(), module=module)


# gdb prints a call as "name (args…) at file:line"; its arguments may hold blanks, quotes and parentheses.
_GDB_CALL = re.compile(r"^(?P<function>[A-Za-z_][\w:<>~.]{0,300}) \([\w*&]{1,60}=")


# How a whole frame line ends: its module "(…+0x1a)", a call's ")", a source "file.c:12" or "file.c:12:5".
_WHOLE_FRAME_END = re.compile(r"(?:\)|:\d+(?::\d+)?)\s*$")
# What tells a rest with blanks in it from a sentence: code's punctuation.
_CODE = re.compile(r"::|[()/*&<>]")
# A long C++ frame wrapped by a mail client at 72 columns runs to four or five lines.
_MOST_PIECES = 6
# A frame cut before its function, at any width (a mail client wraps at a word): "#1 0x41da34 in".
_NAMELESS = re.compile(r"#\d+\s+(?:0x[0-9a-fA-F]+\s+)?in\s*$")


def _cut_rest(frame_line: str, line: str) -> bool:
    """True when ``line`` is the rest of ``frame_line``, a frame a terminal cut.

    The frame is as long as a terminal is wide (or stops at "in", before its function) and
    does not end as a frame ends; the rest starts at column 0 (or after the one blank or tab
    the cut fell on), is no frame of its own, and is a piece of code, not a sentence.
    """
    rest = line.strip()
    return (
        (len(frame_line) >= MIN_WRAP_WIDTH or _NAMELESS.search(frame_line[-40:]) is not None)
        and not _WHOLE_FRAME_END.search(frame_line[-40:])
        and bool(rest)
        and (not line[:1].isspace() or not line[1:2].isspace())
        and not rest.startswith("#")
        # One piece of a name or a path, or code ("void*, __sanitizer::Trace*) /tmp/…"); never
        # prose after the stack ("The poc file is attached.").
        and (" " not in rest or _CODE.search(rest) is not None)
    )


def first_stack(lines: list[str], start: int = 0) -> tuple[tuple[Frame, ...], int]:
    """The first run of ``#N`` frames at or after ``start``; return it and where it ended.

    A frame a terminal or mail client cut is read with its rest (:func:`_cut_rest`).
    """
    frames: list[Frame] = []
    index = start
    last = ""  # the last frame's line, as joined so far
    pieces = 0  # lines joined to it: a hostile text of a frame and a million lines is read once
    while index < len(lines):
        frame = parse_frame(lines[index])
        if frame is not None:
            frames.append(frame)
            last, pieces = lines[index][:MAX_LINE], 0
        elif frames and pieces < _MOST_PIECES and _cut_rest(last, lines[index]):
            pieces += 1
            # "#0 0x7f2 in __interceptor_memmove …/sanitizer_common_intercepto" / "rs.inc:773"
            # A cut before the function fell on the blank after "in", which went with the line's end.
            blank = " " if _NAMELESS.search(last[-40:]) else ""
            last = (last + blank + lines[index])[:MAX_LINE]
            frames[-1] = parse_frame(last) or frames[-1]
        elif frames:
            break
        index += 1
    return tuple(frames), index


# A crash handler's frames, above the signal trampoline: a crash reporter (KCrash::defaultCrashHandler,
# segv_handler, TUnixSystem::DispatchSignals, sighandler_dump_stack), or the C library's calls it
# makes (waitpid for the debugger it started, system, raise, backtrace), or frames without symbols.
# A signal handler that itself crashed (an alarm's) has none of these above it: its frames are the crash.
_HANDLER_FRAME = re.compile(
    r"(?i)crash|signal|sig_?handler|segv|abort|raise|waitpid|^system$|backtrace|stack_?trace|dump|"
    r"__kernel_vsyscall|pthread_kill|^\?{2,3}$|^$"
)
# How deep a handler's frames go: the handler, the reporter it calls, the C library's calls.
HANDLER_DEPTH = 12


def is_handlers(frames: list[Frame]) -> bool:
    """Whether ``frames``, all above a signal trampoline, are a crash handler's (not a crash's own)."""
    return 0 < len(frames) <= HANDLER_DEPTH and any(_HANDLER_FRAME.search(frame.function) for frame in frames)
