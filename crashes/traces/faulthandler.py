"""Python faulthandler dumps: a segfaulting or hung interpreter's stack.

``Fatal Python error: Segmentation fault`` followed by ``Current thread
0x... (most recent call first):`` and ``File "f.py", line 3 in name`` lines.
On SIGUSR1 (how the engine asks a hung child for its stack) the fatal-error
line is absent and the header is ``Stack (most recent call first):``.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "python-faulthandler"
# (Where other output shares the line, as pytest's "collecting ... " does: the error is what follows.)
_FATAL = re.compile(r"^.{0,120}?Fatal Python error: (?P<error>.+)$")
_THREAD = re.compile(r"^((Current thread|Thread) 0x[0-9a-fA-F]+ |Stack )\(most recent call first\):\s*$")
# (Indented by two blanks as printed; a paste may have lost them.)
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+|\?\?\?) in (?P<function>.+?)\s*$')


def recognize(text: str) -> bool:
    """True if ``text`` holds a faulthandler stack dump."""
    if "most recent call first" not in text:
        return False
    return bool(find_lines(text, _THREAD, 1, "most recent call first"))


def parse(text: str) -> ParsedTrace:
    """Parse the crashing thread's stack: the one marked "Current thread", else the first one dumped.

    faulthandler dumps every thread, in no order that puts the crashing one first (a background
    thread waiting in queue.get often comes before it); it marks the thread that faulted.
    """
    fatal = find_lines(text, _FATAL, 1, "Fatal Python error")
    lines = text.split("\n")
    headers = [i for i, line in enumerate(lines) if "most recent call first" in line and _THREAD.match(line[:MAX_LINE])]
    start = next((i for i in headers if lines[i].startswith("Current thread")), headers[0])
    frames = []
    for line in lines[start + 1 :]:
        match = _FRAME.match(line[:MAX_LINE])
        if not match:
            if frames:
                break
            continue
        line_number = None if match["line"] == "???" else int(match["line"])
        frames.append(Frame(function=match["function"], file=match["file"], line=line_number))
    return ParsedTrace(
        language="python",
        format=FORMAT,
        crash_type=fatal[0]["error"].strip() if fatal else "",
        frames=tuple(frames),
    )
