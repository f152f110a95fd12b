"""JavaScript's stack traces: V8's (Node.js, Deno, Chrome, Electron, Bun's JS errors) and Firefox's and Safari's.

``TypeError: Cannot read properties of undefined (reading 'length')``
``    at parseHeader (/app/node_modules/foo/lib/parser.js:42:17)``
``    at Object.<anonymous> (/app/index.js:5:8)``
``    at Module._compile (node:internal/modules/cjs/loader:1105:14)``
``parseHeader@https://example.com/app.js:42:17`` (Firefox, Safari)

The crash is the error's class above the frames (its message, masked, for
the fuzzy stage), and the frames are the functions, named as V8 prints them
without ``new``, ``async`` or an ``[as alias]``; a module's top level
(``Object.<anonymous>``) and an anonymous function are named by their file.
Node's own ``node:internal`` code is where the program called it, not the crash.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "javascript"
# "    at f (file:1:2)", "    at file:1:2", "    at async f (file:1:2)", "    at new Foo (file:1:2)".
_V8 = re.compile(
    r"^\s+at (?:async )?(?:(?P<function>[^()\n]{1,500}?) \((?P<location>[^()\n]{1,1000})\)|(?P<bare>\S{1,1000}))\s*$"
)
# "f@https://x/app.js:1:2", "@https://x/app.js:1:2" (an anonymous function).
_GECKO = re.compile(r"^(?P<function>[^@\s]{0,500})@(?P<location>\S{1,1000}:\d{1,9}:\d{1,9})\s*$")
_POSITION = re.compile(r":\d{1,9}(?::\d{1,9})?$")
_ERROR = re.compile(
    r"^(?:Uncaught (?:\(in promise\) )?)?(?P<type>[A-Z][\w$]{0,100}(?:Error|Exception)|Error|AggregateError)"
    r"(?: \[[\w$]{1,100}\])?(?:: (?P<message>.{0,1000}))?$"
)
_INTERNAL = re.compile(r"^(?:node:internal/|internal/|node:\w|native$|<anonymous>$)")
_ALIAS = re.compile(r" \[as [^\]]{1,200}\]$")
_MIN_FRAMES = 2


def _frame(line: str) -> Frame | None:
    """A frame of either form; a frame of Node's own code or one naming nothing is a Frame named ""."""
    found = _V8.match(line) if "at " in line else None
    if found is not None:
        location = found["location"] or found["bare"]
        if not (_POSITION.search(location) or location in ("native", "<anonymous>")):
            return None  # "at" in prose
        function = (found["function"] or "").strip()
    else:
        found = _GECKO.match(line) if "@" in line else None
        if found is None:
            return None
        location, function = found["location"], found["function"]
    file = _POSITION.sub("", location)
    if _INTERNAL.search(file):
        return Frame(function="", file=file)
    function = _ALIAS.sub("", function).removeprefix("new ").removeprefix("async ")
    name = re.split(r"[/\\]", file.split("?", 1)[0])[-1]
    if not function or function in ("<anonymous>", "Object.<anonymous>", "Module.<anonymous>"):
        function = f"{name}:<anonymous>"
    return Frame(function=function, file=file)


def _stack(lines: list[str]) -> tuple[int, list[Frame]]:
    """Where the first run of frame lines starts, and its frames."""
    for index, line in enumerate(lines):
        if _frame(line[:MAX_LINE]) is None:
            continue
        frames = []
        for following in lines[index : index + 4 * MAX_FRAMES]:
            frame = _frame(following[:MAX_LINE])
            if frame is None:
                break
            frames.append(frame)
        if len(frames) >= _MIN_FRAMES:
            return index, frames
    return -1, []


def recognize(text: str) -> bool:
    """True for two or more frame lines of V8's or Firefox's form, one after the other."""
    if "    at " not in text and "@" not in text:
        return False
    if not (find_lines(text, _V8, 1, "at ") or find_lines(text, _GECKO, 1, "@")):
        return False
    return _stack(text.split("\n"))[0] != -1


def parse(text: str) -> ParsedTrace:
    """The error above the first stack, and its frames (Node's own left out)."""
    lines = text.split("\n")
    start, frames = _stack(lines)
    crash_type, message = "", ""
    for line in reversed(lines[max(0, start - 3) : start]):
        found = _ERROR.match(line.strip()[:MAX_LINE])
        if found:
            crash_type, message = found["type"], (found["message"] or "").strip()
            break
    named = tuple(frame for frame in frames[:MAX_FRAMES] if frame.function)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=named, language="javascript")
