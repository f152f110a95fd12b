"""Haskell programs' crashes: GHC's own panics, its runtime's internal errors, and any program's ``error``
with the call stack GHC prints for it (Elm's, PureScript's, Agda's compilers are Haskell programs).

``ghc: panic! (the 'impossible' happened)``
``  (GHC version 8.1.20161125 for x86_64-unknown-linux):``
``        Can't serialise IfaceTcTyVar``
``  a_ary[sk:1]``
``  Call stack:``
``      CallStack (from HasCallStack):``
``        pprPanic, called at compiler/iface/IfaceType.hs:1331:10 in ghc:IfaceType``

GHC's maintainers read a panic by its first line (the function that gave
up and what it says, "Can't serialise IfaceTcTyVar"), not by the names it
prints below or on that line, which are the user's program's with GHC's
uniques (``a_ary[sk:1]``, ``$cFlags{v}``). A call-stack entry is a call and
the place it was made: ``pprPanic, called at … in ghc:IfaceType`` says the
panic was raised in ``IfaceType``; the place is the frame, named by its
module (the file's path is the build's, its line moves between versions).
Places in the panic machinery (``Panic``, ``Outputable``, a program's own
``Crash`` or ``Impossible`` module) and in the libraries every program uses
(``base``, ``containers``) are where every crash passes: "Map.!: given key
is not an element in the map" from ``containers`` says which lookup
failed, not whose. Where a program says only where it failed, the place
is the crash: an old GHC's "ASSERT failed! file F line N", Agda's
"Location of the error: src/full/Agda/…/Common.hs:178" (before it printed
call stacks), a failed pattern match's "A/B.hs:(12,5)-(14,9):
Non-exhaustive patterns in lambda", each by its module and line (one
module holds many checks); a match in a named function by the module and
the function, whose line moves between releases.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import CUT_LINES, MAX_LINE, PROMPT, join_cut_lines, lines_of, mask_message

FORMAT = "haskell"
_PANIC = "panic! (the 'impossible' happened)"
# "  (GHC version 8.2.1 for x86_64-unknown-mingw32):", GHC 9's "  GHC version 9.12.1:", the runtime's
# "    (GHC version 8.0.1 for x86_64_unknown_linux)".
_VERSION = re.compile(r"^\s*\(?GHC version [^\n]{1,120}?\)?:?\s*$")
# The runtime's "ghc: internal error: evacuate: strange closure type 0", its version below it.
_INTERNAL = re.compile(r"^\s*[\w.<>-]{1,80}: internal error: (?P<message>\S.{0,600})$")
# "  pprPanic, called at compiler/GHC/Core/Subst.hs:123:4 in ghc-9.2.1:GHC.Core.Subst", alone on its
# line or after a label (Agda's "Location of the error: __IMPOSSIBLE__, called at …"): the call, then
# its place (matched from the literal on: a pattern searched along a long line would be quadratic).
_ENTRY_NEEDLE = ", called at "
_PLACE = re.compile(
    r"(?P<file>(?:[A-Za-z]:)?[^\s:]{1,500}):(?P<line>\d{1,9}):\d{1,9} in (?P<unit>[^\s:]{1,200}):"
    r"(?P<module>[\w.']{1,300})\s*$"
)
# "elm: Map.!: given key is not an element in the map" above the call stack: the program, its message.
_PROGRAM_ERROR = re.compile(r"^(?P<program>[\w.-]{1,80}): (?P<message>\S.{0,600})$")
_CALL_STACK = "CallStack (from HasCallStack):"
# Old GHC's assertion, in place of a panic's message.
_ASSERT = re.compile(r"^ASSERT failed!\s*file (?P<file>\S{1,500}) line (?P<line>\d{1,9})")
# Agda's internal error before its call stacks: "Location of the error: src/full/Agda/X/Y.hs:178", the
# place on the same line or the next.
_LOCATION = "Location of the error:"
# (Agda's Emacs mode quotes it in a Lisp string with its newlines escaped: "…/Common.hs:178\\n" nil.)
_LOCATION_PLACE = re.compile(r"^\s*(?P<file>[^\s:\\]{1,500}\.l?hs):(?P<line>\d{1,9})(?:\s*$|\\n)")
# A pattern match the compiler could not prove complete, failing at run time where it was written:
# "shellcheck: ShellCheck/Analytics.hs:(1536,55)-(1539,81): Non-exhaustive patterns in lambda".
_FAILURES = ("Non-exhaustive patterns in ", "Non-exhaustive guards in ", "Irrefutable pattern failed", "Missing field")
# What a failure's line holds however a terminal cut it (a cut may fall on the blank after "patterns").
_FAILURE_STEMS = ("Non-exhaustive", "Irrefutable", "Missing field")
# How a failure's line ends when it is whole (a function's name, a construct's): one ending so is no cut.
_FAILURE_END = re.compile(
    r"(?:in function [\w'.]{1,200}|in (?:lambda|case|\\case|record update|multi-way if)|"
    r"Irrefutable pattern failed for pattern .{1,300}|Missing field in record construction [\w'.]{1,200})\s*$"
)
_IN_FUNCTION = re.compile(r" in function [\w']")
_PATTERN_FAILURE = re.compile(
    r"^(?:[\w.-]{1,80}: )?(?P<file>[^\s:]{1,500}\.l?hs):(?:\((?P<range_line>\d{1,9}),\d{1,9}\)-\(\d{1,9},\d{1,9}\)|"
    r"(?P<line>\d{1,9}):\d{1,9}(?:-\d{1,9})?): (?P<failure>(?:" + "|".join(_FAILURES) + r").{0,300})$"
)
# The panic machinery's modules and a program's own crash helpers (GHC.Utils.Panic, Outputable,
# Language.PureScript.Crash, Agda.Utils.Impossible).
_MACHINERY = frozenset({"Panic", "Outputable", "Crash", "Impossible"})
# GHC's boot libraries, by their unit's name without its version and hash ("containers-0.5.11.0-K2T…").
_LIBRARIES = frozenset(
    {
        "base", "ghc-internal", "ghc-prim", "containers", "bytestring", "text", "array", "transformers", "mtl",
        "unordered-containers", "vector", "hashable", "deepseq", "directory", "filepath", "process", "stm",
        "primitive",
    }
)  # fmt: skip
_UNIT_VERSION = re.compile(r"-\d[\w.]*(?:-[0-9A-Za-z]+)?$")
# What GHC prints of the user's program in a panic's first line, word by word: a unique's braces and
# brackets ("$cFlags{v}", "a_ary[sk:1]"), a package-qualified name ("ghc-prim:GHC.Types.:"), a `quoted' one.
_GHC_NAME = re.compile(r"[{}$\[\]]|^`|\w:[^\s:]")
# As much of the first line as is read.
_HEADLINE = 400
# Lines searched below the panic for GHC's version line.
_VERSION_WITHIN = 3


def _library(unit: str) -> bool:
    return _UNIT_VERSION.sub("", unit) in _LIBRARIES


def _entry(line: str) -> re.Match | None:
    """A call-stack entry's place, or None."""
    at = line.find(_ENTRY_NEEDLE)
    words = line[:at].split() if at > 0 else []
    # The call is one word, alone on the line or after a label's colon.
    if not words or "," in words[-1] or not (len(words) == 1 or words[-2].endswith(":")):
        return None
    return _PLACE.match(line, at + len(_ENTRY_NEEDLE))


