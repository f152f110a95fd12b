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
from crashes.traces.text import MAX_LINE, file_name, find_lines, per_text

FORMAT = "javascript"
# "    at f (file:1:2)", "    at file:1:2", "    at async f (file:1:2)", "    at new Foo (file:1:2)", and
# Node's last frame before the error's own fields: "    at f (file:1:2) {". (Or at column 0, where a paste
# lost the indentation: a location with its line and column in a script's file is still asked for.)
_V8 = re.compile(
    # (Older V8 names a function "listeners.(anonymous function).forEach.listener".)
    r"^\s*at (?:async )?(?:(?P<function>(?:[^()\n]|\(anonymous function\)){1,500}?) \((?P<location>[^()\n]{1,1000})\)"
    r"|(?P<bare>\S{1,1000}))"
    r"(?: \{)?\s*$"
)
# "f@https://x/app.js:1:2", "@https://x/app.js:1:2" (an anonymous function), Safari's "global code@…" and
# "forEach@[native code]".
_GECKO = re.compile(r"^(?P<function>[^@\n]{0,500})@(?P<location>\S{1,1000}:\d{1,9}:\d{1,9}|\[native code\])\s*$")
_POSITION = re.compile(r":\d{1,9}(?::\d{1,9})?$")
# A script's file (or a page's URL): what tells a JavaScript frame from another language's "at file:1:2"
# (a Rust backtrace's "at /rustc/…/x.rs:12:5").
_SCRIPT = re.compile(r"\.(?:[cm]?js|jsx|[cm]?ts|tsx|vue|svelte|coffee)$|^(?:https?|file|webpack|blob):|^node:")
# Where the engine runs its own code: Node's, a promise combinator's "index 0", native functions.
# (Before Node 16 its own modules were named bare, without "node:": "events.js:182:13", "ELECTRON_ASAR.js";
# a program's file always has a folder. Not Electron's modules in its electron.asar: its remote objects'
# registry is where many Electron apps' crashes are thrown, and the same there whatever app reached it.)
_ENGINE = re.compile(
    r"^(?:node:|internal/|native$|<anonymous>$|index \d{1,6}$|\[native code\]$|eval$|[\w-]{1,40}\.js$)"
)
_ERROR = re.compile(
    r"^(?:error: )?(?:Uncaught (?:\(in promise\) )?)?(?P<type>[A-Z][\w$]{0,100}(?:Error|Exception)|Error)"
    r"(?: \[[\w$]{1,100}\])?(?:: (?P<message>.{0,1000}))?$"
)
_ALIAS = re.compile(r" \[as [^\]]{1,200}\]$")
# A bundler's content hash in a file's name ("main.8a3b2c1d.js", "app-5f2c9e1a.js"): another per release.
_BUNDLE_HASH = re.compile(r"[.-][0-9a-f]{8,20}(?=\.[cm]?js$)")
_MIN_FRAMES = 2
# Lines above the stack the error is looked for in: Node prints the source line and a caret, or a
# "Require stack:" list, between them.
_ABOVE = 20


def _frame(line: str) -> Frame | None:
    """A frame of either form (named "" for the engine's own code); None for any other line."""
    found = _V8.match(line) if "at " in line else None
    if found is not None:
        location = found["location"] or found["bare"]
        function = (found["function"] or "").strip()
    else:
        found = _GECKO.match(line) if "@" in line else None
        if found is None:
            return None
        location, function = found["location"], found["function"]
    file = _POSITION.sub("", location)
    if _ENGINE.search(file):
        return Frame(function="", file=file)
    if not (_POSITION.search(location) and _SCRIPT.search(file.split("?", 1)[0])):
        return None  # "at" in prose, or another language's frame
    function = _ALIAS.sub("", function).removeprefix("new ").removeprefix("async ")
    if not function or function in ("<anonymous>", "Object.<anonymous>", "Module.<anonymous>", "global code"):
        function = f"{_BUNDLE_HASH.sub('', file_name(file.split('?', 1)[0]))}:<anonymous>"
    return Frame(function=function, file=file)


@per_text
def _stack(text: str) -> tuple[int, tuple[Frame, ...]]:
    """The line the first run of two or more frame lines starts at, and its frames (recognize and parse alike)."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        if _frame(lines[index][:MAX_LINE]) is None:
            index += 1
            continue
        frames = []
        for following in lines[index : index + 4 * MAX_FRAMES]:
            frame = _frame(following[:MAX_LINE])
            if frame is None:
                break
            frames.append(frame)
        if len(frames) >= _MIN_FRAMES and any(frame.function for frame in frames):
            return index, tuple(frames)
        index += len(frames)
    return -1, ()


def recognize(text: str) -> bool:
    """True for two or more frame lines of V8's or Firefox's form, one after the other."""
    if "at " not in text and "@" not in text:
        return False
    if not (find_lines(text, _V8, 1, "at ") or find_lines(text, _GECKO, 1, "@")):
        return False
    return _stack(text)[0] != -1


def parse(text: str) -> ParsedTrace:
    """The error above the first stack, and its frames (the engine's own left out)."""
    start, frames = _stack(text)
    lines = text.split("\n", start + 1)[: max(start, 0)] if start > 0 else []
    crash_type, message = "", ""
    for line in reversed(lines[-_ABOVE:]):
        found = _ERROR.match(line.strip()[:MAX_LINE])
        if found:
            crash_type, message = found["type"], (found["message"] or "").strip()
            break
    named = tuple(frame for frame in frames[:MAX_FRAMES] if frame.function)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=named, language="javascript")
