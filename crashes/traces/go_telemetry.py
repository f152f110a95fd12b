"""Go stacks as Go's telemetry counts them (gopls's crash and bug reports in golang/go's tracker).

Telemetry uploads a counter's name and a stack with no arguments, no files
and no goroutine header, one frame a line, each with its line relative to
the function's start (``+N``; ``=N`` where that is unknown and the line is
absolute, ``?N`` where neither is sure; older uploads print the number
alone)::

    crash/crash
    runtime.gopanic:+69
    runtime.panicmem:=261
    runtime.sigpanic:+19
    golang.org/x/tools/gopls/internal/server.(*server).SignatureHelp:+7
    golang.org/x/tools/gopls/internal/protocol.serverDispatch:+544
    runtime.goexit:+0

The issues gopls's maintainers file from them list the same lines as
Markdown links (``- [`runtime.gopanic:+69`](https://cs.opensource.google/…)``).
A frame is its function, the name a goroutine dump of the same crash prints:
the numbers move with every release. The counter's name (``crash/crash``,
``gopls/bug``) is the same for every crash, so there is no message.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, per_text

FORMAT = "go"
_FRAME = re.compile(
    # (Newer issues add the frame's offset in the function's code: "bug.report:+35,+0x3dc".)
    r"^\s*(?:[-*]\s+)?\[?`?(?P<function>[\w./*()\[\]{}-]{1,300}):(?P<marker>[+=?])?-?\d{1,9}(?:,\+0x[0-9a-f]{1,16})?`?\]?"
    r"(?:\(\S{0,500}\))?\s*$"
)
# A file's line ("main.go:12", "app.log:3" in grep's output) is no function.
_FILE = re.compile(
    r"\.(?:go|s|c|h|cc|cpp|rs|py|js|ts|java|txt|md|yaml|yml|json|mod|sum|log|properties|xml|ini|cfg|conf|toml|"
    r"lock|csv|html|sh)$"
)
# The runtime's frames a panicking or exiting goroutine's stack holds.
_RUNTIME_FRAME = re.compile(r"^runtime\.(?:gopanic|goexit|sigpanic|panic\w*|throw|fatal\w*)$")
# A run of this many frame lines, at least, is a stack.
_FRAMES_WANTED = 3


def _frame(line: str) -> re.Match | None:
    found = _FRAME.match(line[:MAX_LINE]) if ":" in line else None
    if found is None or "." not in found["function"] or _FILE.search(found["function"]):
        return None
    return found


@per_text
def _run(text: str) -> tuple[re.Match, ...]:
    """The first run of telemetry frame lines long enough to be a stack, that telemetry could have printed."""
    run: list[re.Match] = []
    for line in text.split("\n"):
        found = _frame(line)
        if found is not None:
            run.append(found)
            continue
        if _is_stack(run):
            return tuple(run)
        run = []
    return tuple(run) if _is_stack(run) else ()


def _is_stack(run: list[re.Match]) -> bool:
    """The runtime's frames a goroutine panics or ends in, or telemetry's marks on most lines and a
    package path: a list of "name:12" lines (grep's counts, host:port pairs) is otherwise anything."""
    if len(run) < _FRAMES_WANTED:
        return False
    if any(_RUNTIME_FRAME.match(found["function"]) for found in run):
        return True
    marked = sum(1 for found in run if found["marker"])
    return 2 * marked >= len(run) and any("/" in found["function"] for found in run)


# What a stack _is_stack accepts holds: the runtime's frames, or telemetry's marks.
_NEEDLES = ("runtime.", ":+", ":=", ":?")


def recognize(text: str) -> bool:
    return any(needle in text for needle in _NEEDLES) and bool(_run(text))


def parse(text: str) -> ParsedTrace:
    frames = tuple(Frame(function=found["function"]) for found in _run(text))
    return ParsedTrace(format=FORMAT, crash_type="", message="", frames=frames, language="go")
