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
from crashes.v1.traces.native_frames import first_stack

FORMAT = "sanitizer"
_HEADER = re.compile(
    r"(?:ERROR|WARNING): (?P<tool>AddressSanitizer|LeakSanitizer|MemorySanitizer|ThreadSanitizer|"
    r"HWAddressSanitizer): (?P<error>.+?)\s*$",
    re.MULTILINE,
)
_UBSAN = re.compile(r"^(?P<file>\S+?):(?P<line>\d+):(?:\d+:)? runtime error: (?P<error>[^:\n]+)(?::.*)?$", re.MULTILINE)
_ACCESS = re.compile(r"^(?P<access>READ|WRITE) of size \d+", re.MULTILINE)
_ERROR_END = re.compile(r"\s+(?:on (?:unknown )?address|on 0x|at pc|in thread|\(pid=|:).*$")


def recognize(text: str) -> bool:
    """True for a sanitizer report (of any of the sanitizers)."""
    if "Sanitizer" not in text and "runtime error:" not in text:
        return False
    return bool(_HEADER.search(text) or _UBSAN.search(text))


def _error_type(raw: str) -> str:
    # "heap-buffer-overflow on address 0x... at pc ..." -> "heap-buffer-overflow"
    return _ERROR_END.sub("", raw).strip()


def parse(text: str) -> ParsedTrace:
    """Parse the first sanitizer report in ``text``."""
    lines = text.splitlines()
    header = _HEADER.search(text)
    ubsan = _UBSAN.search(text)
    if header and (not ubsan or header.start() < ubsan.start()):
        start = text.count("\n", 0, header.start())
        crash_type = _error_type(header["error"])
        access = _ACCESS.search(text, header.end())
        if access and crash_type not in ("SEGV", "detected memory leaks"):
            crash_type = f"{crash_type} {access['access']}"
        message = header.group(0).strip()
    else:
        start = text.count("\n", 0, ubsan.start())
        crash_type = ubsan["error"].strip()
        message = ubsan.group(0).strip()
    frames, _ = first_stack(lines, start)
    if not frames and ubsan and not header:
        # UBSan without a stack names only its source location.
        frames = (Frame(function="", file=ubsan["file"], line=int(ubsan["line"])),)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=frames, language="native")
