"""Breakpad's minidump reports (``minidump_stackwalk``): Firefox's, Electron's, Chromium's and games' crashes.

``Crash reason:  SIGSEGV /SEGV_MAPERR``
``Thread 0 (crashed)``
`` 0  libxul.so!mozilla::dom::Element::GetAttr(int, nsAtom*) const [Element.cpp:2345 + 0x4]``
``    rax = 0x0000000000000000   rdx = 0x00007ffd5a3b1c40``
``    Found by: given as instruction pointer in context``
`` 1  XUL!ReceivePort::WaitForMessage(unsigned int) [mach_ipc_mac.mm:9519a92 : 237 + 0xf]``
`` 2  phantomjs + 0x1adbe28``

The crash is the reason Breakpad read from the dump (a signal, or a
Windows or Mach exception, without its sub-code) and the frames are the
thread marked ``(crashed)``, each ``module!function`` with its source; a
frame without its symbol (``module + 0xOFFSET``) names nothing, its offset
moving with every build.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.llvm import function_name
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "breakpad"
# "Thread 0 (crashed)"; rust-minidump names the thread: "Thread 0 main (crashed) - tid: 4242", "Thread 38  (crashed)".
_CRASHED = re.compile(r"^Thread \d{1,6}\b[^()\n]{0,200}\(crashed\)")
_THREAD = re.compile(r"^Thread \d{1,6}\b")
_REASON = re.compile(r"^Crash reason:\s+(?P<reason>\S{1,100})")
# " 0  libxul.so!f(int) [Element.cpp:2345 + 0x4]", " 2  phantomjs + 0x1adbe28": an index, blanks, a module.
_FRAME = re.compile(r"^ {0,3}(?P<index>\d{1,5}) {1,4}(?P<rest>\S.{0,2000})$")
_OFFSET = re.compile(r" \+ 0x[0-9a-fA-F]{1,16}$")
_SOURCE = re.compile(
    r" \[(?P<file>[^\]\s:]{1,300})(?::[0-9a-fA-F]{1,64})? : (?P<line>\d{1,9}) \+ 0x[0-9a-fA-F]{1,16}\]$"
)


def recognize(text: str) -> bool:
    """True for a thread marked "(crashed)" by minidump_stackwalk, with frame lines under it."""
    if "(crashed)" not in text:
        return False
    return bool(find_lines(text, _CRASHED, 1, "(crashed)")) and bool(_crashed_frames(text, 1))


def _frame(rest: str) -> Frame:
    module, bang, called = rest.partition("!")
    if not bang:
        return Frame(function="", module=_OFFSET.sub("", rest).strip())
    file, line = "", None
    source = _SOURCE.search(called)
    if source:
        file, line, called = source["file"], int(source["line"]), called[: source.start()]
    called = _OFFSET.sub("", called.strip())
    return Frame(function=function_name(called), file=file, line=line, module=module.strip())


def _crashed_frames(text: str, limit: int) -> list[Frame]:
    """The frames of the thread marked "(crashed)", up to ``limit``."""
    lines = iter(text.split("\n"))
    if not any(line.startswith("Thread ") and _CRASHED.match(line) for line in lines):
        return []
    frames: list[Frame] = []
    previous = 0  # the last frame line's length
    for line in lines:
        if line.startswith("Thread ") and _THREAD.match(line):
            break  # the next thread's stack
        found = _FRAME.match(line[:MAX_LINE])
        if found is None:
            if line[:1].isspace() or not line.strip():
                continue  # a frame's registers, how it was found
            if previous >= MIN_WRAP_WIDTH:
                continue  # the rest of a frame line a mail client or terminal wrapped
            break
        previous = len(line)
        frames.append(_frame(found["rest"].rstrip()))
        if len(frames) >= limit:
            break
    return frames


def _crash_type(text: str) -> str:
    """The reason without its sub-code: ``SIGSEGV /SEGV_MAPERR`` -> ``SIGSEGV``."""
    reason = find_lines(text, _REASON, 1, "Crash reason:")
    return reason[0]["reason"] if reason else "unknown"


def parse(text: str) -> ParsedTrace:
    """The crash reason and the crashed thread's frames."""
    frames = _crashed_frames(text, MAX_FRAMES)
    return ParsedTrace(format=FORMAT, crash_type=_crash_type(text), frames=tuple(frames), language="native")
