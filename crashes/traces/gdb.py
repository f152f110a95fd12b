"""gdb backtraces (``bt``), as pasted from a debugging session or a core dump.

Also systemd-coredump's and eu-stack's form, as ``coredumpctl info`` prints
it into distributions' bug reports: ``Signal: 11 (SEGV)``, ``Stack trace of
thread N:`` and ``#0  0x000000000047ed31 set_ref_in_item (nvim + 0x7ed31)``
(``n/a`` where the function is unknown).

``#0  0x00007ffff7a42428 in __GI_raise (sig=sig@entry=6) at ../sysdeps/unix/sysv/linux/raise.c:54``
``#3  0x0000555555554abc in main () at test.c:10``
The crash type is the signal gdb reported; without one, a stack that
starts in raise/abort/pthread_kill is an abort (SIGABRT). An abort from
glibc's assert is the assertion: gdb prints its text and function among
``__assert_fail_base``'s arguments, which is how the same assertion
reported by the program itself (or by macOS) is keyed.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.llvm import function_name
from crashes.traces.text import MAX_LINE, per_text

FORMAT = "gdb"
_FRAME = re.compile(
    r"^#\s?(?P<index>\d+)\s+(?:0x[0-9a-fA-F]+ in )?(?P<function>[^\s(]+) \((?P<args>.*?)\)"
    r"(?: at (?P<file>\S+?):(?P<line>\d+)| from (?P<module>\S+))?\s*$"
)
_COREDUMP_FRAME = re.compile(
    r"^#(?P<index>\d+)\s+0x[0-9a-fA-F]+ (?P<function>[^\s(]+) \((?P<module>[^\s()+]+)(?: \+ 0x[0-9a-fA-F]+)?\)\s*$"
)
_SIGNAL = re.compile(
    r"(?:Program (?:received|terminated with) signal|Thread \d+ .{0,200}? received signal) (?P<signal>SIG\w+)"
    r"|^\s*Signal: \d+ \((?P<coredump>[A-Z]+)\)"
)
_ABORTING = re.compile(r"(raise|abort|pthread_kill)")
# glibc's __assert_fail(_base) arguments, as gdb prints them: the string after each pointer.
_ASSERTION_ARG = re.compile(r'assertion=(?:assertion@entry=)?0x[0-9a-fA-F]+ "(?P<expr>(?:[^"\\\n]|\\.){1,1000})"')
_FUNCTION_ARG = re.compile(
    r'function=(?:function@entry=)?0x[0-9a-fA-F]+(?: <[^<>\n]{0,200}>)? "(?P<function>[^"\n]{1,500})"'
)
# gdb wraps a frame whose arguments run long onto indented lines.
_MAX_WRAPPED = 6


def recognize(text: str) -> bool:
    """True for gdb ``bt`` output."""
    if "#" not in text:
        return False
    frames = sum(1 for line in _joined_lines(text) if line.startswith("#") and _frame(line[:MAX_LINE]))
    # Two frames are enough when the head ("#0", the signal) was cut off.
    return frames >= 2 or (frames == 1 and ("#0  " in text or "(gdb)" in text or bool(_signal(text))))


def _frame(line: str) -> re.Match | None:
    return _FRAME.match(line) or _COREDUMP_FRAME.match(line)


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
    return joined


@per_text
def _joined_lines(text: str) -> tuple[str, ...]:
    """:func:`_joined` of ``text``'s lines (for recognize and parse alike)."""
    return tuple(_joined(text.split("\n")))


def _assertion(frames_text: list[str]) -> tuple[str, str]:
    """(crash type, site) of a glibc assert among the first frames, or empty strings."""
    for line in frames_text:
        if "__assert_fail" not in line:
            continue
        expr, function = _ASSERTION_ARG.search(line), _FUNCTION_ARG.search(line)
        if expr and function:
            return f"Assertion `{expr['expr']}' failed", function_name(function["function"])
    return "", ""


def parse(text: str) -> ParsedTrace:
    """Parse the signal and the backtrace (the first thread's, if several)."""
    frames: list[Frame] = []
    lines = list(_joined_lines(text))
    for line in lines:
        if "#" not in line:
            continue
        match = _frame(line[:MAX_LINE].strip())
        if not match:
            continue
        if match["index"] == "0" and frames:
            if len(frames) == 1 and frames[0].function == match["function"]:
                # gdb printed where it stopped ("#0 f (…)" on loading a core), then `bt` printed it all.
                frames = []
            else:
                break  # a second thread's backtrace
        groups = match.groupdict()
        frames.append(
            Frame(
                function="??" if match["function"] == "n/a" else match["function"],
                file=groups.get("file") or "",
                line=int(groups["line"]) if groups.get("line") else None,
                module=match["module"] or "",
            )
        )
    assertion, site = _assertion([line for line in lines[:64] if line.startswith("#")])
    if assertion:
        return ParsedTrace(format=FORMAT, crash_type=assertion, frames=tuple(frames), language="native", site=site)
    signal = _signal(text)
    if signal:
        crash_type = signal
    elif any(_ABORTING.search(frame.function) for frame in frames[:4]):
        crash_type = "SIGABRT"
    else:
        crash_type = "unknown"
    return ParsedTrace(format=FORMAT, crash_type=crash_type, frames=tuple(frames), language="native")
