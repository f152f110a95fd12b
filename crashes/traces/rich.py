"""Python tracebacks as Rich draws them, read back as CPython prints them.

Typer's and Streamlit's error pages, and many command-line tools, print an
exception through Rich: the frames in a box, each as ``path:line in
function`` and a few source lines with ``❱`` at the failing one, maybe the
frame's locals in a box of their own; the exception line below the box.
Streamlit draws it without the sides (a rule above and below, a margin of
two blanks), a logger indents it under its message, and a path wider than
the box is folded onto the lines below it::

    ╭──────────── Traceback (most recent call last) ────────────╮
    │ /home/u/.venv/lib/python3.13/site-packages/mcp_ticketer/ │
    │ cli/main.py:1935 in mcp_callback                          │
    │                                                           │
    │ ❱ 1935 │   │   │   os.chdir(project_path)                 │
    ╰───────────────────────────────────────────────────────────╯
    FileNotFoundError: [Errno 2] No such file or directory: …

Each box becomes ``Traceback (most recent call last):`` and ``File "…",
line N, in f`` lines with the marked source line, so the Python parser
reads it as any traceback, chained exceptions and all.
"""

from __future__ import annotations

import re

from crashes.traces.python import HEADER, frame_line
from crashes.traces.text import MAX_LINE

_TITLE = "Traceback (most recent call last) ─"
_HEADER = re.compile(r"^(?P<indent>[ \t]{0,200})(?P<corner>╭)?─+ Traceback \(most recent call last\) ─+╮?\s*$")
_LOCATION = re.compile(r"^(?P<file>\S.{0,600}?):(?P<line>\d{1,9}) in (?P<function>\S{1,300})$")
# The REPL's frames, which have no file: "in <module>:1".
_REPL_LOCATION = re.compile(r"^in (?P<function>\S{1,300}):(?P<line>\d{1,9})$")
# "❱ 1935 │   │   os.chdir(p)" (older Rich has no rule after the number); the │ after it are indent guides.
_CODE = re.compile(r"^(?P<mark>❱)?\s{0,12}\d{1,9}(?: │| |$)(?P<code>.*)$")
_GUIDES = re.compile(r"^(?:\s*│)+")
_HIDDEN = re.compile(r"^\.\.\. \d+ frames? hidden \.\.\.$")
# A path folded over more lines than this is not a path.
_MOST_PIECES = 6
# Rich shows 100 frames at most (it hides the middle of a deeper stack): the box's last lines,
# which hold its innermost frames, are all that is read of a longer one.
_MOST_BODY_LINES = 2000


def _inner(line: str, indent: int, boxed: bool) -> str:
    """The content of one line of the box: without the logger's indentation, the sides or the margin."""
    content = line[indent:].rstrip()
    if boxed:
        content = content.removeprefix("│").removesuffix("│")
    return content.strip()


def _frames(body: list[str]) -> list[str]:
    """``File "…", line N, in f`` lines (and each marked source line) of a box's contents."""
    out: list[str] = []
    pieces: list[str] = []
    locals_depth = 0
    for content in body:
        if content.startswith("╭"):
            locals_depth += 1
            continue
        if locals_depth:
            locals_depth -= content.startswith("╰")
            continue
        # A blank goes by (a log viewer's blank after every line may sit inside a folded path).
        if not content:
            continue
        if _HIDDEN.match(content):
            pieces = []
            continue
        # A location folded by the box goes on here, whatever this piece looks like alone
        # ("34 in inner" reads as a source line).
        location = _location([*pieces, content]) if pieces else None
        if location is None:
            code = _CODE.match(content)
            if code:
                pieces = []
                if code["mark"] and out:
                    out.append("    " + _GUIDES.sub("", code["code"]).strip())
                continue
            pieces.append(content)
            location = _location(pieces)
        if location:
            file = location.groupdict().get("file") or "<stdin>"
            out.append(frame_line(file, location["line"], location["function"]))
            pieces = []
        elif len(pieces) >= _MOST_PIECES:
            pieces = []
    return out


def _location(pieces: list[str]) -> re.Match | None:
    """The location the pieces of a folded line make: folded inside a word (a path, its number), or
    at a blank (before "in", or before the function)."""
    for joined in ("".join(pieces), " ".join(pieces)):
        location = _LOCATION.match(joined) or _REPL_LOCATION.match(joined)
        if location:
            return location
    return None


# A frame's line inside the box's sides: how a box whose head was not pasted is found.
_SIDED_LOCATION = re.compile(r"^(?P<indent>[ \t]{0,200})│ \S[^│]{0,600}?:\d{1,9} in \S{1,300}\s*│\s*$")


def _headless(lines: list[str]) -> bool:
    """Whether ``lines`` hold two frame lines of a Rich box whose title line is not among them."""
    found = 0
    for line in lines:
        if "│" in line and " in " in line and _SIDED_LOCATION.match(line[:MAX_LINE]):
            found += 1
            if found >= 2:
                return True
    return False


def render(text: str) -> tuple[str, str]:
    """``text`` with every Rich traceback box written as CPython's traceback, and the repair's name."""
    titled = _TITLE in text
    if not titled and not ("│" in text and " in " in text):
        return text, ""
    lines = text.split("\n")
    if not titled and not _headless(lines):
        return text, ""
    out: list[str] = []
    rendered = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        header = _HEADER.match(line[:MAX_LINE]) if _TITLE in line else None
        # A box pasted from below its title (the first frame seen is the first frame kept).
        sided = None if header or titled or rendered else _SIDED_LOCATION.match(line[:MAX_LINE])
        if header is None and sided is None:
            out.append(line)
            index += 1
            continue
        indent, boxed = len((header or sided)["indent"]), bool(sided or header["corner"])
        body: list[str] = []
        if header:
            index += 1
        while index < len(lines):
            closing = lines[index][indent:].strip()
            # The box's bottom: its corner, or (without sides) a rule alone on its line.
            if closing.startswith("╰") or (not boxed and closing and set(closing) == {"─"}):
                index += 1
                break
            body.append(_inner(lines[index][:MAX_LINE], indent, boxed))
            index += 1
        out.append(HEADER)
        out.extend(_frames(body[-_MOST_BODY_LINES:]))
        rendered += 1
    if not rendered:
        return text, ""
    return "\n".join(out), f"{rendered} Rich traceback{'s' if rendered > 1 else ''} read as Python's"
