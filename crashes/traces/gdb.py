"""gdb backtraces (``bt``), as pasted from a debugging session or a core dump.

Also systemd-coredump's and eu-stack's form, as ``coredumpctl info`` prints
it into distributions' bug reports: ``Signal: 11 (SEGV)``, ``Stack trace of
thread N:`` and ``#0  0x000000000047ed31 set_ref_in_item (nvim + 0x7ed31)``
(``n/a`` where the function is unknown).

``#0  0x00007ffff7a42428 in __GI_raise (sig=sig@entry=6) at ../sysdeps/unix/sysv/linux/raise.c:54``
``#3  0x0000555555554abc in main () at test.c:10``
Of several threads ("thread apply all bt") the crash is the one a crash
handler ran in, else the one gdb names as current, else the first printed;
a handler's frames, above the ``<signal handler called>`` frame or replaced
by DrKonqi's ``[KCrash Handler]``, are not the crash's.
The crash type is the signal gdb reported; without one, a stack that
starts in raise/abort/pthread_kill is an abort (SIGABRT). An abort from
glibc's assert is the assertion: gdb prints its text and function among
``__assert_fail_base``'s arguments, which is how the same assertion
reported by the program itself (or by macOS) is keyed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.llvm import ANONYMOUS, ANONYMOUS_TOKEN, function_name
from crashes.traces.native_frames import is_handlers
from crashes.traces.text import MAX_LINE, lines_after, per_text

FORMAT = "gdb"
_FRAME = re.compile(
    # (A C++ function without debug information is printed with its parameter types and no arguments:
    # "smt::theory_bv::merge_eh(int, int) () from libz3.so", "f(int) [clone .constprop.171] () from …".)
    # (A program's own handler printing through libbacktrace pads it and glues the parentheses to the name:
    # "#3  0x559e…      in  f() at src/a.c:429".)
    r"^#\s?(?P<index>\d+)\s+(?:0x[0-9a-fA-F]+\s{1,12}in\s{1,4})?"
    r"(?P<function>[^\s(]+(?:\([^()\n]{0,500}\)(?: const)?(?: \[clone [^\]\n]{1,100}\])*(?= \(\)| \((?:this|\w+)=))?)"
    r"(?: \((?P<args>.*?)\)|\(\)(?= at ))"
    # (Newer gdb says "at /lib64/libc.so.6" for a library without debug information, as older said "from".)
    r"(?: at (?P<file>\S+?):(?P<line>\d+)| (?:from|at) (?P<module>\S+))?\s*$"
)
_COREDUMP_FRAME = re.compile(
    r"^#(?P<index>\d+)\s+0x[0-9a-fA-F]+ (?P<function>[^\s(]+) \((?P<module>[^\s()+]+)(?: \+ 0x[0-9a-fA-F]+)?\)\s*$"
)
_SIGNAL = re.compile(
    r"(?:Program (?:received|terminated with) signal|Thread \d+ .{0,200}? received signal) (?P<signal>SIG\w+)"
    r"|^\s*Signal: \d+ \((?P<coredump>[A-Z]+)\)"
)
_ABORTING = re.compile(r"(raise|abort|pthread_kill)")
# A frame "named" by its address is no call: "#0 0x561dcb863463 (/tmp/app+0x4d1b462)" (Chromium's).
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+$")
# glibc's __assert_fail(_base) arguments, as gdb prints them: the string after each pointer.
_ASSERTION_ARG = re.compile(r'assertion=(?:assertion@entry=)?0x[0-9a-fA-F]+ "(?P<expr>(?:[^"\\\n]|\\.){1,1000})"')
_FUNCTION_ARG = re.compile(
    r'function=(?:function@entry=)?0x[0-9a-fA-F]+(?: <[^<>\n]{0,200}>)? "(?P<function>[^"\n]{1,500})"'
)
# glibc's allocator aborting on a corrupted heap: its message is malloc_printerr's argument
# ("malloc_printerr (str=0x7fa4e829ac52 \"corrupted double-linked list\")"), what the program printed.
_MALLOC_MESSAGE = re.compile(r'\bstr=(?:str@entry=)?0x[0-9a-fA-F]+ "(?P<message>[^"\\\n]{1,200})"')
# gdb wraps a frame whose arguments run long onto indented lines.
_MAX_WRAPPED = 6
# A crash handler's frames sit above the frame gdb prints for the kernel's signal trampoline
# ("#4  <signal handler called>", newer gdb "#2  0x… in <signal handler called> () at /lib64/libc.so.6");
# KDE's DrKonqi replaces them with a line of its own. What is above is the handler's (a wait for the
# debugger it started, its backtrace call), the same in every crash of the program.
_TRAMPOLINE = re.compile(r"^#\s?\d+\s+(?:0x[0-9a-fA-F]+\s{1,12}in\s{1,4})?<signal handler called>")
_KCRASH = "[KCrash Handler]"
# "thread apply all bt": each thread's header; gdb names the thread it stopped in (a core's: the one that crashed).
_THREAD = re.compile(r"^Thread (?P<number>\d+) \(")
_CURRENT = re.compile(r"^\[Current thread is (?P<number>\d+) ")


def recognize(text: str) -> bool:
    """True for gdb ``bt`` output, or gdb's report of where a signal stopped the program."""
    if "#" not in text:
        return _stop_frame(text) is not None
    frames = sum(1 for line in _joined_lines(text) if line.startswith("#") and _frame(line[:MAX_LINE]))
    # Two frames are enough when the head ("#0", the signal) was cut off.
    return (
        frames >= 2
        or (frames == 1 and ("#0  " in text or "(gdb)" in text or bool(_signal(text))))
        or (frames == 0 and _stop_frame(text) is not None)
    )


