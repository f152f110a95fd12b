"""Valgrind's reports: Memcheck's memory errors and leaks, Helgrind's and DRD's races.

``==3841557== Invalid read of size 1``
``==3841557==    at 0x403B006: rindex (vg_replace_strmem.c:210)``
``==3841557==    by 0x10AB71: main (maindec.c:116)``
``==3841557==  Address 0x0 is not stack'd, malloc'd or (recently) free'd``

Every line carries the process id between ``==`` (``--`` for Valgrind's own
notes); reporters paste with it, without it, or quoted. An error is its
headline and the stack under it; what follows (``Address … is 8 bytes
inside a block of size 16 free'd`` and that block's stacks) describes the
object, as an AddressSanitizer report's allocation stacks do. The first
error is the crash: Valgrind goes on after a bad access, and a later
``Process terminating with default action of signal 11`` is usually its
consequence. Leaks are printed last; a report of leaks alone is keyed by
its first definitely (else possibly) lost block. Valgrind's own
replacements of the C library (``vg_replace_strmem.c``, ``vgpreload_*.so``)
are frames of the tool, skipped like a sanitizer's interceptors.

The headline's sizes, addresses and counts vary between runs of one bug and
are left out: ``Invalid read of size 4`` is an ``Invalid read``.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, mask_message, per_text

FORMAT = "valgrind"
# The prefix every line carries, what is left of it when a reporter's paste dropped the id, and the
# indentation of a paste that dropped all of it.
_PREFIX = re.compile(r"^\s*(?:(?:[=-]=\d{1,10}[=-]=|={2,4}|-{2,4}) ?)?")
_FRAME = re.compile(r"^\s*(?:at|by) 0x[0-9A-Fa-f]{1,16}: (?P<rest>.+)$")
_LOCATION = re.compile(r"\((?:in (?P<module>[^()]+)|(?P<file>[^():]+):(?P<line>\d{1,9}))\)$")
# Headlines, each with the name it keys by (sizes, addresses and counts dropped).
_HEADLINES = tuple(
    (re.compile(pattern), name)
    for pattern, name in (
        (r"^Invalid (?P<access>read|write) of size \d+", "Invalid {access}"),
        (r"^Invalid free\(\)", "Invalid free"),
        (r"^Mismatched free\(\)", "Mismatched free"),
        (r"^Conditional jump or move depends on uninitialised value", "Conditional jump on uninitialised value"),
        (r"^Use of uninitialised value of size \d+", "Use of uninitialised value"),
        (
            r"^Syscall param (?P<param>\S{1,200}) (?P<what>points to|contains) (?P<kind>unaddressable|uninitialised)",
            "Syscall param {param} {what} {kind} byte(s)",
        ),
        (r"^Source and destination overlap in (?P<function>\w{1,100})", "Source and destination overlap in {function}"),
        (
            r"^Argument '(?P<argument>\w{1,100})' of function (?P<function>\w{1,100}) has a fishy",
            "Fishy argument {argument} of {function}",
        ),
        (r"^Invalid (?:address alignment|alignment value)", "Invalid alignment"),
        (r"^Process terminating with default action of signal \d+ \((?P<signal>SIG\w{2,10})\)", "{signal}"),
        (r"^Possible data race during (?P<access>read|write)", "Possible data race {access}"),
        (r"^Conflicting (?P<access>load|store) by thread", "Conflicting {access}"),
        # Helgrind on a thread's misuse of locks ("Thread #2: lock order … violated", "Thread #1 unlocked a
        # not-locked lock at 0x…"): the text is the error, its numbers masked below.
        (r"^Thread #\d+(?P<what>(?::| unlocked|'s call to) .{1,200})", "Thread{what}"),
    )
)
_LEAK = re.compile(
    r"^[\d,]+(?: \([\d,]+ direct, [\d,]+ indirect\))? bytes in [\d,]+ blocks are (?P<how>definitely|possibly) lost"
)
# Lines between a headline and its stack (Helgrind's "Locks held: none").
_BEFORE_STACK = 2
# Each headline's first word, so that a line is tried against the one or two headlines it can be.
_BY_FIRST_WORD: dict[str, list[tuple[re.Pattern, str]]] = {}
for _pattern, _name in _HEADLINES:
    _BY_FIRST_WORD.setdefault(_pattern.pattern[1:].split(" ", 1)[0], []).append((_pattern, _name))


def _content(line: str) -> str:
    return _PREFIX.sub("", line[:MAX_LINE], count=1)


def recognize(text: str) -> bool:
    """True for Valgrind output with at least one error headline followed by its stack."""
    return _crash(text) is not None


# Words one of the headlines holds: a cheap test first, since most lines of a long paste are frames
# or other tools' output.
_HINTS = (
    "of size",
    "lost",
    "Invalid",
    "ninitialised",
    "Process terminating",
    "data race",
    "Conflicting",
    "Thread #",
    "overlap",
    "Syscall param",
    "fishy",
    "Mismatched",
)


def _headline_hint(line: str) -> bool:
    return any(hint in line for hint in _HINTS)


def _headline(content: str) -> str | None:
    content = content.lstrip()
    first = content.split(" ", 1)[0]
    if first[:1].isdigit():
        leak = _LEAK.match(content)
        return f"{leak['how']} lost" if leak else None
    for pattern, name in _BY_FIRST_WORD.get(first, ()):
        found = pattern.match(content)
        if found:
            return mask_message(name.format(**found.groupdict()), quoted=False)
    return None


def _frame(content: str) -> Frame | None:
    found = _FRAME.match(content)
    if found is None:
        return None
    rest = found["rest"].rstrip()
    location = _LOCATION.search(rest)
    function = rest[: location.start()].strip() if location else rest
    if function in ("???", ""):
        function = ""
    if location is None:
        return Frame(function=function)
    if location["module"]:
        return Frame(function=function, module=location["module"].strip())
    return Frame(function=function, file=location["file"].strip(), line=int(location["line"]))


def _error_at(lines: list[str], index: int) -> tuple[str, tuple[Frame, ...]] | None:
    """(crash type, stack) of the error whose headline is ``lines[index]``, or None if it is none."""
    following = lines[index + 1 : index + 1 + _BEFORE_STACK + 1]
    # Most candidate lines are no headline, or have no stack under them: both are told cheaply.
    if not any("0x" in line for line in following):
        return None
    crash_type = _headline(_content(lines[index]))
    if crash_type is None:
        return None
    frames: list[Frame] = []
    skipped = 0
    for line in lines[index + 1 : index + 1 + 200]:
        frame = _frame(_content(line)) if "0x" in line else None
        if frame is not None:
            frames.append(frame)
            continue
        if frames or skipped >= _BEFORE_STACK:
            break
        skipped += 1
    return (crash_type, tuple(frames)) if frames else None


@per_text
def _crash(text: str) -> tuple[str, tuple[Frame, ...], str] | None:
    """(crash type, stack, headline) of the first error with a stack, leaks only when there is no other."""
    if "at 0x" not in text and "by 0x" not in text:
        return None
    lines = text.split("\n")
    leak = None
    for index, line in enumerate(lines):
        if not _headline_hint(line):
            continue
        error = _error_at(lines, index)
        if error is None:
            continue
        if not error[0].endswith(" lost"):
            return (*error, _content(lines[index]))
        if leak is None or (error[0] == "definitely lost" and leak[0] != "definitely lost"):
            leak = (*error, _content(lines[index]))
    return leak


def parse(text: str) -> ParsedTrace:
    """The first error with a stack (leaks only when there is no other); its headline and stack."""
    found = _crash(text)
    if found is None:
        return ParsedTrace(format=FORMAT, crash_type="", language="native")
    crash_type, frames, headline = found
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=headline.strip(), frames=frames, language="native")
