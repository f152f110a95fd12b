"""The Swift runtime's report of a trap: ``fatalError``, a failed ``precondition`` or ``assert``, a force-unwrapped nil.

``SourceKittenFramework/library_wrapper.swift:58: Fatal error: Loading sourcekitdInProc.framework/… failed``
(Swift 5.3 and later), ``Fatal error: Loading sourcekitd.framework/… failed: file /tmp/…/library_wrapper.swift,
line 59`` (before), ``fatal error: …: file …, line …`` (Swift 3), each written where the program stops, often
quoted in a sentence or followed by the shell's "Illegal instruction: 4".

As a Rust panic is, the trap is keyed by its message and its file, without
the line, which moves with every release of the program (SwiftLint's one
sourcekitd failure is at lines 31, 39, 58, 59 and 66 of library_wrapper.swift
in five of its reports); a stock message ("Unexpectedly found nil while
unwrapping an Optional value", "Index out of range") says only which kind of
trap, and keeps the line (crashes.signatures.v2). The file is named by its
base name: the absolute path is one build machine's.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import lines_of, mask_message, path_before, per_text

FORMAT = "swift"
_KINDS = r"(?P<kind>[Ff]atal error|Precondition failed|Assertion failed)"
# "F.swift:N: Fatal error: message", anywhere on its line (a sentence may quote it: '… this error "F.swift:31:
# Fatal error: …", when …'): matched from its ".swift:", the file's path read back from there to a blank or a
# quote (a pattern searched along a long line would try every start).
_NEW_TAIL = re.compile(r"\.swift:(?P<line>\d{1,9}): " + _KINDS + r"(?:: (?P<message>.{0,600}))?$")
# "Fatal error: message: file F.swift, line N" at the line's start.
_OLD = re.compile(
    r"^\s{0,8}" + _KINDS + r": (?P<message>.{0,600}?):? file (?P<file>\S{1,500}\.swift), line (?P<line>\d{1,9})\s*$"
)
_NEEDLE = ".swift"
_STANDARD_LIBRARY = "Swift/"
_STANDARD_LIBRARY_BUILT = "/stdlib/public/"
_QUOTES = "\"'`"


@per_text
def _first(text: str) -> tuple[str, int, str, str] | None:
    """(file, line, kind, message) of the first trap line in ``text``."""
    for line in lines_of(text):
        if _NEEDLE not in line:
            continue
        old = _OLD.match(line)
        if old:
            return old["file"], int(old["line"]), old["kind"].capitalize(), old["message"].strip()
        new = _new_form(line)
        if new:
            return new
    return None


def _new_form(line: str) -> tuple[str, int, str, str] | None:
    at = line.find(".swift:")
    while at > 0:
        found = _NEW_TAIL.match(line, at)
        if found:
            begins = path_before(line, at)
            message = (found["message"] or "").strip()
            before = line[begins - 1] if begins else ""
            if before and before in _QUOTES and before in message:
                message = message[: message.index(before)].strip()  # quoted in a sentence: its closing quote
            return line[begins : at + len(_NEEDLE)], int(found["line"]), found["kind"].capitalize(), message
        at = line.find(".swift:", at + 1)
    return None


def recognize(text: str) -> bool:
    """True for a text holding the Swift runtime's trap line with its file."""
    return _NEEDLE in text and ("rror: " in text or "failed" in text) and _first(text) is not None


def parse(text: str) -> ParsedTrace:
    """The trap's message as the crash, and its file as the site (none where the standard library trapped)."""
    file, line, kind, message = _first(text) or ("", 0, "", "")
    path = file.replace("\\", "/")
    # The standard library names its own files "Swift/Array.swift" (before Swift 5.3, by the path it was built
    # at: ".../swift/stdlib/public/core/ContiguousArrayBuffer.swift"): an index out of range there is any
    # program's, as a Rust panic in core's files is; its message is all the trap says.
    standard = path.startswith(_STANDARD_LIBRARY) or _STANDARD_LIBRARY_BUILT in path
    name = "" if standard else path.rsplit("/", 1)[-1]
    return ParsedTrace(
        format=FORMAT,
        crash_type=mask_message(message, 160) if message else kind,
        message=message,
        frames=(Frame(function="", file=name, line=None, source="panic site"),) if name else (),
        language="swift",
        site=name,
        site_line=line if name else None,
    )
