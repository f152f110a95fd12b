"""Crystal's exceptions: its programs' and its compiler's own ("BUG: trying to downcast …").

``BUG: trying to downcast (Slice(UInt8) | Nil) (Crystal::MixedUnionType) <- Slice(UInt8) (…) (Exception)``
``  from /crystal/src/compiler/crystal/codegen/cast.cr:521:5 in 'downcast_distinct'``
``  from Crystal::CleanupTransformer#transform<Crystal::Assign>:Crystal::ASTNode+`` (before Crystal 0.35)
``  from /home/u/bin/crystal in '??'`` (a build without debug information)

The crash is the exception's class and its message (the line above the
first frame: "message (Class)"), and the frames are the functions, named by
file and method (``cast.downcast_distinct``: a compiler has many
``visit``), or as older releases printed them, by type and method without
the types of their arguments and result. Frames of Crystal's standard
library where it raises (``raise``, ``Nil#not_nil!``) and the compiler's
visitor dispatch (``accept``) say nothing of the crash.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import CUT_LINES, MAX_LINE, at_column_zero, file_name, join_cut_lines, mask_message

FORMAT = "crystal"
# "  from /src/x.cr:12:3 in 'name'", "  from /bin/crystal in '??'", "  from Type#method<Args>:Result".
_LOCATED = re.compile(
    r"^\s*from (?P<file>\S{1,500}?)(?::(?P<line>\d{1,9})(?::\d{1,9})?)? in '(?P<method>[^'\n]{0,500})'\s*$"
)
# (A symbol says it is one: a type's "#method", a generic's "<…>", a result's ":Type".)
# (Read as one run of non-blanks and then looked into: two runs either side of a mark were tried at every mark.)
_SYMBOL = re.compile(r"^\s*from (?P<symbol>[*~]?[A-Z_a-z][^\s]{1,2000})\s*$")
_SYMBOL_MARK = re.compile(r"[#<:]")
# "message (Class)" above the frames: the class is the last parenthesised name on the line.
_EXCEPTION = re.compile(
    r"^(?:Unhandled exception(?: in spawn)?: )?(?P<message>.{0,1000}?) ?\((?P<type>[A-Z][\w:]{0,200})\)\s*$"
)
# Where every crash passes: raising (raise, not_nil!), the compiler's visitor dispatch (accept), the
# program's entry (__crystal_main), and frames without symbols (??).
_SKIPPED = frozenset({"raise", "not_nil!", "accept", "??", "*raise", "__crystal_main", "main", "main_user_code"})
_MIN_FRAMES = 2


def _frame(line: str) -> Frame | None:
    located = _LOCATED.match(line)
    if located:
        file = located["file"]
        stem = file_name(file).rsplit(".", 1)[0]
        method = located["method"]
        if method in _SKIPPED or not file.endswith(".cr"):
            return Frame(function="", file=file)
        return Frame(function=f"{stem}.{method}", file=file, line=int(located["line"]) if located["line"] else None)
    symbol = _SYMBOL.match(line)
    if symbol and _SYMBOL_MARK.search(symbol["symbol"], 2 if symbol["symbol"][0] in "*~" else 1):
        # "Crystal::ASTNode+@Crystal::ASTNode#transform<Crystal::Assign>:Crystal::ASTNode+": the type the
        # method is defined on (after "@"), the method, without its arguments' and result's types.
        name = symbol["symbol"].lstrip("*~")
        owner, hash_mark, method = name.partition("#")
        if not hash_mark:
            owner, method = "", name
        method = method.split("<", 1)[0].split(":", 1)[0]
        if method in _SKIPPED or not method:
            return Frame(function="")
        owner = owner.rsplit("@", 1)[-1].rstrip("+")
        return Frame(function=f"{owner}#{method}" if owner else method)
    return None


def _frame_lines(lines: list[str]) -> tuple[int, list[Frame]]:
    """Where the first run of two or more "from" lines starts, and its frames."""
    index = 0
    while index < len(lines):
        line = lines[index]
        if not (line.lstrip().startswith("from ") and _frame(line[:MAX_LINE]) is not None):
            index += 1
            continue
        frames = []
        for following in lines[index : index + 4 * MAX_FRAMES]:
            frame = _frame(following[:MAX_LINE]) if following.lstrip().startswith("from ") else None
            if frame is None:
                break
            frames.append(frame)
        if len(frames) >= _MIN_FRAMES:
            return index, frames
        index += len(frames)
    return -1, []


def _lines(text: str) -> list[str]:
    """The text's lines, a frame a terminal's width cut inside its quoted method joined back
    ("… in 'codegen_fun:fun_module_info:is_fun_lite" / "ral:is_closure'")."""
    lines, _ = join_cut_lines(
        text.split("\n"),
        lambda line: len(line) >= MIN_WRAP_WIDTH and " in '" in line and not line.rstrip().endswith("'"),
        lambda joined, _: _LOCATED.match(joined[:MAX_LINE]) is not None,
        goes_on=at_column_zero,
        most=CUT_LINES,
    )
    return lines


def _exception_line(lines: list[str], start: int) -> re.Match | None:
    """The exception above the frames, its line joined back where a terminal's width cut it."""
    above = lines[start - 1] if start > 0 else ""
    before = lines[start - 2] if start > 1 else ""
    # "…(Crystal::GenericClassInstanceTyp" / "e) (Exception)": a line as wide as a terminal cut inside a
    # word, and the rest of it at column 0, not opening a message of its own (capitalised).
    if len(before) >= MIN_WRAP_WIDTH and before[-1:].isalnum() and above[:1].isalnum() and not above[:1].isupper():
        joined = _EXCEPTION.match((before.strip() + above)[:MAX_LINE])
        if joined:
            return joined
    return _EXCEPTION.match(above.strip()[:MAX_LINE]) if above.strip() else None


def recognize(text: str) -> bool:
    """True for two or more of Crystal's "from" frame lines (".cr:" files, or Crystal's type#method names)."""
    # (The frames' indentation may have gone with the text's: "from" then opens the line.)
    if "from " not in text or (".cr:" not in text and "#" not in text and " in '??'" not in text):
        return False
    _, frames = _frame_lines(_lines(text))
    return len(frames) >= _MIN_FRAMES and any(
        frame.file.endswith(".cr") or "#" in frame.function or frame.file.endswith("crystal") for frame in frames
    )


def parse(text: str) -> ParsedTrace:
    """The exception above the first frames, and those frames."""
    lines = _lines(text)
    start, frames = _frame_lines(lines)
    crash_type, message = "", ""
    found = _exception_line(lines, start)
    if found:
        message = found["message"].strip()
        crash_type = f"{found['type']}: {mask_message(message, 160)}" if message else found["type"]
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=tuple(frame for frame in frames[:MAX_FRAMES] if frame.function),
        language="native",
    )
