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
from crashes.traces.text import MAX_LINE, file_name, lines_of, mask_message

FORMAT = "ocaml"
# The runtime's last words, also quoted inside a sentence ("the compiler crashes with: “Fatal error: exception …”").
# Printexc spells two of them out ("Stack overflow", "Out of memory").
# (Printed quoted by js_of_ocaml's runtime, "exception \"Assert_failure mo_idl/x.ml:106:9\"", and in Base's
# s-expression, "exception (Not_found_s \"List.find_exn: not found\")".)
_FATAL = re.compile(
    r"Fatal error: exception [\"(]?(?P<exception>Stack overflow|Out of memory|"
    r"[A-Z][\w.']{0,200}(?:\s?\([^\n]{0,300}?\))?)(?=[\s”\"'`)]|$)"
)
# Rocq's anomaly as Rocq prints it: `Anomaly "…"` (after "Error:" or alone), "Anomaly" alone with its quoted
# message on the next line, older Coq's `Anomaly: Uncaught exception Not_found. Please report.`; quoted in a
# sentence only with what an anomaly says (`Produces `Anomaly "Uncaught exception …"``), to its closing
# quote. ("Anomaly detected in frame 12", "Anomaly: unexpected state" are a program's own words.)
_ANOMALY = re.compile(
    r"^(?:Error:\s*)?Anomaly(?:\s?\"(?P<quoted>[^\n]*)|: (?P<message>(?=[^\n]*(?:Uncaught exception|Please report))"
    r"\S[^\n]*)|\s*)$"
    r"|(?<=[\s`'\"“])Anomaly \"(?P<sentence>(?:Uncaught exception |File \")[^\n]*?)\.?\"(?=[\s`'”,;]|$)"
)
# What follows a one-line anomaly's message: its closing quote, then Rocq's request to report it.
_ANOMALY_END = re.compile(r"\.?\"?\s*(?:Please report\b[^\n]*)?$")
# "Raised at f in file "x.ml", line 3" (4.14+ names the function, "f.(fun)" for a closure) or OCaml 5's
# "…, lines 3926-3928".
_FRAME = re.compile(
    r"^\s*(?:Raised at|Re-raised at|Called from|Raised by primitive operation at)\s+"
    r"(?:(?P<function>[\w.'$()]{1,300}) in )?file \"(?P<file>[^\"\n]{1,300})\"(?: \(inlined\))?, "
    r"lines? (?P<line>\d{1,9})"
)
# A failed assert's or match's own place, and a bare place line (Haxe prints its backtrace's frames so).
# Not the compiler's place of an error in the user's program ("File "x.ml", line 3, characters 4-9:").
_PLACE = re.compile(
    r"File \"(?P<file>[^\"\n]{1,300}\.ml[ily]?)\", lines? (?P<line>\d{1,9})(?:-\d{1,9})?, characters \d{1,9}-\d{1,9}"
    r"(?:: (?P<failure>Assertion failed|Pattern matching failed)|(?=\s*$))"
)
_ASSERT_FAILURE = re.compile(
    r"^(?P<kind>Assert|Match)_failure\s?\(\"(?P<file>[^\"]{1,300})\", (?P<line>\d{1,9}), \d{1,9}\)"
)
# The same, as js_of_ocaml's runtime prints it: "exception \"Assert_failure mo_idl/idl_to_mo.ml:106:9\"".
_QUOTED_FAILURE = re.compile(
    r"Fatal error: exception \"(?P<kind>Assert|Match)_failure (?P<file>[^\s\":]{1,300}):(?P<line>\d{1,9}):\d{1,9}\""
)
# The standard library's files (named bare, or in its own directory), and Rocq's extension of it.
_STDLIB = re.compile(
    r"^(?:.*/)?(?:stdlib|ocaml)/[^/]+$|(?:^|/)clib/|^(?:list|array|stdlib|hashtbl|map|set|string|bytes|printexc|"
    r"option|seq|format|printf|lazy|stack|queue|buffer|fun|result|arg|filename|sys|scanf|lexing|parsing|obj|gc|"
    r"random|char|uchar|digest|marshal|in_channel|out_channel|either|dynarray|camlinternal\w*)\.ml$"
)


def recognize(text: str) -> bool:
    """True for OCaml's "Fatal error: exception", Rocq's anomaly, or an OCaml backtrace or assert's place."""
    if "Fatal error: exception " in text and _FATAL.search(text):
        return True
    if "Anomaly" in text and _anomaly(list(lines_of(text))):
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
        said = found["quoted"] or found["message"] or found["sentence"]
        if said is None:
            # "Anomaly" alone: its message is the quoted line below it, or this is no anomaly of Rocq's.
            below = lines[index + 1].strip() if index + 1 < len(lines) else ""
            if not below.startswith('"'):
                continue
            said = below
        # Its closing quote and Rocq's "Please report at …" (on the same line when printed in one), or a
        # sentence's own marks after a quoted one (`Anomaly "…."`.).
        said = _ANOMALY_END.sub("", said.strip().rstrip(".`'”")).strip('"').rstrip(".").strip()
        return said.removeprefix("Uncaught exception ").strip()
    return ""


def parse(text: str) -> ParsedTrace:
    """The exception (or the failed assert's place as the site) and the backtrace's own frames, innermost first."""
    lines = list(lines_of(text))
    fatal = _FATAL.search(text) if "Fatal error: exception " in text else None
    crash_type = fatal["exception"].strip() if fatal else _anomaly(lines)
    # Printexc's spelling of two constructors, the runtime's own: one exception.
    crash_type = {"Stack overflow": "Stack_overflow", "Out of memory": "Out_of_memory"}.get(crash_type, crash_type)
    site = ""
    failed = _ASSERT_FAILURE.match(crash_type)
    quoted = _QUOTED_FAILURE.search(text) if fatal and not failed and crash_type.endswith("_failure") else None
    if failed or quoted:
        found = failed or quoted
        site = f"{file_name(found['file'])}:{found['line']}"
        crash_type = "Assertion failed" if found["kind"] == "Assert" else "Pattern matching failed"
    frames: list[Frame] = []
    for line in lines:
        frame, place = _frame(line), _place(line)
        if place and place["failure"]:
            if not site:
                # The assert's place says which check failed; the line, as a file holds many.
                site, crash_type = f"{file_name(place['file'])}:{place['line']}", place["failure"]
        elif frame or place:
            found = frame or place
            path = found["file"].replace("\\", "/")
            if not _STDLIB.search(path):
                # By its file: OCaml names the function only since 4.14, and one crash is reported from both.
                frames.append(Frame(function=file_name(path), file=found["file"]))
            if len(frames) >= MAX_FRAMES:
                break
    crash_type = mask_message(crash_type, 300, quoted=False)
    return ParsedTrace(
        format=FORMAT, crash_type=crash_type, message=crash_type, frames=tuple(frames), language="ocaml", site=site
    )
