"""lldb's backtraces (``bt``): macOS's debugger, and LLVM's, Swift's and Xcode's developers'.

``* thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x0)``
``  * frame #0: 0x0000000100003f3c a.out`foo(x=0) at main.c:3:5``
``    frame #1: 0x00007ff81a4f2366 libsystem_c.dylib`abort + 123``
``    frame #8: 0x0000000000402c19 binaryen-shell``

Each frame is a module, a backtick and the function (with its arguments'
values when lldb has debug information, with `` + offset`` when it has
only the symbol), then ``at file:line:column``. The crash is the thread
lldb stopped in (marked ``*``) and its stop reason, a Mach exception
(``EXC_BAD_ACCESS``) or a signal, named without its addresses; a C or
LLVM assertion, or an ``LLVM ERROR``, printed above the backtrace names it
better, and is then read as LLVM's parser reads it (format ``llvm``), so
that one assertion debugged in lldb and reported from its stack dump share
a bucket. Frames above the signal trampoline (``_sigtramp``,
``__restore_rt``) are a crash handler's when one of them reports.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces import llvm
from crashes.traces.native_frames import HANDLER_DEPTH, is_handlers
from crashes.traces.text import MAX_LINE, find_lines, mask_message

FORMAT = "lldb"
_FRAME = re.compile(r"^\s*(?:\* )?frame #(?P<index>\d{1,6}): 0x[0-9a-fA-F]{1,16}(?: (?P<rest>.{1,2000}))?$")
_THREAD = re.compile(r"^\s*(?P<selected>\* )?thread #(?P<number>\d{1,6})\b")
_EXCEPTION = re.compile(r"^(?P<kind>EXC_[A-Z_]{1,40})\b")
_SIGNAL = re.compile(r"^signal (?P<signal>SIG[A-Z]{2,10})\b")
_LOCATION = re.compile(r" at (?P<file>[^\s:]{1,300}):(?P<line>\d{1,9})(?::\d{1,9})?$")
_OFFSET = re.compile(r" \+ \d{1,12}$")
# A stack that starts in these aborted (with no stop reason pasted to say so).
_ABORTING = re.compile(r"^(?:raise|abort|gsignal|pthread_kill|__pthread_kill)$")
# The signal trampoline, as macOS's and glibc's C libraries name it.
_TRAMPOLINES = frozenset({"_sigtramp", "__restore_rt"})
# lldb marks an optimized build's frames and the compiler's artificial ones after their location.
_MARKS = re.compile(r"(?: \[(?:opt|artificial)\])+$")
# Frames read at most: the signature reads far fewer, and a hostile paste may hold a million.
_MOST_FRAMES = 4 * MAX_FRAMES
# Frames it takes to tell a backtrace from a line quoting one.
_MIN_FRAMES = 2


def recognize(text: str) -> bool:
    """True for two or more lldb frame lines (``frame #0: 0x… module`f``), or one under lldb's thread line."""
    if "frame #" not in text:
        return False
    frames = find_lines(text, _FRAME, _MIN_FRAMES, "frame #")
    return len(frames) >= _MIN_FRAMES or (bool(frames) and "stop reason = " in text)


def _frame(rest: str | None) -> Frame:
    """``module`function(args) + 12 at file.c:3:5`` as a frame."""
    if not rest:
        return Frame(function="")
    module, tick, called = rest.partition("`")
    if not tick:
        # Older lldb put a blank between the module and the function: "app main_uF9b + 239 at t01.nim:6".
        module, _, called = rest.partition(" ")
        if not called:
            return Frame(function="", module=module.strip())
    file, line = "", None
    called = _MARKS.sub("", called.rstrip())
    located = _LOCATION.search(called)
    if located:
        file, line, called = located["file"], int(located["line"]), called[: located.start()]
    called = _OFFSET.sub("", called.removeprefix("[inlined] ").strip())
    if called.startswith("___lldb_unnamed_symbol") or called == "???":
        called = ""  # lldb's name for an address no symbol covers: it moves with every build
    return Frame(function=llvm.function_name(called), file=file, line=line, module=module.strip())


def _stack(text: str) -> tuple[str, list[Frame]]:
    """The stop reason and frames of the thread lldb selected (marked ``*``), else of the first printed.

    lldb prints a stopped thread with its top frame, then ``bt`` prints it again whole: of one thread
    printed more than once, the longest printing counts.
    """
    printings: list[tuple[int | None, bool, str, list[Frame]]] = [(None, False, "", [])]
    read = 0
    for line in text.split("\n"):
        line = line[:MAX_LINE]
        thread = _THREAD.match(line) if "thread #" in line else None
        if thread:
            reason = line.partition("stop reason = ")[2].strip()
            printings.append((int(thread["number"]), bool(thread["selected"]), reason, []))
            continue
        found = _FRAME.match(line) if "frame #" in line else None
        if found and read < _MOST_FRAMES:
            printings[-1][3].append(_frame(found["rest"]))
            read += 1
    printed = [printing for printing in printings if printing[3] or printing[2]]
    if not printed:
        return "", []
    number, _, reason, _ = next((printing for printing in printed if printing[1]), printed[0])
    same = [printing for printing in printed if printing[0] == number] if number is not None else printed[:1]
    frames = max((printing[3] for printing in same), key=len)
    reason = next((printing[2] for printing in same if printing[2]), reason)
    return reason, _below_handler(frames[:MAX_FRAMES])


def _below_handler(frames: list[Frame]) -> list[Frame]:
    """The frames below the signal trampoline when those above it are a crash handler's."""
    trampoline = next(
        (i for i, frame in enumerate(frames[: HANDLER_DEPTH + 1]) if frame.function in _TRAMPOLINES), None
    )
    if trampoline is not None and is_handlers(frames[:trampoline]):
        return frames[trampoline + 1 :]
    return frames


def _crash_type(reason: str, frames: list[Frame]) -> str:
    """The stop reason without its addresses; with none pasted, an abort when the stack starts in one."""
    exception = _EXCEPTION.match(reason)
    if exception:
        return exception["kind"]
    signal = _SIGNAL.match(reason)
    if signal:
        return signal["signal"]
    if reason:
        return mask_message(reason, 160)
    return "SIGABRT" if any(_ABORTING.match(frame.function) for frame in frames[:4]) else "unknown"


def parse(text: str) -> ParsedTrace:
    """The selected thread's stop reason and frames; an assertion printed above them names the crash."""
    reason, frames = _stack(text)
    if llvm.recognize(text):
        said = llvm.parse(text)
        if said.format == llvm.FORMAT and said.message:
            return ParsedTrace(
                format=llvm.FORMAT,
                crash_type=said.crash_type,
                message=said.message,
                frames=tuple(frames) or said.frames,
                language="native",
                site=said.site,
                repairs=said.repairs,
            )
    return ParsedTrace(format=FORMAT, crash_type=_crash_type(reason, frames), frames=tuple(frames), language="native")
