"""libFuzzer's own crash reports: deadly signal, timeout, out-of-memory, leaks.

When a sanitizer report is present the sanitizer parser takes the text; this
one covers what libFuzzer reports by itself. The crash type drops the
numbers (``timeout after 11 seconds`` -> ``timeout``): the limit a run was
given says nothing about the bug.
"""

from __future__ import annotations

import re

from crashes.model import ParsedTrace
from crashes.v1.traces.native_frames import first_stack

FORMAT = "libfuzzer"
_ERROR = re.compile(r"==\d+==\s*ERROR: libFuzzer: (?P<error>.+?)\s*$", re.MULTILINE)


def recognize(text: str) -> bool:
    """True for a libFuzzer error report."""
    if "libFuzzer" not in text:
        return False
    return bool(_ERROR.search(text))


def parse(text: str) -> ParsedTrace:
    """Parse the libFuzzer error and the stack printed after it."""
    error = _ERROR.search(text)
    crash_type = re.split(r"\s+(?:after|\()", error["error"], maxsplit=1)[0].strip()
    lines = text.splitlines()
    frames, _ = first_stack(lines, text.count("\n", 0, error.start()))
    if not frames:
        # "deadly signal" prints its stack before the ERROR line.
        frames, _ = first_stack(lines, 0)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=error["error"], frames=frames, language="native")
