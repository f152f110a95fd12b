"""libFuzzer's own crash reports: deadly signal, timeout, out-of-memory, leaks.

When a sanitizer report is present the sanitizer parser takes the text; this
one covers what libFuzzer reports by itself. The crash type drops the
numbers (``timeout after 11 seconds`` -> ``timeout``): the limit a run was
given says nothing about the bug.
"""

from __future__ import annotations

import re

from crashes.model import ParsedTrace
from crashes.traces.native_frames import first_stack
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "libfuzzer"
_ERROR = re.compile(r"^.{0,40}?==\d+==\s*ERROR: libFuzzer: (?P<error>.+)$")


def recognize(text: str) -> bool:
    """True for a libFuzzer error report."""
    if "libFuzzer" not in text:
        return False
    return bool(find_lines(text, _ERROR, 1, "libFuzzer"))


def parse(text: str) -> ParsedTrace:
    """Parse the libFuzzer error and the stack printed after it."""
    lines = text.split("\n")
    start, error = next(
        (i, m) for i, m in ((i, _ERROR.match(ln[:MAX_LINE])) for i, ln in enumerate(lines) if "libFuzzer" in ln) if m
    )
    crash_type = re.split(r"\s(?:after|\()", error["error"].strip(), maxsplit=1)[0].strip()
    frames, _ = first_stack(lines, start)
    if not frames:
        # "deadly signal" prints its stack before the ERROR line.
        frames, _ = first_stack(lines, 0)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=error["error"], frames=frames, language="native")