# Where gdb says a signal stopped the program, on the line after "Program received signal SIGSEGV, …":
# "0x00005555555551a9 in foo (p=0x0) at t.c:3" or, at a line's start, "XDisplayString (dpy=0x0) at Macros.c:119".
# Pasted without `bt`, it is the crash's innermost frame. A C++ name may start in an anonymous namespace,
# and gdb puts a long line's "at file:line" on the next line.
_STOP = re.compile(
    r"^(?:0x[0-9a-fA-F]{1,16} in )?"
    r"(?P<function>(?:\(anonymous namespace\)::){0,8}[A-Za-z_~][\w:~<>.$@]{0,300}) \((?P<args>[^\n]{0,1000})\)"
    # (A line a terminal cut inside its path keeps the name: "… at Transmission/libtransmissi".)
    r"(?: at (?P<file>\S+?)(?::(?P<line>\d+))?| from (?P<module>\S+))?\s*$"
)
_STOP_AT = re.compile(r"^\s{1,12}at (?P<file>\S+?):(?P<line>\d+)\s*$")
_RECEIVED = re.compile(r"(?:Program|Thread \d+ .{0,200}?) received signal SIG\w+")
# Lines gdb may print between the signal and the stop: "[Switching to Thread 0x7ffff7d8a740 (LWP 3)]".
_STOP_LOOKAHEAD = 3


# Notices looked at: prose may say "received signal SIGSEGV" before gdb does.
_MOST_NOTICES = 8


def _stop_frame(text: str) -> Frame | None:
    """The frame gdb printed where a signal stopped the program, or None."""
    at = text.find(" received signal SIG")
    for _ in range(_MOST_NOTICES):
        if at == -1:
            return None
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end == -1:
            return None
        if _RECEIVED.match(text[start:end][:MAX_LINE]):
            following = lines_after(text, end, _STOP_LOOKAHEAD + 1)
            for index, line in enumerate(following[:_STOP_LOOKAHEAD]):
                found = _STOP.match(line[:MAX_LINE].strip())
                if found:
                    place = found if found["file"] or found["module"] else None
                    if place is None and index + 1 < len(following):
                        place = _STOP_AT.match(following[index + 1][:MAX_LINE])
                    return Frame(
                        function=found["function"],
                        file=(place["file"] or "") if place else "",
                        line=int(place["line"]) if place and place["line"] else None,
                        module=(place["module"] or "") if place is found else "",
                    )
        at = text.find(" received signal SIG", end)
    return None


# A C++ template's arguments hold blanks and parentheses ("CGAL::X<CGAL::Cartesian<CGAL::Gmpq>, std::allocator<int>
# >::opposite (this=0x0)", "std::function<void (int)>"): squeezed out of a name before a frame is read, the
# name's words then end at its own arguments. (The angle after a name opens one; "operator<" does not.)
_ANGLE = re.compile(r"(?<=[\w>:])<|>")


