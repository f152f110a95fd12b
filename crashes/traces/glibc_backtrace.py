"""glibc's ``backtrace_symbols`` lines, as a program's own crash handler prints them.

``htop(Affinity_set+0x2b)[0x55aed61e2cfb]``: the module, the function and
the offset into it, the address. Programs print these from a signal
handler (htop's "Please include in your report the following backtrace"),
glibc prints them under its own ``*** Error in `jq': corrupted double-linked
list ***`` (older glibc), and Ruby under "C level backtrace information".
A frame of a module built without its symbols says only its offset,
``clangd(+0x823c7f)[0x56292e559c7f]``, or its address, ``jq[0x401d16]``:
the address moves with every run and the offset with every build, so such
frames name nothing.

A handler prints its own frames first, then the C library's signal
trampoline (an unnamed frame of ``libc.so.6`` or ``libpthread.so.0``), then
the frames that crashed: what is above the trampoline is the handler's, the
same in every crash of the program, and is left out. The crash type is the
glibc error's text, else a stack overflow or the signal the text (or the
handler's name, ``CRT_handleSIGSEGV``) names, else none: a report pasted
without the line that named it must still find the bucket of one with it.
Rust's v0 symbols (rustc's own, in its "rustc interrupted by SIGSEGV"
handler's lines) are read by their path (crashes.demangle), without the
build's crate hashes.
"""

from __future__ import annotations

import re

from crashes.demangle import demangle
from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import find_lines, mask_message

FORMAT = "glibc-backtrace"
# Module, then "(function+0xOFF)" or "(+0xOFF)", then " [0xADDR]" (Ruby puts a blank before it, and
# may follow it with the source line). One frame per line, read from its start: no backtracking.
# (A program that sets its process title prints that as its module: "/usr/bin/redis-server 127.0.0.1:6379(…)".)
_FRAME = re.compile(
    # (A process title may end in a role: Redis's "redis-server *:6379 [cluster](raxRemove+0x313)[0x497033]".)
    r"^\s*(?P<module>[^\s()\[\]](?:[^()\[\]\n]{0,300}[^\s()\[\]])?(?: \[[\w-]{1,40}\])?)"
    r"\((?P<function>[A-Za-z_$.][^\s()+]{0,500})?(?:[+-]0x[0-9a-fA-F]{1,16})?\)"
    r" ?\[0x[0-9a-fA-F]{1,16}\]"
)
# Frames it takes to tell a backtrace from a line that happens to look like one.
_MIN_FRAMES = 3
# The C library's modules, whose unnamed frame below a handler's is the signal trampoline (Boost.Stacktrace's
# handlers print it too).
LIBC = re.compile(r"(?:^|/)lib(?:c|pthread)(?:[.-][\w.]*)?\.so(?:\.\d+)*$")
# How far down the trampoline may be: a handler is a frame or two, with backtrace() itself.
_HANDLER_DEPTH = 6
_GLIBC_ERROR = re.compile(
    r"^\*\*\* (?:Error in `[^`\n]{0,300}': )?(?P<error>[^*\n]{1,300}?)(?::? 0x[0-9a-fA-F]+)? \*\*\*"
)
_SIGNALS = (
    # A stack overflow is a SIGSEGV on the guard page; a handler that says so (rustc's "overflowed its
    # stack") names the crash better, and its recursion is then read from its least frame.
    (re.compile(r"(?i)overflowed its stack|stack overflow"), "stack overflow"),
    (re.compile(r"SIGSEGV|Segmentation fault"), "SIGSEGV"),
    (re.compile(r"SIGABRT|\bAborted\b"), "SIGABRT"),
    (re.compile(r"SIGBUS|Bus error"), "SIGBUS"),
    (re.compile(r"SIGFPE|Floating point exception"), "SIGFPE"),
    (re.compile(r"SIGILL|Illegal instruction"), "SIGILL"),
)


def _frames(text: str, limit: int = MAX_FRAMES) -> list[tuple[str, str]]:
    """(module, function) of the backtrace's lines, up to ``limit``; the function is "" for an unnamed frame."""
    return [(match["module"], match["function"] or "") for match in find_lines(text, _FRAME, limit, "[0x")]


def recognize(text: str) -> bool:
    """True for three or more ``module(function+0xOFF)[0xADDR]`` lines."""
    if ")[0x" not in text and ") [0x" not in text:
        return False
    return len(_frames(text, _MIN_FRAMES)) >= _MIN_FRAMES


def _below_handler(frames: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The frames below a crash handler's: after the C library's unnamed frame (the signal trampoline)."""
    for index, (module, function) in enumerate(frames[:_HANDLER_DEPTH]):
        if index and not function and LIBC.search(module):
            return frames[index + 1 :]
    return frames


def _crash_type(text: str, frames: list[tuple[str, str]]) -> tuple[str, str]:
    """(crash type, message): glibc's error, else a signal the text or a handler's name names."""
    error = find_lines(text, _GLIBC_ERROR, 1, "*** ")
    if error:
        said = error[0]["error"].strip()
        return mask_message(said, 160), said
    handler = "\n".join(function for _, function in frames[:_HANDLER_DEPTH])
    for pattern, signal in _SIGNALS:
        if pattern.search(text) or pattern.search(handler):
            return signal, ""
    return "", ""


def parse(text: str) -> ParsedTrace:
    """The frames below the handler's, named ones by their function (unnamed ones name nothing)."""
    frames = _frames(text)
    crash_type, message = _crash_type(text, frames)
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=tuple(
            Frame(function=demangle(function) if function else "", module=module)
            for module, function in _below_handler(frames)
        ),
        language="native",
    )