def _entries(lines: list[str]) -> list[re.Match]:
    return [found for line in lines if _ENTRY_NEEDLE in line and (found := _entry(line))]


def _mask_names(headline: str) -> str:
    words = headline[:_HEADLINE].split()
    return mask_message(" ".join("?" if _GHC_NAME.search(word) else word for word in words), 160)


def _panic_at(lines: list[str]) -> int:
    """The index of GHC's version line below a panic's (or an internal error's) first line, or -1."""
    for index, line in enumerate(lines):
        if _PANIC in line or ("internal error: " in line and _INTERNAL.match(line)):
            for offset in range(1, _VERSION_WITHIN + 1):
                if index + offset < len(lines) and _VERSION.match(lines[index + offset]):
                    return index + offset
    return -1


def _module(path: str) -> str:
    """A source file's module: its path's last capitalised components (src/full/Agda/Syntax/Parser.hs ->
    Agda.Syntax.Parser; compiler/typecheck/TcTyFuns.lhs -> TcTyFuns)."""
    parts = path.replace("\\", "/").rsplit(".", 1)[0].split("/")
    kept = []
    for part in reversed(parts):
        if not part[:1].isupper():
            break
        kept.append(part)
    return ".".join(reversed(kept)) or parts[-1]


def _place(lines: list[str]) -> tuple[str, str] | None:
    """Where a program failed without a stack, as "Module:line", and how: Agda's internal error's location,
    a pattern match's failure; None when the text says neither."""
    for index, line in enumerate(lines):
        if _LOCATION in line:
            # (Whatever a paste's markup put before the label: "## Location of the error: …".)
            rest = line[line.find(_LOCATION) + len(_LOCATION) :]
            found = _LOCATION_PLACE.match(rest if rest.strip() or index + 1 == len(lines) else lines[index + 1])
            if found:
                return f"{_module(found['file'])}:{found['line']}", "internal error"
        elif any(failure in line for failure in _FAILURES):
            found = _PATTERN_FAILURE.match(line.strip())
            if found:
                failure = mask_message(found["failure"], 160)
                if _IN_FUNCTION.search(found["failure"]):
                    # The function names the match; its line moves between releases (shellcheck#3479).
                    return _module(found["file"]), failure
                return f"{_module(found['file'])}:{found['range_line'] or found['line']}", failure
    return None


