"""macOS crash reports (CrashReporter's text form, as Console and ``~/Library/Logs/DiagnosticReports`` show it).

``Exception Type:        EXC_BAD_ACCESS (SIGSEGV)``
``Crashed Thread:        1``
``Thread 1 Crashed:``
``4   tmux-2.3        0x000000010bf98c0c status_message_set + 428 (status.c:573)``

A report lists every thread's stack; the crash is the crashed thread's
(``Thread N Crashed:``, or the one ``Crashed Thread: N`` names), not the
first printed, which is usually the main thread waiting in its event loop.
A paste cut before the crashed thread's stack has no frames to key by (the
first thread's would put every crash of the program in one bucket).
The crash type is the signal (``SIGSEGV``), else the Mach exception; for an
uncaught Objective-C exception, its name and the stack it was raised on
(``Last Exception Backtrace``), not the crashed thread reporting it.
Frames in the system's own libraries (``libsystem_kernel.dylib``, dyld)
are skipped by the shared native rules, as glibc's are.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "apple-crash"
# "4   tmux-2.3@2016  \t0x000000010bf98c0c status_message_set + 428 (status.c:573)": the module is padded
# with blanks and may hold some ("Google Chrome Framework").
_FRAME = re.compile(r"^(?P<index>\d{1,4})\s+(?P<module>\S.{0,200}?)\s+0x[0-9a-fA-F]{1,16} (?P<rest>.{1,1500})$")
# "status_message_set + 428 (status.c:573)": the symbol's offset, and its source location, read from the end.
_OFFSET = re.compile(r" \+ \d{1,12}$")
_LOCATION = re.compile(r"\((?P<file>[^():]{1,300}):(?P<line>\d{1,9})\)$")
_THREAD = re.compile(r"^Thread (?P<number>\d{1,4})(?P<crashed> Crashed)?:")
# "Crashed Thread:" on macOS, "Triggered by Thread:" on iOS.
_CRASHED_THREAD = re.compile(r"^(?:Crashed|Triggered by) Thread:\s+(?P<number>\d{1,4})")
# An uncaught Objective-C exception: where it was raised (the crashed thread only shows it being
# reported and the process aborting), and its name.
_EXCEPTION_BACKTRACE = re.compile(r"^(?:Last Exception Backtrace|Application Specific Backtrace \d{1,4}):")
_UNCAUGHT = re.compile(r"uncaught exception '(?P<name>\w{1,100})'")
# "EXC_BAD_ACCESS (SIGSEGV)"; "EXC_CRASH (Code Signature Invalid)", whose reason is the crash.
_EXCEPTION = re.compile(r"^Exception Type:\s+(?P<exception>EXC_\w{1,40})(?:\s+\((?P<reason>[^()\n]{1,100})\))?")


# An uncaught exception's stack pasted without a crash report around it: Foundation's console output ("***
# First throw call stack:" and its frames in parentheses), Crashlytics' ("Fatal Exception: RLMException"),
# a report's "Last Exception Backtrace:" alone. Its frames are a crash report's; Apple's own libraries say so.
_HEADLESS_MARKS = ("First throw call stack", "Fatal Exception: ", "Last Exception Backtrace", "libobjc.A.dylib")
_FATAL_EXCEPTION = re.compile(r"^\s*Fatal Exception: (?P<name>[\w.]{1,100})")
_HEADLESS_FRAMES = 2


def recognize(text: str) -> bool:
    """True for a crash report: a thread's stack under its ``Thread N`` header, or a header cut before them;
    or an uncaught exception's stack in Apple's frame form, pasted alone."""
    if any(mark in text for mark in _HEADLESS_MARKS) and len(_first_run(text.split("\n"))) >= _HEADLESS_FRAMES:
        return True
    if "Thread" not in text and "Exception Type:" not in text:
        return False
    exception = bool(find_lines(text, _EXCEPTION, 1, "Exception Type:"))
    if exception:
        return True  # a Mach exception (EXC_…) is macOS's own, even in a paste of that line alone
    headers = find_lines(text, _THREAD, 64, "Thread ") if "0x" in text else []
    return any(header["crashed"] for header in headers)


def _first_run(lines: list[str]) -> tuple[Frame, ...]:
    """The first run of frame lines in Apple's form (Foundation's list in parentheses, its tabs)."""
    for index, line in enumerate(lines):
        if "0x" in line and _frame(line) is not None:
            return _stack([ln for ln in lines[index:] if ln.strip() not in ("(", ")")], 0)
    return ()


def _frame(line: str) -> Frame | None:
    found = _FRAME.match(line[:MAX_LINE].strip())
    if found is None:
        return None
    module = found["module"].strip()
    # Read from its end, without backtracking: "f + 96 (loader.c:55) [inlined]".
    rest = found["rest"].strip().removesuffix("[inlined]").rstrip()
    location = _LOCATION.search(rest) if rest.endswith(")") else None
    if location:
        rest = rest[: location.start()].rstrip()
    offset = _OFFSET.search(rest)
    function = rest[: offset.start()] if offset else rest
    if function.startswith("0x") or function.isdigit() or function == "???":
        return Frame(function="", module=module)  # "0x10bf98000 + 12345", "0 + 4540711344": not symbolized
    return Frame(
        function=function.strip(),
        file=location["file"] if location else "",
        line=int(location["line"]) if location else None,
        module=module,
    )


def _stack(lines: list[str], start: int) -> tuple[Frame, ...]:
    frames = []
    for line in lines[start:]:
        frame = _frame(line)
        if frame is None:
            break
        frames.append(frame)
    return tuple(frames)


def parse(text: str) -> ParsedTrace:
    """The crashed thread's stack and the signal (or exception) it died of."""
    lines = text.split("\n")
    named = next((m["number"] for m in find_lines(text, _CRASHED_THREAD, 1, " Thread:")), None)
    chosen = first = None
    for index, line in enumerate(lines):
        if not line.startswith("Thread "):
            continue
        header = _THREAD.match(line[:MAX_LINE])
        if header is None:
            continue
        if first is None:
            first = index
        if header["crashed"] or header["number"] == named:
            chosen = index
            break
    start = chosen if chosen is not None or named is not None else first
    raised = next(
        (index for index, line in enumerate(lines) if "Backtrace" in line and _EXCEPTION_BACKTRACE.match(line)), None
    )
    raised_stack = _stack(lines, raised + 1) if raised is not None else ()
    frames = raised_stack or (_stack(lines, start + 1) if start is not None else ())
    if not frames and start is None and named is None:
        # No thread printed, none named crashed: an exception's stack pasted alone (not a report cut
        # before its crashed thread, whose other threads' stacks are no crash's).
        frames = _first_run(lines)
    exception = find_lines(text, _EXCEPTION, 1, "Exception Type:")
    uncaught = _UNCAUGHT.search(text) if "uncaught exception '" in text else None
    crash_type = message = ""
    fatal = find_lines(text, _FATAL_EXCEPTION, 1, "Fatal Exception: ") if not uncaught else []
    if uncaught:
        crash_type = uncaught["name"]
    elif fatal:
        crash_type = fatal[0]["name"]
    elif exception:
        reason = (exception[0]["reason"] or "").strip()
        if reason.startswith("SIG"):
            crash_type = reason
        else:
            crash_type = exception[0]["exception"] + (f" ({reason})" if reason else "")
            # A reason that is no signal ("Code Signature Invalid") names the crash even with no stack to key by.
            message = crash_type if reason else ""
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=frames, language="native")
