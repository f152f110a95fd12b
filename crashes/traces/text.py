"""Linear-time text helpers the parsers share.

Hostile traces have megabyte lines, runs of spaces and no newlines at all.
A ``re.MULTILINE`` search with a lazy ``.+?\\s*$`` is quadratic on such a
line, so parsers look at one line at a time, only at lines holding a
literal the pattern needs, and only at the first :data:`MAX_LINE`
characters of each.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")
# No frame or message line we read is longer; anything past it is noise.
MAX_LINE = 2000

# A shell's prompt, above a pasted trace or in place of a message: "$ cmd", "% cmd", "❯ cmd",
# "user@host:~/src$ cmd", "(venv) user@host:~$ cmd", "[user@host dir]$ cmd", "PS C:\src> cmd", "C:\src>cmd".
PROMPT = re.compile(
    r"^(?:\([\w.-]{1,100}\) )?(?:[$%#\u276f\u279c] |\[[^\]\n]{1,200}\][$#] |[\w.-]+@[\w.-]+[:~ ]|"
    r"(?:PS )?[A-Za-z]:\\[^>\n]{0,200}> ?)"
)

_HEX = re.compile(r"0x[0-9a-fA-F]+")
# An address or a hash printed without its 0x (a kernel's "segfault at 174ab640 ip 00007f77174ddd5f"):
# eight to sixteen hex digits, at least one a letter and one a digit (all digits are a number, masked below).
_BARE_HEX = re.compile(r"\b(?=[0-9a-fA-F]{0,15}[a-fA-F])(?=[0-9a-fA-F]{0,15}[0-9])[0-9a-fA-F]{8,16}\b")
_QUOTED = re.compile(r"`[^`\n]{0,200}`|'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|‘[^’\n]{0,200}’|“[^”\n]{0,200}”")
# A quote left open where the message ends (the code it quotes went on over lines the reader did not
# take: "bad span: `macro_rules!`: `macro_rules ! say_hello {"). Not "'": it is an apostrophe as often.
_UNCLOSED = re.compile(r"(?<![^\s:(\[])[`\"][^`\"\n]{0,200}$")
# The look-ahead lets the engine skip, at one test each, the positions where no path can start.
_PATH = re.compile(r"(?=[A-Za-z]:[\\/]|[\\/])(?:[A-Za-z]:)?(?:[\\/][\w.+@-]{1,100}){2,}[\\/]?")
# A file named without a leading slash (src/main.rs, test.py, FileMap(fmt/mod.rs)): the user's
# input as much as an absolute path is. Known source, object and data extensions only, so that
# module.attr and Class.method stay; one-letter ones but C's are too often a name's last part.
_FILE_NAME = re.compile(
    r"(?<![\w.+@/\\-])(?!(?:self|this|Self)\.)[\w+@-][\w.+@/\\-]{0,200}?\."
    r"(?:rs|py|pyi|pyx|c|h|cc|cpp|cxx|hh|hpp|hxx|mm|go|java|kt|kts|scala|cs|fs|js|mjs|cjs|jsx|ts|tsx|zig|swift|"
    r"rb|php|lua|hs|ml|dart|jl|cr|nim|dfy|sol|wasm|wat|ll|bc|asm|so|dylib|dll|exe|toml|json|yaml|yml|xml|html|"
    # Not a field or method of an object (self.cfg.is_some(), self.lock(), Node.js is a name).
    r"txt|md|ini|proto|sql|csv|sh)(?![\w-]|\.\w|\()"
)
# A path ending in a file's extension is marked first, so that a relative one's head joins it.
_FILE_MARK = "\x00path\x00"
_FILE_END = re.compile(r"\.[A-Za-z]\w{0,7}[\\/]?$")
_PATH_HEAD = re.compile(r"(?<![\w.+@-])[\w.+@-]{1,100}\x00path\x00")


# Windows's own folders whose names hold blanks, one segment of a path ("C:/Program Files/Go/src/x.go"): the toolchain's
# place on every machine, no word of a message. (A user's own folder with a blank is not known from a sentence.)
_WINDOWS_FOLDER = re.compile(
    r"(?<=[\\/])(?:Program Files(?: \(x86\))?|Common Files|Documents and Settings|Application Data)(?=[\\/])"
)


def _folder_without_blanks(match: re.Match) -> str:
    return match.group().replace(" ", "_").replace("(", "").replace(")", "")


def _mask_path(match: re.Match) -> str:
    found = match.group()
    if "/" not in found and ":" not in found and not _FILE_END.search(found):
        # Backslashes alone, no drive and no file: a PHP namespace ("OC\\Files\\Utils\\Scanner"), not a path.
        return found
    return _FILE_MARK if _FILE_END.search(found) else "<path>"


# A value with or without its fraction ("SystemTimeError(7140s)", "(6795364578.871345152s)"); not the 0 of a masked 0x?.
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?!x\?)")
# rustc names a crate with its hash, which changes with every build: bevy_inspector_egui[4c35]::x.
# Opening on the bracket (a literal the engine finds fast), its word character checked behind it.
_CRATE_HASH = re.compile(r"\[(?<=\w\[)[0-9a-f]{4,16}\](?=::)")
# rustc prints an item of the program it compiles as DefId(0:12 ~ crate::module::{closure#0}): the
# path is the reporter's code, named as a quoted name would be (its numbers are masked below).
# (The standard library's items, core::marker::Sized, are no one's program: kept.)
_DEF_PATH = re.compile(r"(DefId\([\d:]{1,30} ~ )(?!(?:core|alloc|std|proc_macro)::)[^\s()]{1,300}")


def per_text(function: Callable[[str], T]) -> Callable[[str], T]:
    """``function(text)``, kept for the last text it was called with.

    The registry asks a format whether it recognizes a text, then that format parses the
    same text: what both read first (lines a wrap cut, joined back) is worked out once.
    Return something immutable: both callers share it.
    """
    kept = functools.lru_cache(maxsize=1)(function)
    _PER_TEXT.append(kept)
    return kept


_PER_TEXT: list = []


def forget_texts() -> None:
    """Drop what :func:`per_text` kept: a benchmark timing one text again must not time the memo."""
    for kept in _PER_TEXT:
        kept.cache_clear()


def without_file_names(text: str) -> str:
    """``text`` without the files it names without a leading slash (src/main.rs, pkg/x.py)."""
    return _FILE_NAME.sub("", text) if "." in text else text


def file_name(path: str) -> str:
    """A path's last component, whichever system's separators it was printed with."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


