"""Node.js's own report of a fatal error, with the native stack it prints.

``FATAL ERROR: v8::ToLocalChecked Empty MaybeLocal.``
`` 1: 0x95bf28 node::Abort() [node]``
`` 2: 0x95cd73 node::OnFatalError(char const*, char const*) [node]``
`` 4: 0xa23ef1 node::TTYWrap::Initialize(v8::Local<v8::Object>, …) [node]``

Three heads over the same stack: Node's fatal error (``FATAL ERROR: …``), V8's
failed check (``# Fatal error in …, line 0`` then ``# Check failed: result.second.``),
and Node's assertion (``node[40344]: ../src/node_http_parser.cc:713:… f(…): Assertion
`(execute_depth_) == (0)' failed.``, or since Node 16 ``#  Assertion failed: …`` below
``#  node[1]: f at ../src/x.cc:12``). The message is what failed; it is
the same in many unrelated crashes ("Empty MaybeLocal", "Check failed:
result.second"), so the frames below the reporting machinery (node::Abort,
node::Assert, V8_Fatal, the platform's stack printer) say which. A frame is
`` N: [address] name [module]``, the address and module optional (Node 6
prints neither), the name as the nearest exported symbol on Windows
(``v8::internal::Foo+114207``, its offset no part of it). A JavaScript heap
out of memory names no bug: the collector's frames are every such crash's.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines, lines_of, mask_message, per_text

FORMAT = "node-native"
# " 4: 0xa23ef1 node::TTYWrap::Initialize(…) [node]", "10: 00007FF663DA5A7C v8::internal::Builtins::code_handle+172460",
# " 1: node::Abort() [node]", " 6: 0xb96447  [node]". Read from the line's start; the module taken off its end.
_FRAME = re.compile(r"^\s{0,4}(?P<index>\d{1,3}): (?:(?:0x)?[0-9A-Fa-f]{6,16}(?:\s+|$))?(?P<rest>.{0,2000})$")
_MODULE = re.compile(r"(?:^|\s)\[(?P<module>[^\[\]]{1,300})\]\s*$")
_EXPORT_OFFSET = re.compile(r"\+\d{1,12}$")
# The heads. Node's own at a line's start, or after a test runner's words on the line ("test-tap/api.js 2> FATAL
# ERROR: …"); V8's after its "# ".
_FATAL = re.compile(r"^.{0,80}?FATAL ERROR: (?P<message>\S.{0,600})$")
_V8_FATAL = re.compile(r"^#\s{0,4}Fatal error in .{0,300}$")
# The line V8 prints below its "Fatal error in …" ("# Check failed: result.second.", "# Empty MaybeLocal."), and
# its own out-of-memory reports ("# Fatal JavaScript out of memory: Reached heap limit").
_V8_SAID = re.compile(r"^#\s{0,4}(?P<message>\S.{0,600})$")
_V8_OUT_OF_MEMORY = re.compile(r"^#\s{0,4}Fatal JavaScript (?:out of memory|invalid size error)")
# Node's assertion: "node[1]: ../src/x.cc:86:void f(): Assertion `expr' failed.", or since Node 16 "  #  Assertion
# failed: expr" (a console.assert's "Assertion failed: …" is the program's own, no such line).
_ASSERTION = re.compile(
    r"(?:^|: )Assertion `(?P<old>.{1,600})' failed\.?\s*$|^\s{0,8}#\s{0,4}Assertion failed: (?P<new>.{1,600})$"
)
# Node's and V8's reporting machinery, above the frame that failed.
_REPORTING = re.compile(
    r"^(?:node::(?:Abort|Assert|OnFatalError|FatalError|DumpBacktrace|DumpNativeBacktrace|PrintCaughtException|"
    r"NodePlatform::GetStackTracePrinter|errors::\w+|Utils::\w+)\b|V8_Fatal\b|V8_Dcheck\b|v8::base::|"
    r"v8::Utils::(?:ReportApiFailure|ApiCheck|ReportOOMFailure)\b|v8::internal::V8::FatalProcessOutOfMemory\b|"
    r"v8::internal::Heap::FatalProcessOutOfMemory\b|uv_|abort\b|raise\b|__GI_)"
)
# How deep the machinery goes.
_REPORTING_DEPTH = 8
_MIN_FRAMES = 3
_FIRST_NUMBER = 5
_HEAP_OUT_OF_MEMORY = "JavaScript heap out of memory"
_OUT_OF_MEMORY = "out of memory"
# How far down the head may be (a test runner's output above it).
_HEAD_LINES = 2000


@per_text
def _head(text: str) -> tuple[str, str] | None:
    """(crash type, message) of the report's head, or None when the text has none of Node's or V8's."""
    after_fatal = False
    for line in lines_of(text, _HEAD_LINES):
        if "FATAL ERROR:" in line and (found := _FATAL.match(line)):
            said = found["message"].strip().rstrip(".")
            if _HEAP_OUT_OF_MEMORY in said:
                return _OUT_OF_MEMORY, said
            return f"FATAL ERROR: {mask_message(said, 160)}", said
        if "Assertion" in line and (found := _ASSERTION.search(line)):
            said = (found["new"] or found["old"]).strip()
            return f"Assertion `{mask_message(said, 300)}' failed", said
        if not line.startswith("#"):
            continue
        if _V8_OUT_OF_MEMORY.match(line):
            return _OUT_OF_MEMORY, line.lstrip("# ").strip()
        if _V8_FATAL.match(line):
            after_fatal = True
        elif after_fatal and (found := _V8_SAID.match(line)):
            said = found["message"].strip().rstrip(".")
            return mask_message(said, 160), said
    return None


def _frames(text: str) -> list[Frame]:
    frames = []
    for match in find_lines(text, _FRAME, MAX_FRAMES, ": "):
        rest = match["rest"]
        module = _MODULE.search(rest)
        name = rest[: module.start()] if module else rest
        frames.append(Frame(function=_EXPORT_OFFSET.sub("", name.strip()), module=module["module"] if module else ""))
    return frames


def recognize(text: str) -> bool:
    """True for Node's or V8's fatal report (its head) above three native frames numbered on from 1 (or a little
    further)."""
    if "FATAL ERROR:" not in text and "Assertion" not in text and "Fatal " not in text:
        return False
    found = find_lines(text, _FRAME, _MIN_FRAMES, ": ")
    # Numbered on from 1, or from a little further where output of the program's own cut into the stack.
    numbers = [int(m["index"]) for m in found]
    if (
        len(numbers) < _MIN_FRAMES
        or numbers[0] > _FIRST_NUMBER
        or numbers != list(range(numbers[0], numbers[0] + _MIN_FRAMES))
    ):
        return False
    # Node's own frames, or its binary as the module: not any numbered list below an assertion.
    named = " ".join(m["rest"][:MAX_LINE] for m in found)
    return ("node::" in named or "v8::" in named or "[node]" in named) and _head(text) is not None


def parse(text: str) -> ParsedTrace:
    """The head's failure and the frames below the reporting machinery."""
    crash_type, message = _head(text) or ("", "")
    frames = _frames(text)
    last = max((i for i, f in enumerate(frames[:_REPORTING_DEPTH]) if _REPORTING.match(f.function)), default=-1)
    frames = frames[last + 1 :]
    if crash_type == _OUT_OF_MEMORY:
        frames = []  # the collector's frames: every heap exhaustion's
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="native")
