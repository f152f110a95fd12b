"""Python tracebacks as IPython prints them (Jupyter, Colab), read back as CPython prints them.

Reports from notebooks paste IPython's traceback: a rule, the exception's
type and ``Traceback (most recent call last)`` on one line, then per frame
a location line and a few numbered source lines with an arrow at the one
that ran. The location comes in three forms, by IPython's version::

    /usr/lib/python3.10/site-packages/pkg/mod.py in load(self, name)     (IPython 7 and before;
    <ipython-input-3-5e1c2d> in <module>                                  Colab links the path:
                                                                          "[/usr/…/mod.py](https://…) in load(…)")
    File ~/venv/lib/python3.11/site-packages/pkg/mod.py:197, in Loader.load(self, name)   (IPython 8)
    Cell In[1], line 3                                                    (a notebook cell)

Colab folds the frames between the first and the last ("19 frames"); IPython
8 says ``[... skipping hidden 1 frame]``. Each block becomes ``Traceback
(most recent call last):`` and ``File "…", line N, in f`` lines with the
arrowed source line, so the Python parser reads it as any traceback.
"""

from __future__ import annotations

import re

from crashes.traces.python import HEADER, frame_line
from crashes.traces.text import MAX_LINE

_TITLE = "Traceback (most recent call last)"
_TITLE_WITHOUT_COLON = re.compile(r"Traceback \(most recent call last\)(?!:)")
_HEADER = re.compile(r"^\s{0,8}[A-Za-z_][\w.]{0,200}\s+Traceback \(most recent call last\)\s*$")
# IPython 7: "path in function(arguments)"; the path Colab links, or a cell's "<ipython-input-3-…>".
_OLD_LOCATION = re.compile(
    r"^(?:\[(?P<linked>[^\]\n]{1,500})\]\([^)\n]{0,500}\)|(?P<file>\S{1,500}))\s+in\s+(?P<function>[^\s(]{1,300})"
)
_NEW_LOCATION = re.compile(r"^File (?P<file>\S.{0,500}?):(?P<line>\d{1,9}), in (?P<function>[^\s(]{1,300})")
# A cell's own code ("Cell In[1], line 3"), or a function the cell defined ("Cell In[1], line 214, in
# perm_test(clf, …)"); IPython 8.0 to 8.4 said "Input In [3], in <cell line: 1>()".
_CELL = re.compile(
    r"^(?:Cell In ?\[\d{1,9}\], line (?P<line>\d{1,9})(?:, in (?P<function>[^\s(]{1,300}))?"
    r"|Input In \[\d{1,9}\], in (?P<in>[^\s(]{1,300}))"
)
# "----> 3108             return self.__dep_map" (an arrow's length varies with the numbers' width).
_ARROW = re.compile(r"^-*> ?(?P<line>\d{1,9})\s?(?P<code>.*)$")
_CONTEXT = re.compile(r"^\s+\d{1,9}(?:\s|$)")
_FOLDED = re.compile(r"^(?:\d{1,6} frames?|\[\.\.\. skipping (?:hidden )?\d{1,6} frames?\])\s*$")


def _source_like(path: str) -> bool:
    """Whether an old-form location names a file: a path, a module's .py, or a cell's input."""
    return "/" in path or "\\" in path or path.endswith(".py") or path.startswith("<ipython-input")


class _Frames:
    """The CPython lines written so far, and the frame whose line number the arrow has yet to give."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.pending: tuple[str, str, str] | None = None

    def open(self, file: str, line: str, function: str) -> None:
        self.close()
        self.pending = (file, line, function)

    def arrow(self, line: str, code: str) -> None:
        if self.pending is not None:
            self.close(line)
            self.out.append("    " + code.strip())

    def close(self, arrowed: str = "0") -> None:
        """Write the pending frame, with its own line number or else the arrow's (0: none was shown)."""
        if self.pending is not None:
            file, given, function = self.pending
            self.out.append(frame_line(file, given or arrowed, function))
            self.pending = None


def _location(line: str) -> tuple[str, str, str] | None:
    """(file, line or "", function) of a frame's location line in any of IPython's forms."""
    new = _NEW_LOCATION.match(line)
    if new:
        # IPython names the function with its class ("Loader.load"), CPython by its own name.
        return new["file"], new["line"], new["function"].rsplit(".", 1)[-1]
    cell = _CELL.match(line)
    if cell:
        function = cell["function"] or "<module>"
        return "<cell>", cell["line"] or "", function.rsplit(".", 1)[-1]
    old = _OLD_LOCATION.match(line)
    if old:
        file = old["linked"] or old["file"]
        if _source_like(file):
            return file, "", old["function"].rsplit(".", 1)[-1]
    return None


def render(text: str) -> tuple[str, str]:
    """``text`` with every IPython traceback written as CPython's, and the repair's name."""
    # CPython's own heading has its colon: most texts are done with here, at one scan.
    if _TITLE not in text or _TITLE_WITHOUT_COLON.search(text) is None:
        return text, ""
    lines = text.split("\n")
    if not any(_TITLE in line and _HEADER.match(line[:MAX_LINE]) for line in lines):
        return text, ""
    frames = _Frames()
    rendered, inside = 0, False
    for line in lines:
        capped = line[:MAX_LINE]
        if _TITLE in capped and _HEADER.match(capped):
            frames.close()
            frames.out.append(HEADER)
            rendered += 1
            inside = True
            continue
        if inside:
            location = _location(capped)
            if location:
                frames.open(*location)
                continue
            arrow = _ARROW.match(capped) if capped.startswith(("-", ">")) else None
            if arrow:
                frames.arrow(arrow["line"], arrow["code"])
                continue
            if _CONTEXT.match(capped) or _FOLDED.match(capped.strip()):
                continue
            frames.close()
            # The exception line ends the block (a blank inside it goes by).
            inside = not capped.strip() or capped[:1].isspace()
        frames.out.append(line)
    frames.close()
    return "\n".join(frames.out), f"{rendered} IPython traceback{'s' if rendered > 1 else ''} read as Python's"