# What ends a path read back along a line: a blank, a quote, a bracket or a field's colon or semicolon.
_PATH_ENDS = frozenset(" \t:;'\"`()")
_MAX_PATH = 500


def path_before(line: str, end: int) -> int:
    """Where the path ending at ``end`` begins: read back to a blank, a quote or a field mark, at most
    :data:`_MAX_PATH` characters, a drive ("C:") kept. Found from its literal tail ("…/x.rs:12") and read back,
    a path costs its own length, not a pattern tried at every start along the line."""
    begins = end
    while begins > 0 and end - begins < _MAX_PATH and line[begins - 1] not in _PATH_ENDS:
        begins -= 1
    if begins >= 2 and line[begins - 1] == ":" and line[begins - 2].isalpha():
        begins -= 2  # "C:\Users\…", "C:/…"
    return begins


def lines_of(text: str, limit: int | None = None) -> Iterator[str]:
    """The first ``limit`` lines of ``text`` (all by default), each cut to :data:`MAX_LINE` characters."""
    for number, line in enumerate(text.split("\n")):
        if limit is not None and number >= limit:
            return
        yield line[:MAX_LINE]


def lines_after(text: str, end: int, count: int) -> list[str]:
    """The ``count`` lines after the newline at ``end``, without copying the rest of the text."""
    lines = []
    while len(lines) < count and end != -1:
        following = text.find("\n", end + 1)
        lines.append(text[end + 1 : following if following != -1 else len(text)])
        end = following
    return lines


