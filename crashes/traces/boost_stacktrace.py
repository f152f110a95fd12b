"""Boost.Stacktrace's frames, as a C++ program's own crash handler prints them.

`` 8# `anonymous namespace'::updateTrackerEntry at g:\\src\\torrentimpl.cpp:159``
`` 3# BitTorrent::TorrentImpl::refreshTrackerEntries() const in qbittorrent``
`` 2# 0x00007F6C730B0510 in /lib64/libc.so.6``

``N# `` then the function and where it is: its source line (``at F:L``, a build
with debug information), its module (``in M``), or only an address. Many C++
programs print ``boost::stacktrace::stacktrace()`` from a signal handler
(qBittorrent's "Caught signal: SIGSEGV", game servers, trading engines), so
the stack starts with the handler's own frames, then the signal's way in (on
Linux the C library's unnamed trampoline, on Windows the system's exception
dispatch, KiUserExceptionDispatcher), then the frames that crashed. What is
above the way in, when it is a handler's (crashes.traces.native_frames), is
the same in every crash of the program and is left out. The crash type is
the signal the text names.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.glibc_backtrace import LIBC
from crashes.traces.native_frames import HANDLER_DEPTH, is_handlers
from crashes.traces.text import find_lines

FORMAT = "boost-stacktrace"
# "N# what", what read from the end: " at F:L" or " in M" after the name (a name holds blanks: "non-virtual
# thunk to f() const"). Matched from the line's start, its pieces bounded: no backtracking along a long line.
_FRAME = re.compile(r"^\s{0,8}(?P<index>\d{1,4})# (?P<what>\S.{0,2000})$")
_AT_SOURCE = re.compile(r" at (?P<file>[^\s:]{1,500}(?::[\\/][^:]{1,500})?):(?P<line>\d{1,9})$")
_IN_MODULE = re.compile(r" in (?P<module>\S{1,500})$")
# A line cut inside its source's path ("… at g:\\qbittorrent\\src\\torre"): the name is whole.
_AT_CUT_PATH = re.compile(r" at (?:[A-Za-z]:)?[\\/]?[^\s:]{0,500}[\\/][^\s:]{0,500}$")
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{1,16}$")
# Frames it takes to tell a stack from a line that happens to look like one ("1# of 3").
_MIN_FRAMES = 3
# Windows' dispatch of an exception to the handler (on Linux, the C library's trampoline: glibc_backtrace.LIBC).
_WINDOWS_DISPATCH = "KiUserExceptionDispatcher"
_SIGNAL = re.compile(r"\b(SIG(?:SEGV|ABRT|BUS|FPE|ILL|TRAP))\b")


def _frames(text: str, limit: int = MAX_FRAMES) -> list[Frame]:
    frames = []
    for match in find_lines(text, _FRAME, limit, "# "):
        what = match["what"].rstrip()
        source, module = _AT_SOURCE.search(what), _IN_MODULE.search(what)
        if source:
            name, file, line = what[: source.start()], source["file"], int(source["line"])
            frames.append(Frame(function=name.strip(), file=file.replace("\\", "/"), line=line))
        elif module:
            name = what[: module.start()].strip()
            frames.append(Frame(function="" if _ADDRESS.match(name) else name, module=module["module"]))
        else:
            cut = _AT_CUT_PATH.search(what)
            name = what[: cut.start()] if cut else what
            frames.append(Frame(function="" if _ADDRESS.match(name) else name))
    return frames


def recognize(text: str) -> bool:
    """True for three or more ``N# …`` frame lines numbered one after another (a paste may start past 0)."""
    if "# " not in text:
        return False
    found = find_lines(text, _FRAME, _MIN_FRAMES, "# ")
    return len(found) >= _MIN_FRAMES and [int(m["index"]) for m in found] == list(
        range(int(found[0]["index"]), int(found[0]["index"]) + _MIN_FRAMES)
    )


def _below_handler(frames: list[Frame]) -> list[Frame]:
    """The frames below a crash handler's: after the signal's way in (the trampoline, or Windows' dispatch), where
    the frames above it are a handler's (a terminate handler's stack passes an unnamed C library frame too)."""
    for index, frame in enumerate(frames[: HANDLER_DEPTH + 1]):
        way_in = frame.function == _WINDOWS_DISPATCH or (index and not frame.function and LIBC.search(frame.module))
        if way_in and is_handlers(frames[:index]):
            return frames[index + 1 :]
    return frames


def parse(text: str) -> ParsedTrace:
    """The frames below the handler's; the crash type is the signal the text names, if it names one."""
    signal = _SIGNAL.search(text[:4096])
    return ParsedTrace(
        format=FORMAT,
        crash_type=signal.group(1) if signal else "",
        message="",
        frames=tuple(_below_handler(_frames(text))),
        language="native",
    )
