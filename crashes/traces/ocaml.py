"""OCaml's uncaught exceptions: the OCaml compiler's own, Rocq's (Coq's) anomalies, Haxe's and any OCaml program's.

``Fatal error: exception Invalid_argument("index out of bounds")``
``Raised by primitive operation at file "bytecomp/translmod.ml", line 895, characters 46-55``
``Called from Stdlib__List.map in file "list.ml", line 92, characters 20-23``

The crash is the exception (its constructor and arguments) and the frames
its backtrace gives, innermost first, each by its file (OCaml names the
function only since 4.14, and one crash is reported from both). Rocq wraps the exception in an anomaly
(``Error: Anomaly "Uncaught exception Not_found."``); ``assert`` fails with
its place (``File "kernel/safe_typing.ml", line 462, characters 2-8:
Assertion failed``), which is the site. The standard library's frames
(``list.ml``, Rocq's ``clib/``) are where every crash passes, not where it
happened. ``Not_found`` or ``Invalid_argument("index out of bounds")`` is the
stock failure of a lookup or an index: then only the frames tell two apart.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, file_name

FORMAT = "ocaml"
# The runtime's last words, also quoted inside a sentence ("the compiler crashes with: “Fatal error: exception …”").
_FATAL = re.compile(r"Fatal error: exception (?P<exception>[A-Z][\w.']{0,200}(?:\s?\([^\n]{0,300}?\))?)(?=[\s”\"'`]|$)")
# Rocq's anomaly, on one line or with its message on the next: Anomaly "…" / Anomaly: … ; or quoted in a
# sentence ("Produces `Anomaly "Uncaught exception …"`").
_ANOMALY = re.compile(
    r"^(?:Error:\s*)?Anomaly\b[\s:]*(?P<message>\S[^\n]{0,500})?$|(?<=[\s`'\"“])Anomaly (?P<quoted>\"[^\n]{1,500})"
)
_FRAME = re.compile(
    r"^\s*(?:Raised at|Re-raised at|Called from|Raised by primitive operation at)\s+"
    r"(?:(?P<function>[\w.'$]{1,300}) in )?file \"(?P<file>[^\"\n]{1,300})\"(?: \(inlined\))?, line (?P<line>\d{1,9})"
)
# An assert's own place, and a bare place line (Haxe prints its backtrace's frames so).
_PLACE = re.compile(
    r"File \"(?P<file>[^\"\n]{1,300}\.ml[ily]?)\", line (?P<line>\d{1,9}), characters \d{1,9}-\d{1,9}"
    r"(?P<assertion>: Assertion failed)?"
)
_ASSERT_FAILURE = re.compile(r"^Assert_failure\s?\(\"(?P<file>[^\"]{1,300})\", (?P<line>\d{1,9}), \d{1,9}\)")
# The standard library's files, and Rocq's extension of it.
_STDLIB = re.compile(
    r"^(?:list|array|stdlib|hashtbl|map|set|string|bytes|printexc|option|seq|format|printf|lazy|stack|queue|"
    r"buffer|fun|result|arg|filename|sys|scanf|lexing|parsing|obj|gc|random|char|uchar|digest|marshal|"
    r"in_channel|out_channel|either|dynarray|camlinternal\w*)\.ml$|(?:^|/)clib/"
)


def recognize(text: str) -> bool:
    """True for OCaml's "Fatal error: exception", Rocq's anomaly, or an OCaml backtrace or assert's place."""
    if "Fatal error: exception " in text and _FATAL.search(text):
        return True
    if "Anomaly" in text and any(_ANOMALY.search(line.strip()) for line in text.split("\n") if "Anomaly" in line):
        return True
    return ".ml" in text and any(_frame(line) or _place(line) for line in text.split("\n") if ".ml" in line)


def _frame(line: str) -> re.Match | None:
    return _FRAME.match(line[:MAX_LINE]) if 'file "' in line else None


def _place(line: str) -> re.Match | None:
    return _PLACE.search(line[:MAX_LINE]) if 'File "' in line else None


def _anomaly(lines: list[str]) -> str:
    """What Rocq's anomaly says, without its quotes and "Uncaught exception" ("" when there is none)."""
    for index, line in enumerate(lines):
        found = _ANOMALY.search(line.strip()) if "Anomaly" in line else None
        if found is None:
            continue
        said = found["message"] or found["quoted"] or (lines[index + 1].strip() if index + 1 < len(lines) else "")
        # (Quoted in a sentence, it ends in the sentence's own marks: `Anomaly "…."`.)
        said = said.strip().rstrip(".`'”").strip('"').rstrip(".").strip()
        return said.removeprefix("Uncaught exception ").strip()
    return ""


def parse(text: str) -> ParsedTrace:
    """The exception (or the failed assert's place as the site) and the backtrace's own frames, innermost first."""
    lines = [line[:MAX_LINE] for line in text.split("\n")]
    fatal = _FATAL.search(text) if "Fatal error: exception " in text else None
    crash_type = fatal["exception"].strip() if fatal else _anomaly(lines)
    site = ""
    failed = _ASSERT_FAILURE.match(crash_type)
    if failed:
        site = f"{file_name(failed['file'])}:{failed['line']}"
    frames: list[Frame] = []
    for line in lines:
        frame, place = _frame(line), _place(line)
        if place and place["assertion"] and not site:
            # The assert's place says which check failed; the line, as a file holds many.
            site = f"{file_name(place['file'])}:{place['line']}"
        elif frame or place:
            found = frame or place
            name = file_name(found["file"])
            if not _STDLIB.search(found["file"].replace("\\", "/")) and not _STDLIB.search(name):
                # By its file: OCaml names the function only since 4.14, and one crash is reported from both.
                frames.append(Frame(function=name, file=found["file"]))
            if len(frames) >= MAX_FRAMES:
                break
    if site:
        crash_type = "Assertion failed"
    return ParsedTrace(
        format=FORMAT, crash_type=crash_type, message=crash_type, frames=tuple(frames), language="ocaml", site=site
    )