def _read(line: str) -> bool:
    """Whether a line is a whole record: a call-stack entry, Agda's location with its place, a failed match."""
    if _ENTRY_NEEDLE in line and _entry(line):
        return True
    if _LOCATION in line and _LOCATION_PLACE.match(line[line.find(_LOCATION) + len(_LOCATION) :]):
        return True
    return any(failure in line for failure in _FAILURES) and bool(_PATTERN_FAILURE.match(line.strip()))


def _marked(line: str) -> bool:
    return _ENTRY_NEEDLE in line or _LOCATION in line or any(stem in line for stem in _FAILURE_STEMS)


def _goes_on(line: str) -> bool:
    """Whether a line may be the rest of one a terminal cut: at column 0 (or one blank in, where the cut
    fell on a blank; an entry's next is indented more), and no record or prompt of its own."""
    return (
        bool(line.strip())
        and (not line[:1].isspace() or (line[:1] == " " and not line[1:2].isspace()))
        and not PROMPT.match(line)
        and not _marked(line)
        and _CALL_STACK not in line
    )


def _lines(text: str) -> list[str]:
    """The text's lines, each record a terminal's width cut joined back.

    A cut falls anywhere: in an entry's module ("in ghc:IfaceT" / "ype"), in Agda's path, in a failure's
    words ("in functio" / "n hasNum"), leaving a line that may read whole but wrong. A record's line as
    wide as a terminal, followed by a line at column 0 that is no record of its own (an entry's next is
    indented; a failure's is blank, or the prompt), goes on in it, as long as the join still reads; a
    failure's line that ends as one does ("in function checkCmd") is whole, whatever follows it.
    """
    lines, _ = join_cut_lines(
        list(lines_of(text)),
        lambda line: len(line) >= MIN_WRAP_WIDTH and _marked(line) and not _FAILURE_END.search(line[-300:]),
        lambda joined, following: _read(joined) and not _goes_on(following),
        goes_on=_goes_on,
        most=CUT_LINES,
    )
    return lines


def recognize(text: str) -> bool:
    """True for GHC's panic or internal error with its version line, a Haskell call stack's entries, Agda's
    internal error's location or a pattern match's failure at its place."""
    panic = "GHC version" in text and ("panic!" in text or "internal error: " in text)
    called = _ENTRY_NEEDLE in text
    placed = _LOCATION in text or any(stem in text for stem in _FAILURE_STEMS)
    if not (panic or called or placed):
        return False
    lines = _lines(text)
    return (
        (panic and _panic_at(lines) != -1)
        or (called and bool(_entries(lines)))
        or (placed and _place(lines) is not None)
    )


def _headline(lines: list[str], version: int) -> str:
    """A panic's first line of its own (below the version line), or an internal error's message."""
    internal = _INTERNAL.match(lines[version - 1]) or (version > 1 and _INTERNAL.match(lines[version - 2]))
    if internal:
        return internal["message"].strip()
    return next((line.strip() for line in lines[version + 1 : version + 4] if line.strip()), "")


def _frames(entries: list[re.Match]) -> list[Frame]:
    """The call stack's places outside the panic machinery and the libraries, innermost first."""
    frames = []
    for entry in entries[: 4 * MAX_FRAMES]:
        module = entry["module"]
        if _library(entry["unit"]) or _MACHINERY & set(module.split(".")):
            continue
        frames.append(Frame(function=module, file=entry["file"], line=int(entry["line"])))
    return frames


def parse(text: str) -> ParsedTrace:
    """A panic by its first line and the module that raised it; a program's error by its message and places."""
    lines = _lines(text)
    version = _panic_at(lines)
    if version != -1:
        headline = _headline(lines, version)
        below = lines[version:]
    else:
        stack = next((index for index, line in enumerate(lines) if _CALL_STACK in line), -1)
        above = lines[stack - 1].strip() if stack > 0 else ""
        program_error = _PROGRAM_ERROR.match(above[:MAX_LINE]) if above else None
        headline = program_error["message"] if program_error else ""
        below = lines[max(stack, 0) :]
    frames = _frames(_entries(below))
    asserted = _ASSERT.match(headline)
    if asserted:
        site = f"{_module(asserted['file'])}:{asserted['line']}"
        return ParsedTrace(format=FORMAT, crash_type="ASSERT failed", message=headline, language="haskell", site=site)
    placed = _place(lines) if not frames and version == -1 else None
    if placed:
        # The place is the crash (with its line where nothing else tells a module's checks apart).
        return ParsedTrace(format=FORMAT, crash_type=placed[1], message=placed[1], language="haskell", site=placed[0])
    # A program's error raised in a library, no place of its own on the stack: the library's stock
    # failure (the message is the library's) names no bug; the text's other lines may.
    crash_type = _mask_names(headline) if (frames or version != -1) else ""
    site, site_line = "", None
    if frames:
        site, site_line = frames[0].function, frames[0].line
        frames[0] = Frame(function=site, file=frames[0].file, line=site_line, source="panic site")
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=headline,
        frames=tuple(frames[:MAX_FRAMES]),
        language="haskell",
        site=site,
        site_line=site_line,
    )
