"""Ruby's exceptions: a script's, Homebrew's, CocoaPods', a Rails log's.

``/app/lib/config.rb:12:in `load': unexpected token at '' (JSON::ParserError)``
``	from /app/bin/app:5:in `<main>'``
``NoMethodError - undefined method `name' for nil:NilClass`` (CocoaPods' report)
``Error: undefined method `name' for nil:NilClass`` then bare frames (Homebrew's)
``/usr/local/Homebrew/Library/Homebrew/formula.rb:1234:in `block in deps'``

Each frame is ``file:line:in `method'`` (``'Class#method'`` since Ruby 3.4);
it is named by the file and the method, without a block's nesting
(``block (2 levels) in deps`` is ``deps``) or, since 3.4, its owner. Ruby's standard library and
its ``<internal:…>`` code are where the program called them, not the crash.
The crash is the exception's class, read from the first frame's line
("… (NoMethodError)"), from "Class - message" or "Class (message):" above
the frames, and unknown when only a message is printed ("Error: …").
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, file_name, find_lines

FORMAT = "ruby"
# "/a/x.rb:12:in `m'", "\tfrom C:/a/x.rb:12:in `m'", Ruby 2.5-2.7's numbered "\t2: from /a/x.rb:5:in `m'".
_FRAME = re.compile(
    r"^\s*(?:(?P<number>\d{1,6}): )?(?:from )?(?P<file>(?:[A-Za-z]:)?[^\s:`'][^:\n]{0,500}?):(?P<line>\d{1,9}):"
    r"in [`'](?P<method>[^'`\n]{1,500})'(?P<rest>.{0,2000})$"
)
# Ruby's crash report ("[BUG] Segmentation fault"): its C backtrace is the crash, read by glibc's format.
_BUG = "[BUG] "
_C_LEVEL = "C level backtrace information"
# Lines between the first frame and the "from" frames: Ruby 3.1's error_highlight excerpt, a message's
# other lines.
_MOST_BETWEEN = 12
# The first frame's line may carry the exception: ": message (Class)".
_RAISED = re.compile(r"^: (?P<message>.{0,1000}?) \((?P<type>[A-Z][\w:]{0,200})\)\s*$")
# Above the frames: "NoMethodError - message" (CocoaPods), "NoMethodError (message):" (Rails).
_ABOVE = re.compile(
    r"^(?:(?P<type>[A-Z][\w:]{0,200}(?:Error|Exception|Interrupt|Exit)) - (?P<message>.{0,1000})"
    r"|(?P<type2>[A-Z][\w:]{0,200}) \((?P<message2>.{0,1000})\):)$"
)
_BLOCK = re.compile(r"^(?:block (?:\(\d+ levels\) )?in |rescue in |ensure in )")
_STDLIB = re.compile(r"(?:^|/)lib/ruby/\d+\.\d+\.\d+/(?!gems/)|^<internal:")
# Ruby's core methods that run a block for their caller (named at the caller's line): where the program
# iterated, not what failed. (Not "call" or "load", which a program's own classes often define.)
_CORE = frozenset(
    {
        "each", "map", "collect", "select", "reject", "each_with_index", "each_with_object", "each_pair",
        "each_key", "each_value", "flat_map", "inject", "reduce", "times", "tap", "instance_eval",
        "instance_exec", "class_eval", "module_eval", "send", "public_send",
    }
)  # fmt: skip
_MIN_FRAMES = 2


def recognize(text: str) -> bool:
    """True for two or more Ruby frame lines (``file.rb:12:in `method'``), but not Ruby's own crash report."""
    if ":in " not in text or (_BUG in text and _C_LEVEL in text):
        return False
    return len(find_lines(text, _FRAME, _MIN_FRAMES, ":in ")) >= _MIN_FRAMES


def _frame(found: re.Match) -> Frame | None:
    file = found["file"]
    if _STDLIB.search(file):
        return None
    # Ruby 3.4 names the method with its owner ('Pod::Installer#add_dependency'); older releases, bare. The
    # file is in the frame's name already.
    method = _BLOCK.sub("", found["method"].strip()).rsplit("#", 1)[-1].rsplit(".", 1)[-1]
    if method in _CORE:
        return None
    return Frame(function=f"{file_name(file)}:{method}", file=file, line=int(found["line"]))


def _run(lines: list[str], first: int) -> list[re.Match]:
    """The frame lines from ``first`` on, past a few other lines after the first (an excerpt, a message)."""
    found: list[re.Match] = []
    between = 0
    for line in lines[first : first + 4 * MAX_FRAMES]:
        match = _FRAME.match(line[:MAX_LINE]) if ":in " in line else None
        if match is None:
            if len(found) == 1 and between < _MOST_BETWEEN:
                between += 1
                continue
            break
        found.append(match)
    return found


def parse(text: str) -> ParsedTrace:
    """The exception and the frames of the first backtrace."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if ":in " in line and _FRAME.match(line[:MAX_LINE])), None)
    crash_type, message, frames = "", "", []
    if first is not None:
        run = _run(lines, first)
        if run and run[0]["number"]:
            # Ruby 2.5-2.7 printed the stack outermost first, numbered down to the raising line.
            run.reverse()
        raised = next((found for found in (_RAISED.match(match["rest"]) for match in run[:2]) if found), None)
        if raised:
            crash_type, message = raised["type"], raised["message"].strip()
        elif first > 0:
            above = _ABOVE.match(lines[first - 1].strip()[:MAX_LINE])
            if above:
                crash_type = above["type"] or above["type2"]
                message = (above["message"] or above["message2"] or "").strip()
        frames = [frame for frame in map(_frame, run) if frame is not None]
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="ruby")
