"""Z3's assertion violations: the SMT solver's own checks, as its fuzzers' reports quote them.

``ASSERTION VIOLATION``
``File: ../src/smt/theory_lra.cpp``
``Line: 1234``
``m_solver->is_feasible()``
``(C)ontinue, (A)bort, (S)top, (T)hrow exception, Invoke (G)DB``

Z3's maintainers read one by its file and the check that failed: the line
moves between versions, the check does not. Release builds print a stock
sentence instead of a check ("UNREACHABLE CODE WAS REACHED.", "NOT
IMPLEMENTED YET!"): then the file and its line are all that say which one.
The debug build's prompt below ("(C)ontinue, (A)bort…") is what every
violation prints: no identity (it was, read as the text's first line that
reports a failure, and put every violation of a project in one bucket).
"""

from __future__ import annotations

import re

from crashes.model import ParsedTrace
from crashes.traces.text import PROMPT, file_name, lines_of

FORMAT = "z3"
_HEADER = "ASSERTION VIOLATION"
# "File: ../src/ast/ast.h" then "Line: 491" (a report pasted from its second line on keeps both).
# (Some builds print the line with the file too: "File: theory_utvpi_def.h:802".)
_FILE = re.compile(r"^\s{0,8}File: (?P<path>(?:[A-Za-z]:)?[^\s:]{1,500}\.(?:h|hpp|c|cc|cpp|cxx|inc))(?::\d{1,9})?\s*$")
_LINE = re.compile(r"^\s{0,8}Line: (?P<line>\d{1,9})\s*$")
# What follows the check and is no check: the prompt, the version, the request to report it.
_AFTER = re.compile(r"^(?:\(C\)ontinue|Z3 \d|Please file an issue|```|~~~|\s*$)")
# Release builds' stock sentences in place of a check.
_STOCK = re.compile(r"^(?:UNREACHABLE|UNEXPECTED) CODE WAS REACHED\.?$|^NOT IMPLEMENTED YET!?$")
# Lines searched for the File:/Line: pair after the header.
_FIELDS_WITHIN = 4


def _fields(lines: list[str]) -> int:
    """The index of the "File:" line of a File:/Line: pair, or -1."""
    for index, line in enumerate(lines[:-1]):
        if line.lstrip().startswith("File: ") and _FILE.match(line) and _LINE.match(lines[index + 1]):
            return index
    return -1


def recognize(text: str) -> bool:
    """True for Z3's "ASSERTION VIOLATION" with its File:/Line: fields (or those fields pasted without it)."""
    # (Not "\nLine: ": a report indented as a whole behind an unindented prompt keeps its indentation.)
    if "File: " not in text or "Line: " not in text:
        return False
    lines = list(lines_of(text))
    at = _fields(lines)
    if at == -1:
        return False
    before = [line.strip() for line in lines[max(0, at - _FIELDS_WITHIN) : at]]
    if _HEADER in before:
        return True
    # Without the header, the pair must open a paragraph (the text, or a block below the reporter's
    # words or the prompt of the command that crashed) and a check must follow it.
    above = before[-1] if before else ""
    return (not above or bool(PROMPT.match(above))) and _check(lines, at) != ""


def _check(lines: list[str], at: int) -> str:
    """The check below the fields ("" when the paste ends or the prompt follows at once)."""
    following = lines[at + 2] if at + 2 < len(lines) else ""
    return "" if _AFTER.match(following) else following.strip()


def parse(text: str) -> ParsedTrace:
    """The failed check (or the stock sentence) and its file as the site, with its line if the check says nothing."""
    lines = list(lines_of(text))
    at = _fields(lines)
    path = _FILE.match(lines[at])["path"]
    line = int(_LINE.match(lines[at + 1])["line"])
    check = _check(lines, at)
    # The file by its name: builds print it from their build directory ("../src/smt/x.cpp"), from a
    # checkout, or bare.
    site = file_name(path)
    if check and not _STOCK.match(check):
        return ParsedTrace(format=FORMAT, crash_type=check, message=check, language="native", site=site)
    crash_type = check.rstrip(".!") if check else _HEADER
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=check, language="native", site=f"{site}:{line}")