def find_lines(text: str, pattern: re.Pattern, limit: int, needle: str) -> list[re.Match]:
    """Up to ``limit`` matches of ``pattern`` at the start of a line holding the literal ``needle``.

    The literal is found by ``str.find`` and only its lines are matched: a
    hostile text is a quarter of a million lines, and a regular expression
    tried on each one costs more than everything else a parse does.
    """
    found = []
    position = text.find(needle)
    while position >= 0:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        if end < 0:
            end = len(text)
        match = pattern.match(text[start : min(end, start + MAX_LINE)])
        if match:
            found.append(match)
            if len(found) >= limit:
                break
        position = text.find(needle, end)
    return found


def mask_message(message: str, limit: int = 200, quoted: bool = True) -> str:
    """A message with what varies between hits masked: addresses, paths, numbers and (``quoted``) quoted names.

    A compiler's message quotes the user's program (mask it); an
    application's ``cannot import name 'x'`` quotes the bug (keep it).
    """
    message = message[: limit * 4]
    message = _HEX.sub("0x?", message)
    message = _BARE_HEX.sub("0x?", message)
    message = _CRATE_HASH.sub("", message)
    if "Program Files" in message or "and Settings" in message or "Application Data" in message:
        message = _WINDOWS_FOLDER.sub(_folder_without_blanks, message)
    if "DefId(" in message:
        message = _DEF_PATH.sub(r"\1?", message)
    if quoted:
        message = _QUOTED.sub("'?'", message)
        if "`" in message or '"' in message:
            message = _UNCLOSED.sub("'?'", message)
    # File names first: a relative path (src/a/b.rs) is one, whole; an absolute one is left to _PATH.
    if quoted and "." in message:
        message = _FILE_NAME.sub("<path>", message)
    if "/" in message or "\\" in message:
        message = _PATH.sub(_mask_path, message)
        # A relative path to a file (jerryscript/jerry-core/x.cpp) is masked from its first slash on:
        # its first directory, the checkout's name, goes with the rest. (Not a list: "UInt8/UInt16".)
        if _FILE_MARK in message:
            message = _PATH_HEAD.sub("<path>", message).replace(_FILE_MARK, "<path>")
    message = _NUMBER.sub("N", message)
    # Runs of blanks as one space, ends stripped: str.split() knows the same blanks as re's \s.
    return " ".join(message.split())[:limit]


# A line a terminal or mail client cut goes on in this many lines at most.
CUT_LINES = 3
# The rest of a function's name, alone on the line a cut inside the name left it on.
NAME_REST = re.compile(r"[\w<>.]{1,200}")


def at_column_zero(line: str) -> bool:
    """Whether a line may be the rest of one a terminal cut: a cut line goes on at column 0, while a
    trace's own next record is indented (or a blank line)."""
    return bool(line) and not line[:1].isspace()


def join_cut_lines(
    lines: list[str],
    starts: Callable[[str], bool],
    whole: Callable[[str, str], bool],
    goes_on: Callable[[str], bool] = lambda line: True,
    most: int = CUT_LINES,
) -> tuple[list[str], int]:
    """``lines`` with each line a hard wrap cut joined back to the pieces it was cut into.

    A line that ``starts`` picks is joined to the lines after it, at most ``most`` of them
    and each one ``goes_on`` accepts, until ``whole(joined, next line)`` says the join is a
    whole line again; a line never made whole stays as it was. Returns the lines and how
    many were joined. Every line is looked at once, and a join at ``most`` lines, so this is
    linear in the text.
    """
    out: list[str] = []
    joined_lines = index = 0
    while index < len(lines):
        line, end = lines[index], None
        if starts(line):
            joined = line
            for ahead in range(index + 1, min(index + 1 + most, len(lines))):
                if not goes_on(lines[ahead]):
                    break
                joined += lines[ahead]
                if whole(joined, lines[ahead + 1] if ahead + 1 < len(lines) else ""):
                    end = ahead
                    break
        if end is None:
            out.append(line)
            index += 1
        else:
            out.append(joined)
            joined_lines += end - index
            index = end + 1
    return out, joined_lines