def _squeezed(line: str) -> str:
    """``line`` with the blanks inside template arguments removed and their parentheses made brackets, and
    GCC's "(anonymous namespace)" held as one word (given back where :func:`_threads` makes the frame)."""
    line = line.replace(ANONYMOUS, ANONYMOUS_TOKEN)
    if "<" not in line:
        return line
    pieces, depth, start, last = [], 0, 0, 0
    for angle in _ANGLE.finditer(line):
        at = angle.start()
        if angle.group() == "<":
            if line[max(0, at - 8) : at] == "operator":
                continue
            if depth == 0:
                pieces.append(line[last:at])
                start = at
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                pieces.append(line[start : at + 1].replace(" ", "").replace("(", "[").replace(")", "]"))
                last = at + 1
    if depth:
        return line
    pieces.append(line[last:])
    return "".join(pieces)


def _frame(line: str) -> re.Match | None:
    found = _FRAME.match(line) or _COREDUMP_FRAME.match(line)
    # Squeezed where a name was not read, or read only to a blank inside its template arguments
    # ("std::function<void (int)>::operator()" read as "std::function<void"); a frame has parentheses.
    cut = found is not None and found["function"].count("<") > found["function"].count(">")
    if (found is None or cut) and "(" in line and ("<" in line or ANONYMOUS in line):
        line = _squeezed(line)
        found = _FRAME.match(line) or _COREDUMP_FRAME.match(line)
    # "#0 0x561dcb863463 (/tmp/app+0x4d1b462)" is Chromium's unsymbolized frame, not a call of "0x561dcb863463".
    return None if found is not None and _ADDRESS.match(found["function"]) else found


def _signal(text: str) -> str:
    for line in text.split("\n"):
        if "ignal" in line:
            match = _SIGNAL.search(line[:MAX_LINE])
            if match:
                return match["signal"] or "SIG" + match["coredump"]
    return ""


def _joined(lines: list[str]) -> list[str]:
    """Frame lines with the argument lines gdb wrapped them onto joined back.

    gdb goes on with indented lines; a terminal that cut the line goes on at column 0,
    mid-word, so that piece is joined as it is.
    """
    joined: list[str] = []
    pending = 0
    for line in lines:
        if pending == -1:
            pending = _MAX_WRAPPED if line[:1] in (" ", "\t") and line.lstrip().startswith("(") else 0
        if pending and joined and line.strip() and not line.lstrip().startswith("#"):
            joined[-1] += (" " + line.strip()) if line[:1] in (" ", "\t") else line[:MAX_LINE]
            pending = pending - 1 if joined[-1].count("(") > joined[-1].count(")") else 0
            continue
        pending = 0
        # coredumpctl indents its stacks under "Stack trace of thread N:": frame lines are read without it.
        line = line[:MAX_LINE].lstrip() if line.lstrip().startswith("#") else line[:MAX_LINE]
        joined.append(line)
        if line.startswith("#") and line.count("(") > line.count(")"):
            pending = _MAX_WRAPPED
        elif line.startswith("#") and "(" not in line:
            # A long argument list gdb printed wholly on the next line ("#4  0x… in __assert_fail_base",
            # "    (fmt=0x… \"%s%s%s:%u: …\", assertion=…)"): joined when that line opens with its parenthesis.
            pending = -1
    return joined


@per_text
def _joined_lines(text: str) -> tuple[str, ...]:
    """:func:`_joined` of ``text``'s lines (for recognize and parse alike)."""
    return tuple(_joined(text.split("\n")))


def _assertion(frames_text: list[str]) -> tuple[str, str]:
    """(crash type, site) of a glibc assert among the first frames, or empty strings."""
    named_only = ""
    for line in frames_text:
        if "__assert_fail" not in line:
            continue
        expr, function = _ASSERTION_ARG.search(line), _FUNCTION_ARG.search(line)
        if expr and function:
            return f"Assertion `{expr['expr']}' failed", function_name(function["function"])
        # (__assert_fail_base may print function=<optimized out> and __assert_fail the name; a line cut short
        # names none: then the frame below glibc's is the asserting function.)
        named_only = named_only or (f"Assertion `{expr['expr']}' failed" if expr else "")
    return named_only, ""


@dataclass
class _Thread:
    number: int | None
    frames: list[Frame] = field(default_factory=list)
    handled: bool = False  # a crash handler's frames were found above this thread's crash
    marked: bool = False  # DrKonqi marked it as the thread its crash handler ran in


