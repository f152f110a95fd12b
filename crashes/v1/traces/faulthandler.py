"""Python faulthandler dumps: a segfaulting or hung interpreter's stack.

``Fatal Python error: Segmentation fault`` followed by ``Current thread
0x... (most recent call first):`` and ``File "f.py", line 3 in name`` lines.
On SIGUSR1 (how the engine asks a hung child for its stack) the fatal-error
line is absent and the header is ``Stack (most recent call first):``.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace

FORMAT = "python-faulthandler"
_FATAL = re.compile(r"^Fatal Python error: (?P<error>.+?)\s*$", re.MULTILINE)
_THREAD = re.compile(r"^((Current thread|Thread) 0x[0-9a-fA-F]+ |Stack )\(most recent call first\):\s*$", re.MULTILINE)
_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+|\?\?\?) in (?P<function>.+?)\s*$')


def recognize(text: str) -> bool:
    """True if ``text`` holds a faulthandler stack dump."""
    if "most recent call first" not in text:
        return False
    return bool(_THREAD.search(text))


def parse(text: str) -> ParsedTrace:
    """Parse the crashing thread's stack (the first one dumped)."""
    fatal = _FATAL.search(text)
    thread = _THREAD.search(text)
    frames = []
    for line in text[thread.end() :].splitlines()[1:]:
        match = _FRAME.match(line)
        if not match:
            if frames:
                break
            continue
        line_number = None if match["line"] == "???" else int(match["line"])
        frames.append(Frame(function=match["function"], file=match["file"], line=line_number))
    return ParsedTrace(
        language="python",
        format=FORMAT,
        crash_type=fatal["error"] if fatal else "",
        frames=tuple(frames),
    )
