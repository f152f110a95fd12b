"""AddressSanitizer, LeakSanitizer, MemorySanitizer, ThreadSanitizer and UBSan reports.

The crash type is the sanitizer's error type (``heap-buffer-overflow``,
``use-of-uninitialized-value``, ``data race``, UBSan's ``signed integer
overflow``), with the access kind for memory errors (``READ``/``WRITE``):
a read and a write overflow at the same place are usually different bugs.
The frames are the first stack of the report, the one where it happened;
the allocation and free stacks that follow describe the object.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.native_frames import first_stack
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "sanitizer"
_HEADER = re.compile(
    r"^.{0,80}?(?:ERROR|WARNING): (?P<tool>AddressSanitizer|LeakSanitizer|MemorySanitizer|ThreadSanitizer|"
    r"HWAddressSanitizer):\s?(?P<error>.*)$"
)
_UBSAN = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?:\d+:)? runtime error: (?P<error>[^:\n]+)")
_ACCESS = re.compile(r"^\s*(?P<access>READ|WRITE) of size \d+")
_ERROR_END = re.compile(r"\s(?:on (?:unknown )?address|on 0x|at pc|in thread|\(pid=)|:")


def recognize(text: str) -> bool:
    """True for a sanitizer report (of any of the sanitizers)."""
    if "Sanitizer" not in text and "runtime error:" not in text:
        return False
    return bool(find_lines(text, _HEADER, 1, "Sanitizer") or find_lines(text, _UBSAN, 1, "runtime error:"))


def _error_type(raw: str) -> str:
    # "heap-buffer-overflow on address 0x... at pc ..." -> "heap-buffer-overflow"
    cut = _ERROR_END.search(raw)
    return (raw[: cut.start()] if cut else raw).strip()


def parse(text: str) -> ParsedTrace:
    """Parse the first sanitizer report in ``text``."""
    lines = text.split("\n")
    header = ubsan = None
    start = 0
    for index, line in enumerate(lines):
        line = line[:MAX_LINE]
        if "Sanitizer" in line and (header := _HEADER.match(line)):
            start = index
            break
        if "runtime error:" in line and (ubsan := _UBSAN.match(line)):
            start = index
            break
    if header and not header["error"].strip() and start + 1 < len(lines):
        # "==1==ERROR: AddressSanitizer:" hard-wrapped before its error.
        header = _HEADER.match(header.group(0) + " " + lines[start + 1][:MAX_LINE].strip())
    if header:
        crash_type = _error_type(header["error"])
        access = next((m for m in (_ACCESS.match(ln[:MAX_LINE]) for ln in lines[start + 1 : start + 6]) if m), None)
        if access and crash_type not in ("SEGV", "detected memory leaks"):
            crash_type = f"{crash_type} {access['access']}"
        message = header.group(0).strip()
    else:
        crash_type = ubsan["error"].strip()
        message = ubsan.group(0).strip()
    frames, _ = first_stack(lines, start)
    if not frames and ubsan and not header:
        # UBSan without a stack names only its source location.
        frames = (Frame(function="", file=ubsan["file"], line=int(ubsan["line"])),)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=frames, language="native")
