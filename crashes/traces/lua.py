"""Lua's errors and their ``stack traceback:`` (Neovim's plugins, LÖVE games, any embedded Lua).

``E5108: Error executing lua …/lazyvim/util/ui.lua:16: attempt to index local 'ret' (a nil value)``
``stack traceback:``
``	…/lazyvim/util/ui.lua:16: in function <…/lazyvim/util/ui.lua:13>``
``	vim/shared.lua: in function 'tbl_map'``
``	…/lazyvim/util/ui.lua:13: in function 'get_signs'``
``	[C]: in function 'require'``

The error's message, without the location Lua puts before it, is the crash's
type; the frames are the traceback's functions by their file (its last two
parts: Neovim cuts a long path to "…u/.local/share/nvim/lazy/…" and each
install has its own) and name, an anonymous function by the line it is
defined at. C functions ("[C]: in function 'require'") and the host's own
runtime (Neovim's vim/*.lua) run whatever they were handed: no frames.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, lines_of, mask_message

FORMAT = "lua"
_TRACEBACK = "stack traceback:"
# "…/ui.lua:16: in function 'get_signs'", "ui.lua:13: in function <…/ui.lua:13>", "x.lua:4: in main chunk",
# "[C]: in function 'require'", "vim/shared.lua: in function 'tbl_map'", "x.lua:9: in upvalue 'f'".
_FRAME = re.compile(
    r"^\s{0,12}(?P<file>\[C\]|\[string \"[^\"\n]{0,300}\"\]|\S[^:\n]{0,500}?)(?::(?P<line>\d{1,9}))?: in "
    r"(?:(?:local|upvalue|field|method|function) '(?P<name>[^'\n]{1,200})'|function <(?P<defined>[^>\n]{1,500})>"
    r"|(?P<chunk>main chunk)|(?:function )?(?P<other>\S[^\n]{0,200}?))\s*$"
)
# The message with Lua's location before it: "E5108: Error executing lua /x/ui.lua:16: attempt to index …".
_LOCATED = re.compile(r"(?P<file>[^\s:]{1,500}\.lua):\d{1,9}: (?P<message>.{1,1000})$")
_RUNTIME_FILES = re.compile(r"^(?:\[C\]|vim/|\[string \"|.*/share/nvim/runtime/)")
_FRAMES_WANTED = 2


def recognize(text: str) -> bool:
    if _TRACEBACK not in text:
        return False
    lines = list(lines_of(text))
    at = next((i for i, line in enumerate(lines) if line.strip() == _TRACEBACK), None)
    if at is None:
        return False
    return sum(1 for line in lines[at + 1 : at + 1 + _FRAMES_WANTED] if _FRAME.match(line[:MAX_LINE])) >= 1


def _place(file: str) -> str:
    """A file by its last two parts: "…u/.local/share/nvim/lazy/LazyVim/lua/lazyvim/util/ui.lua" -> "util/ui.lua"."""
    return "/".join(file.replace("\\", "/").split("/")[-2:])


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at = next(i for i, line in enumerate(lines) if line.strip() == _TRACEBACK)
    message = ""
    for line in reversed(lines[max(0, at - 20) : at]):
        located = _LOCATED.search(line[:MAX_LINE].strip())
        if located:
            message = located["message"].strip()
            break
    frames = []
    for line in lines[at + 1 :]:
        found = _FRAME.match(line[:MAX_LINE])
        if found is None:
            if frames or line.strip():
                break
            continue
        file = found["file"]
        if _RUNTIME_FILES.match(file):
            continue
        if found["name"]:
            name = found["name"]
        elif found["defined"]:
            name = f"<function:{found['defined'].rsplit(':', 1)[-1]}>"
        else:
            name = "<main chunk>" if found["chunk"] else (found["other"] or "")
        frames.append(Frame(function=f"{_place(file)}:{name}", file=file))
    crash_type = mask_message(message, 160) if message else ""
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="lua")
