"""Undo what people and tools do to a trace before it reaches us.

Crash reports arrive as pasted into issue trackers, mails and chat: with
CRLF line ends, terminal colours, HTML entities, Markdown fences and ``> ``
quoting, indented as a code block or a list item, behind log prefixes
(timestamps, logcat tags), and hard-wrapped at a terminal's width in the
middle of a frame. The parsers read one canonical form; :func:`clean`
produces it and names each repair it made, so the bucket page can say why a
report was read the way it was.

Every step is one pass over the lines (no regular expression here can
backtrack over a whole line twice), so hostile text costs linear time.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass

# A trace longer than this is cut (and says so): the identity of a crash is
# in its first screens, and nothing a parser does should scale with a
# fuzzer's idea of a big output.
MAX_CHARS = 256 * 1024

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]")
_FENCE = re.compile(r"^\s{0,8}(?:>\s?){0,4}(?:```|~~~)")
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?")
# Log prefixes people leave in: ISO or syslog timestamps, logcat tags,
# `[INFO]`-style levels. Only stripped where most lines carry one.
_LOG_PREFIX = re.compile(
    r"^(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]{1,4}"
    r"(?:\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[ \t]{1,4})?"
    r"|\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}[ \t]{1,4}\d{1,6}[ \t]{1,4}\d{1,6} [VDIWEF] [\w.$-]{0,64}:[ \t]?"
    r"|[VDIWEF]/[\w.$-]{1,64}\(\s{0,6}\d{1,6}\):[ \t]?"
    r"|\[(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\][ \t]{1,4})"
)
# A list item's marker in front of a pasted trace ("- ", "* ", "1. ").
_LIST_MARKER = re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]{1,4}")
# Lines a wrapped line cannot continue into: the start of a frame or a new
# record in any format we parse.
_LINE_START = re.compile(
    r"^\s*(?:#\d+\s|at\s|File \"|\d+:\s|0x[0-9a-f]+\s|Caused by:|Traceback|thread '|goroutine |"
    r"panic:|fatal error:|\.\.\.|query stack|end of query stack|Stack dump|PLEASE|note:|error|warning|==\d+==)"
)
_MIN_WRAP_WIDTH = 60
_MIN_WRAPPED_LINES = 3


@dataclass(frozen=True)
class Cleaned:
    """The text as the parsers read it, and the repairs that made it so."""

    text: str
    repairs: tuple[str, ...] = ()


def clean(text: str) -> Cleaned:
    """Canonical form of a pasted trace; see the module docstring."""
    repairs: list[str] = []
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        repairs.append("cut to 256 KiB")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        repairs.append("CRLF line ends")
    if "\x1b[" in text:
        text = _ANSI.sub("", text)
        repairs.append("terminal colours removed")
    if "&lt;" in text or "&gt;" in text or "&quot;" in text or "&#39;" in text or "&amp;" in text:
        text = html.unescape(text)
        repairs.append("HTML entities decoded")
    text, restored = _restore_line_breaks(text)
    if restored:
        repairs.append(restored)
    lines = text.split("\n")
    for step in (_drop_fences, _unquote, _strip_log_prefixes, _strip_list_markers, _dedent, _unwrap):
        lines, repair = step(lines)
        if repair:
            repairs.append(repair)
    return Cleaned("\n".join(lines), tuple(repairs))


# Where a frame or a traceback's parts start, when a form or a chat client
# joined all the lines of a trace into one.
_BREAK_BEFORE = re.compile(
    r"(?<=\S)\s(?=File \"[^\"\n]{1,300}\", line \d|Traceback \(most recent call last\)|"
    r"at [\w$.<>`]+\([^()\n]{0,300}\)|#\d{1,4}\s+0x[0-9a-fA-F]+ |Caused by: |"
    r"(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning): |goroutine \d+ \[|stack backtrace:|\d{1,4}: +0x)"
)
_JOINED_LINE = 400


def _restore_line_breaks(text: str) -> tuple[str, str]:
    """Split lines that hold a whole trace: three frame starts or more in one long line."""
    if not any(len(line) > _JOINED_LINE for line in text.split("\n", 64)[:64]):
        return text, ""
    out, restored = [], 0
    for line in text.split("\n"):
        if len(line) > _JOINED_LINE and len(_BREAK_BEFORE.findall(line, 0, 20_000)) >= 3:
            pieces = _BREAK_BEFORE.sub("\n", line)
            restored += pieces.count("\n")
            out.append(pieces)
        else:
            out.append(line)
    return ("\n".join(out), f"{restored} line breaks restored") if restored else (text, "")


def _drop_fences(lines: list[str]) -> tuple[list[str], str]:
    kept = [line for line in lines if not _FENCE.match(line)]
    return (kept, "Markdown code fences removed") if len(kept) != len(lines) else (lines, "")


def _mostly(lines: list[str], pattern: re.Pattern) -> bool:
    """True when at least half of the non-blank lines (and two or more) match."""
    # One pass, nothing built: a hostile paste is mostly blank lines, and this runs once per repair.
    non_blank = matching = 0
    for line in lines:
        if line and not line.isspace():
            non_blank += 1
            matching += pattern.match(line) is not None
    return matching >= 2 and matching * 2 >= non_blank


def _unquote(lines: list[str]) -> tuple[list[str], str]:
    depth = 0
    # Nested quoting ("> > ") is peeled a level at a time; four is plenty.
    while depth < 4 and _mostly(lines, _QUOTE):
        lines = [_QUOTE.sub("", line, count=1) if line else line for line in lines]
        depth += 1
    return (lines, "Markdown quoting removed") if depth else (lines, "")


def _strip_log_prefixes(lines: list[str]) -> tuple[list[str], str]:
    if not _mostly(lines, _LOG_PREFIX):
        return lines, ""
    return [_LOG_PREFIX.sub("", line, count=1) if line else line for line in lines], "log prefixes removed"


def _strip_list_markers(lines: list[str]) -> tuple[list[str], str]:
    # Only a marker on the first non-blank line with the rest indented under
    # it: that is a trace pasted into a list item, not a list of frames.
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is None or not _LIST_MARKER.match(lines[first]):
        return lines, ""
    marker = _LIST_MARKER.match(lines[first]).end()
    rest = [line for line in lines[first + 1 :] if line.strip()]
    if not rest or any(len(line) - len(line.lstrip()) < marker for line in rest):
        return lines, ""
    return lines[:first] + [" " * marker + lines[first][marker:]] + lines[first + 1 :], "list marker removed"


def _dedent(lines: list[str]) -> tuple[list[str], str]:
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    if not indents:
        return lines, ""
    common = min(indents)
    if common == 0:
        return lines, ""
    # Only a prefix every line shares: a mix of tabs and spaces is left alone.
    prefix = next(line for line in lines if line.strip())[:common]
    if any(line.strip() and not line.startswith(prefix) for line in lines):
        return lines, ""
    return [line[common:] for line in lines], "indentation removed"


def _unwrap(lines: list[str]) -> tuple[list[str], str]:
    """Join lines hard-wrapped at a fixed width.

    A terminal or a mail client cuts every longer line at the same column,
    so the width shows as the longest line length being shared by several
    lines. A line of exactly that width continues on the next one unless
    the next one starts a new frame or record.
    """
    lengths = Counter(len(line) for line in lines if len(line) >= _MIN_WRAP_WIDTH)
    if not lengths:
        return lines, ""
    width = max(lengths)
    if lengths[width] < _MIN_WRAPPED_LINES:
        return lines, ""
    joined: list[str] = []
    wrapped = 0
    previous = 0  # length of the last physical line: a fragment wrapped again is full width too
    for line in lines:
        if joined and previous >= width and line.strip() and not _LINE_START.match(line):
            joined[-1] += line
            wrapped += 1
        else:
            joined.append(line)
        previous = len(line)
    return (joined, f"{wrapped} lines unwrapped at column {width}") if wrapped else (lines, "")