# Frames kept per thread: the signature reads far fewer, and a hostile paste may hold a million.
_MOST_FRAMES = 4 * MAX_FRAMES


def _unknown_as_one(function: str) -> str:
    return "??" if function.strip("?") == "" else function


def _threads(lines: list[str]) -> list[_Thread]:
    """Each thread's frames, as printed: one thread unless the paste holds "thread apply all bt"."""
    threads = [_Thread(None)]
    for line in lines:
        header = _THREAD.match(line) if line.startswith("Thread ") else None
        if header:
            threads.append(_Thread(int(header["number"])))
            continue
        if "#" not in line and _KCRASH not in line:
            continue
        stripped = line[:MAX_LINE].strip()
        current = threads[-1]
        if stripped.startswith(_KCRASH):
            current.frames, current.handled, current.marked = [], True, True
            continue
        if _TRAMPOLINE.match(stripped):
            if is_handlers(current.frames):
                current.frames, current.handled = [], True
            continue
        match = _frame(stripped)
        if not match:
            continue
        if match["index"] == "0" and current.frames:
            # (A name gdb did not know is "??" on one line and "???" on the other: one unknown.)
            if len(current.frames) == 1 and _unknown_as_one(current.frames[0].function) == _unknown_as_one(
                match["function"]
            ):
                # gdb printed where it stopped ("#0 f (…)" on loading a core), then `bt` printed it all.
                current.frames = []
            else:
                current = _Thread(None)  # another thread's backtrace, without its header
                threads.append(current)
        if len(current.frames) >= _MOST_FRAMES:
            continue
        groups = match.groupdict()
        current.frames.append(
            Frame(
                function="??" if match["function"] == "n/a" else match["function"].replace(ANONYMOUS_TOKEN, ANONYMOUS),
                file=groups.get("file") or "",
                line=int(groups["line"]) if groups.get("line") else None,
                module=match["module"] or "",
            )
        )
    return [thread for thread in threads if thread.frames or thread.handled]


def _crashed(threads: list[_Thread], lines: list[str]) -> list[Frame]:
    """The frames of the thread that crashed: the one DrKonqi marks, else the one gdb names as current
    (a core's first thread is the one that crashed), else one a crash handler ran in, else the first
    printed. (A runtime may park its other threads in a signal handler of its own: gdb's word comes
    before a handler's frames.)"""
    if not threads:
        return []
    marked = next((thread for thread in threads if thread.marked), None)
    if marked is not None:
        return marked.frames
    if len(threads) > 1:
        current = next((int(m["number"]) for m in map(_CURRENT.match, lines) if m), None)
        named = next((thread for thread in threads if current is not None and thread.number == current), None)
        if named is not None:
            return named.frames
    handled = next((thread for thread in threads if thread.handled), None)
    return (handled or threads[0]).frames


def parse(text: str) -> ParsedTrace:
    """Parse the signal and the backtrace of the thread that crashed."""
    lines = list(_joined_lines(text))
    frames = _crashed(_threads(lines), lines)
    if not frames:
        stopped = _stop_frame(text)
        frames = [stopped] if stopped else []
    assertion, site = _assertion([line for line in lines[:64] if line.startswith("#")])
    if assertion:
        if not site:
            glibcs = [at for at, frame in enumerate(frames[:64]) if "__assert_fail" in frame.function]
            below = glibcs[-1] + 1 if glibcs else None
            site = frames[below].function if below is not None and below < len(frames) else ""
        return ParsedTrace(format=FORMAT, crash_type=assertion, frames=tuple(frames), language="native", site=site)
    corrupted = next(
        (
            found
            for line in lines[:64]
            if "malloc_printerr" in line
            for found in [_MALLOC_MESSAGE.search(line)]
            if found
        ),
        None,
    )
    if corrupted:
        return ParsedTrace(format=FORMAT, crash_type=corrupted["message"], frames=tuple(frames), language="native")
    signal = _signal(text)
    if signal:
        crash_type = signal
    elif any(_ABORTING.search(frame.function) for frame in frames[:4]):
        crash_type = "SIGABRT"
    else:
        crash_type = "unknown"
    return ParsedTrace(format=FORMAT, crash_type=crash_type, frames=tuple(frames), language="native")
