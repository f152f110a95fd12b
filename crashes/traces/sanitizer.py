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
# UBSan reports a signal as the others do ("==1==ERROR: UndefinedBehaviorSanitizer: SEGV on unknown address"),
# with a stack; its checks' own findings are "file:line: runtime error: …" (_UBSAN).
_HEADER = re.compile(
    r"^.{0,80}?(?:ERROR|WARNING): (?P<tool>AddressSanitizer|LeakSanitizer|MemorySanitizer|ThreadSanitizer|"
    r"HWAddressSanitizer|UndefinedBehaviorSanitizer):\s?(?P<error>.*)$"
)
# Before LLVM 8, an allocation the allocator refused ended in a warning and the sanitizer's own CHECK failing, not
# in an ERROR line (a fuzzer's over-large length field, tbeu/matio#141): "==1==WARNING: AddressSanitizer failed to
# allocate 0x51fc66500400000 bytes", then "==1==AddressSanitizer CHECK failed: …" and the stack, the allocator's
# frames (__sanitizer::, __asan::) above the program's. The size is the input's. (Since LLVM 8 the warning may
# still come first, an ERROR line naming the failure below it: that line is the report's.)
_ALLOCATION_FAILED = re.compile(
    r"^.{0,80}?(?:WARNING|ERROR): (?P<tool>AddressSanitizer|MemorySanitizer|ThreadSanitizer|HWAddressSanitizer|"
    r"LeakSanitizer) failed to allocate 0x[0-9a-fA-F]{1,20} bytes"
)
ALLOCATION_FAILED = "failed to allocate"
_TERMINATING = "allocator is terminating the process"
_CHECK_FAILED = "Sanitizer CHECK failed"
_UBSAN = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?:\d+:)? runtime error: (?P<error>[^:\n]+)")
_ACCESS = re.compile(r"^\s*(?P<access>READ|WRITE) of size \d+")
_ERROR_END = re.compile(r"\s(?:on (?:unknown )?address|on 0x|at pc|in thread|\(pid=)|:")


def recognize(text: str) -> bool:
    """True for a sanitizer report (of any of the sanitizers)."""
    if "Sanitizer" not in text and "runtime error:" not in text:
        return False
    return bool(
        find_lines(text, _HEADER, 1, "Sanitizer")
        or find_lines(text, _UBSAN, 1, "runtime error:")
        or (_ends_the_process(text) and bool(find_lines(text, _ALLOCATION_FAILED, 1, "failed to allocate")))
    )


def _ends_the_process(text: str) -> bool:
    """Whether the allocator ended the process on refusing (allocator_may_return_null=0, the default): with
    the option set, the program goes on, and its warning is no crash."""
    return _TERMINATING in text or _CHECK_FAILED in text


# An allocation error's headline holds the sizes the input asked for ("requested allocation size 0x30000000000 (…)
# exceeds maximum supported size of 0x10000000000"): it is named as the report's SUMMARY line names it, by its kind.
_ALLOCATION_ERRORS = (
    ("requested allocation size ", "allocation-size-too-big"),
    ("allocator is out of memory ", "out-of-memory"),
    ("out of memory: allocator is trying to allocate", "out-of-memory"),
    ("calloc parameters overflow", "calloc-overflow"),
    ("reallocarray parameters overflow", "reallocarray-overflow"),
    ("pvalloc parameters overflow", "pvalloc-overflow"),
    ("invalid allocation alignment", "invalid-allocation-alignment"),
    ("invalid alignment requested in aligned_alloc", "invalid-aligned-alloc-alignment"),
    ("invalid alignment requested in posix_memalign", "invalid-posix-memalign-alignment"),
)
_NUMBER = re.compile(r"\b(?:0x[0-9a-fA-F]+|\d+)\b")


def _error_type(raw: str) -> str:
    # "heap-buffer-overflow on address 0x... at pc ..." -> "heap-buffer-overflow"
    named = next((name for start, name in _ALLOCATION_ERRORS if raw.startswith(start)), None)
    if named:
        return named
    cut = _ERROR_END.search(raw)
    # What is left names a kind; a number in it is one run's (a thread's, a size).
    return _NUMBER.sub("N", (raw[: cut.start()] if cut else raw).strip())


def parse(text: str) -> ParsedTrace:
    """Parse the first sanitizer report in ``text``."""
    lines = text.split("\n")
    header = ubsan = refused = None
    start = 0
    for index, line in enumerate(lines):
        line = line[:MAX_LINE]
        if "Sanitizer" in line and (header := _HEADER.match(line)):
            start = index
            break
        if "runtime error:" in line and (ubsan := _UBSAN.match(line)):
            start = index
            break
        if refused is None and "failed to allocate" in line:
            # A refusal ends the process only where the allocator says so; an ERROR line below it (LLVM 8 and
            # later, or another failure after the program went on) is the report.
            refused = _ALLOCATION_FAILED.match(line)
            start = index if refused else start
    if refused and not (header or ubsan):
        frames, _ = first_stack(lines, start)
        return ParsedTrace(
            format=FORMAT,
            crash_type=ALLOCATION_FAILED,
            message=refused.group(0).strip(),
            frames=frames,
            language="native",
        )
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
