"""Undo what people and tools do to a trace before it reaches us.

Crash reports arrive as pasted into issue trackers, mails and chat: with
CRLF line ends, terminal colours, HTML entities, Markdown fences and ``> ``
quoting, indented as a code block or a list item, behind log prefixes
(timestamps, syslog's heads, logcat tags), drawn in Rich's boxes
(:mod:`crashes.traces.rich`) or printed by IPython (:mod:`crashes.traces.ipython`),
and hard-wrapped at a terminal's width in the middle of a frame. The parsers
read one canonical form; :func:`clean` produces it and names each repair it
made, so the bucket page can say why a report was read the way it was.

Every step is one pass over the text, done by the regular expression engine
where it can be (no expression here can backtrack over a whole line twice),
so hostile text costs linear time.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from crashes.traces import ipython, python, rich, unity
from crashes.traces.text import MAX_LINE, NAME_REST

# A trace longer than HEAD_CHARS + TAIL_CHARS is read as its first and last
# lines only (and says so): the identity of a crash is in its first screens
# (a sanitizer's report, a panic, an exception line and its top frames) or
# its last (Python's innermost frames and exception, a JVM's root cause),
# and nothing a parser does should scale with a fuzzer's idea of a big
# output: a recursion's thousands of frames or a dump of every goroutine.
HEAD_CHARS = 96 * 1024
TAIL_CHARS = 32 * 1024

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]")
# The same colours copied from a CI log or a web terminal that dropped the escape character:
# "[0m[1m[38;5;9merror[0m[0m[1m: internal compiler error:[0m". Only a text holding several is
# taken as coloured (a lone "[1m" may be anything), and only the colour codes (SGR, ending in m).
# (Not one whose escape is written out in a string ("\\u001b[0m", "\\x1b[0m", "\\033[0m", "\\e[0m", Rust's
# "\\u{1b}[0m"): it is decoded with its string. Nor a bracket that only looks like one: a duration
# ("[1m0s elapsed]", "[12ms]"), a range ("x[5m]").)
# (The bracket first, the look behind it after: an expression that opens with a character is scanned for
# it; one that opens with eight look-behinds tried them at every character, 0.13 ms a report.)
_BARE_COLOURS = re.compile(
    r"\[(?<!\\u001b\[)(?<!\\u001B\[)(?<!\\x1b\[)(?<!\\x1B\[)(?<!\\033\[)(?<!\\e\[)(?<!\\u\{1b\}\[)(?<!\\u\{1B\}\[)"
    r"\d{1,3}(?:;\d{1,3}){0,4}m(?![\d.]*m?s\b|\])"
)
_BARE_COLOURS_MIN = 3
# How far into a text the colour codes are counted (a hostile text need not be read whole for it).
_BARE_COLOURS_LOOK = 64 * 1024
# A fence line with its newline; [^\S\n] is \s kept within the line.
_FENCE_LINE = re.compile(r"^[^\S\n]{0,8}(?:>[^\S\n]?){0,4}(?:```|~~~)[^\n]*(?:\n|\Z)", re.M)
_QUOTE = re.compile(r"^[ \t]{0,3}>[ \t]?", re.M)
# Log prefixes people leave in: ISO timestamps, syslog's and journald's heads, logcat tags (adb's and
# Android Studio's panel), `[INFO]`-style levels, pytest's "E   ". Only stripped where most lines carry one.
_LOG_PREFIX_HEAD = (
    # (Go's own time.Time as a logger prints it, before the ISO form that would match its start:
    # "2024-08-28 21:57:29.145783819 +0000 UTC: ".)
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? [+-]\d{4} (?:[A-Z]{2,5}|[+-]\d\d):?[ \t]{1,4}|"
    r"\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]{1,4}"
    r"(?:\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[ \t]{1,4})?"
    # (Heroku's dyno after its time: "2021-05-12T04:04:09.696866+00:00 app[web.1]: ".)
    r"(?:[\w-]{1,40}\[[\w.-]{1,40}\]:[ \t]?)?"
    r"|\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}[ \t]{1,4}\d{1,6}[ \t]{1,4}\d{1,6} [VDIWEF] [\w.$-]{0,64}:[ \t]?"
    r"|[VDIWEF]/[\w.$-]{1,64}\([ \t]{0,6}\d{1,6}\):[ \t]?"
)
# Android Studio's Logcat panel: padded columns (time, process, tag, package; blank where they
# repeat the line above) and the level, two blanks before the message.
_LOGCAT_PANEL = r"(?:[ \t]*|[^\n]{0,300}?[ \t]{2})[VDIWEFA][ \t]{2}"
_LOG_PREFIX_TAIL = (
    # (sbt prints its levels in lower case: "[error] ".)
    r"\[(?i:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)\][ \t]{1,4}"
    # syslog's and journald's: "Nov 02 19:04:52 host dockerd[28586]: ", "Feb  9 20:45:46 host run.sh: "
    # (the month in the machine's language: "ian 22 …", "févr. 3 …"; journalctl's short-precise seconds).
    r"|[^\W\d_]{2,5}\.?[ \t]{1,2}\d{1,2} \d\d:\d\d:\d\d(?:[.,]\d{1,9})? [\w.-]{1,100} [\w./@-]{1,100}"
    r"(?:\[\d{1,10}\])?:[ \t]?"
    # Docker Compose's service column: "web_1  | ", "api-1  | " (a name, never a line number: "12 | ").
    r"|[A-Za-z][\w.-]{0,63}[ \t]*\|(?:[ \t]|$)"
    # pytest's own crash ("INTERNALERROR> " before each line of the traceback it caught, behind a CI
    # runner's time of day too: "[14:00:43]INTERNALERROR> ").
    r"|(?:\[\d\d:\d\d:\d\d\] ?)?INTERNALERROR> ?"
    # The seconds since a build started, on each line of an Open Build Service log ("[  154s] "), and the
    # kernel's since boot in dmesg ("[  123.456789] ").
    r"|\[[ \t]{0,8}\d{1,7}(?:s|\.\d{6})\][ \t]"
    # Firefox's mach build log's minutes and seconds since it started ("76:12.69 "), and Jenkins' timestamper's
    # time of day ("02:38:22  panic: …").
    r"|\d{1,4}:\d\d\.\d\d |\d\d:\d\d:\d\d(?:\.\d{1,3})?[ \t]{1,4}"
    # `flutter run -v`'s time since its last line ("[ +126 ms] ", "[   +1 ms] ", blank: "[        ] "), and
    # Docker BuildKit's step and seconds ("#14 81.12 ").
    r"|\[(?:[ \t]{0,6}\+\d{1,7} ms|[ \t]{4,12})\][ \t]|#\d{1,4} \d{1,6}\.\d{1,3} "
)
_LOG_PREFIX = re.compile(f"^(?:{_LOG_PREFIX_HEAD}|{_LOGCAT_PANEL}|{_LOG_PREFIX_TAIL})", re.M)
# The panel's prefix is looked for up to 300 characters into every line: most of the cost of reading
# a text's prefixes. A text without a level letter followed by two blanks anywhere has no line the
# branch can match, and is read without it.
_LOG_PREFIX_NO_PANEL = re.compile(f"^(?:{_LOG_PREFIX_HEAD}|{_LOG_PREFIX_TAIL})", re.M)
_PANEL_LEVEL = re.compile(r"[VDIWEFA][ \t]{2}")


def _log_prefix(text: str) -> re.Pattern:
    """The log prefixes ``text`` may hold: with the Logcat panel's only where its level column could be."""
    return _LOG_PREFIX if _PANEL_LEVEL.search(text) else _LOG_PREFIX_NO_PANEL


# A list item's marker in front of a pasted trace ("- ", "* ", "1. ").
# The item's text starts one blank after it; more blanks may be the trace's own indentation.
_LIST_MARKER = re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]")
# Lines a wrapped line cannot continue into: the start of a frame or a new
# record in any format we parse.
_LINE_START = re.compile(
    r"^\s*(?:#\d+\s|at\s|File \"|\d+:\s|0x[0-9a-f]+\s|Caused by:|Traceback|thread '|goroutine |"
    r"panic:|fatal error:|\.\.\.|query stack|end of query stack|Stack dump|PLEASE|note:|error|warning|==\d+==|"
    # A sanitizer report's own records after its header.
    r"(?:READ|WRITE) of size|SUMMARY:|Shadow bytes|freed by thread|previously allocated by|0x[0-9a-f]+ is located|"
    # A log record's date and time ("2014/02/25 09:18:32 cpu at 12.6"): a cut never goes on with one.
    r"\[?\d{4}[-/.]\d\d[-/.]\d\d[ T]\d\d:\d\d)"
)
# How a frame's line ends (a Go file line and its offset, a call's closing parenthesis, a
# "file:line:column", backtrace_symbols' "lib.so(+0x3350b96)[0x7f1e2c350b96]"): a cut falls exactly
# there by chance only, so such a line is taken as whole.
_RECORD_END = re.compile(
    r"(?:\.go:\d+ \+0x[0-9a-fA-F]+(?: fp=0x[0-9a-fA-F]+ sp=0x[0-9a-fA-F]+(?: pc=0x[0-9a-fA-F]+)?)?|\)|:\d+:\d+"
    r"|\[0x[0-9a-fA-F]+\])$"
)
_ONE_BLANK = re.compile(r" \S")
_LOCATION_ONLY = re.compile(r" (?:[A-Za-z]:)?[/\\][^\s]{1,500}:\d{1,9}(?::\d{1,9})?$")
_PYTHON_FRAME_END = re.compile(r'^\s*File "[^"]*", line \d+, in [\w<>.]+$')
# The narrowest width a terminal or mail client is taken to have cut lines at.
MIN_WRAP_WIDTH = 60
_MIN_WRAPPED_LINES = 3


@dataclass(frozen=True)
class Cleaned:
    """The text as the parsers read it, and the repairs that made it so."""

    text: str
    repairs: tuple[str, ...] = ()


# A line a console padded, or a copy left a blank after: when most lines are, it is no cut's doing
# (a terminal's cut falls on a blank now and then, not on most lines).
_PADDED_LINE = re.compile(r"\S[ \t]++$", re.M)  # one a line at most: counted as lines
_BLANK_RUN = re.compile(r"\n(?:[^\S\n]*+\n){3,}")
# Blanks after something on the line (any but a newline: "\x1f", "\u3000" are blanks to "\s"), more than any column
# alignment uses; kept as this many spaces.
_SOME_BLANKS = " " * 16
_INNER_BLANKS = re.compile(r"[^\S\n](?<=\S[^\S\n])[^\S\n]{16,}")  # (a blank first: scanned for, as above)


_NUMERIC_ENTITY = re.compile(r"&#(?:(?P<decimal>\d{1,7})|[xX](?P<hex>[0-9a-fA-F]{1,6}));")


def _character(reference: re.Match) -> str:
    code = int(reference["decimal"]) if reference["decimal"] else int(reference["hex"], 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else reference[0]


_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
_NO_ZERO_WIDTH = str.maketrans(dict.fromkeys(_ZERO_WIDTH))
# A copy from a rendered page (a chat, a forum, a mail) keeps its non-breaking spaces: no terminal prints them.
_NO_BREAK_SPACES = ("\u00a0", "\u2007", "\u202f")
_PLAIN_SPACES = str.maketrans(dict.fromkeys(_NO_BREAK_SPACES, " "))


def _bare_colours(text: str) -> bool:
    """Whether ``text`` holds colour codes whose escape characters were lost."""
    head = text[:_BARE_COLOURS_LOOK]
    return "m" in head and len(_BARE_COLOURS.findall(head)) >= _BARE_COLOURS_MIN


def clean(text: str) -> Cleaned:
    """Canonical form of a pasted trace; see the module docstring."""
    repairs: list[str] = []
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = _middle_cut(text)
        repairs.append(f"read its first {HEAD_CHARS // 1024} KiB and last {TAIL_CHARS // 1024} KiB")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        repairs.append("CRLF line ends")
    if "\x1b[" in text:
        text = _ANSI.sub("", text)
        repairs.append("terminal colours removed")
    if _bare_colours(text):
        text = _BARE_COLOURS.sub("", text)
        repairs.append("terminal colours removed (their escape characters lost)")
    if "&lt;" in text or "&gt;" in text or "&quot;" in text or "&#39;" in text or "&amp;" in text:
        text = html.unescape(text)
        repairs.append("HTML entities decoded")
    elif "&#" in text:
        # Numeric references alone ("#&#8203;0"): a full unescape would also read "&notify" as "¬ify".
        decoded = _NUMERIC_ENTITY.sub(_character, text)
        if decoded != text:
            text = decoded
            repairs.append("HTML entities decoded")
    if any(mark in text for mark in _ZERO_WIDTH):
        # GitHub puts a zero-width space after "#" in a migrated issue's "#1" (so that it links no
        # issue), and a copy from the page keeps it: "frame #​0:". Such a mark never says anything.
        text = text.translate(_NO_ZERO_WIDTH)
        repairs.append("zero-width spaces removed")
    if any(space in text for space in _NO_BREAK_SPACES):
        text = text.translate(_PLAIN_SPACES)
        repairs.append("non-breaking spaces read as blanks")
    text, unescaped = _unescape_embedded(text)
    if unescaped:
        repairs.append(unescaped)
    text, restored = _restore_line_breaks(text)
    if restored:
        repairs.append(restored)
    # Three or more blank lines say no more than two, and a paste of a quarter of a million of them
    # would make every later step read each one. One pass, before them (not shown as a repair).
    text = _BLANK_RUN.sub("\n\n\n", text)
    # So does a long run of blanks after a line's first word (a terminal's padding, a hostile paste's): every
    # pattern that reads "the rest, then blanks to the line's end" would try each blank of it in turn.
    text = _INNER_BLANKS.sub(_SOME_BLANKS, text)
    steps = (
        # An editor's line numbers before anything reads a line's start (dedenting would unpad them).
        _strip_line_numbers,
        # A list item holding a fenced, quoted or inline-code paste ("- ```", "- > thread …"): the
        # item's marker and indentation first, or the markers inside it are not at a line's start.
        _strip_list_markers,
        _dedent,
        _strip_markup_tags,
        _drop_fences,
        _unquote,
        _strip_stack_gutter,
        _strip_inline_code,
        _strip_emphasis,
        _unescape_frame_numbers,
        *_LOG_HEADS,
        _strip_list_markers,
        _dedent,
        # Fences and inline code inside a log's lines ("web_1  | ```"): the prefix hid them from the
        # first pass.
        _drop_fences,
        # A quote or a log indented as a whole (a code block or a list item in a reply): the
        # indentation hid its markers from the first pass.
        _unquote,
        _strip_inline_code,
        *_LOG_HEADS,
        # Before unwrapping: a box's padded lines of one width read as a terminal's cut.
        rich.render,
        _unwrap,
        # A log whose lines a terminal cut had its prefix on too few of them to be taken off before.
        *_LOG_HEADS,
        # After unwrapping: IPython's location lines are long, and a terminal cuts them.
        ipython.render,
        unity.render,
        python.render_exception_first,
        # After unwrapping, which needs several cut lines: one cut headline is evidence enough.
        _join_cut_markers,
        # After unwrapping: a JSON line a terminal cut is whole again.
        _render_json_diagnostics,
        _strip_trailing_blanks,
    )
    # A step that changed nothing of a text reads the same text again to the same end (each is a function of
    # the text alone): the passes after the first skip it, the most of a clean-up's cost when nothing needs repair.
    idle: dict[Callable, str] = {}
    for step in steps:
        if idle.get(step) == text:
            continue
        repaired, repair = step(text)
        if repaired == text and not repair:
            idle[step] = text
        text = repaired
        if repair and repair not in repairs:
            repairs.append(repair)
    return Cleaned(text, tuple(repairs))


# An editor's or a pager's line numbers in front of every line (Vim's `:set number`, `less -N`, `cat -n`):
# "  1 panic: …", "  3 goroutine 185 [running]:". Taken off where nearly every line carries the next number.
_GUTTER = re.compile(r"^[ \t]{0,7}(\d{1,6})(?:[ \t]|$)")
_GUTTER_LINES = 4
_GUTTER_WIDTH = 3
_GUTTER_READ = 20_000


def _strip_line_numbers(text: str) -> tuple[str, str]:
    lines = text.split("\n", _GUTTER_READ)
    if len(lines) < _GUTTER_LINES or len(lines) > _GUTTER_READ:
        return text, ""
    found = [_GUTTER.match(line) for line in lines]
    # Right-aligned in a column of one width, padded (Vim's is three wide at least): not a list of frames
    # numbered from the left margin ("0   libsystem_kernel.dylib  0x1901ea5b0 __pthread_kill + 8").
    widths = {match.end(1) for match in found if match}
    if len(widths) != 1 or min(widths) < _GUTTER_WIDTH:
        return text, ""
    numbered = [int(match[1]) for match in found if match]
    following = sum(1 for before, after in zip(numbered, numbered[1:], strict=False) if after == before + 1)
    # (A fence around the paste carries no number.)
    content = sum(1 for line in lines if line.strip() and not line.lstrip().startswith(("```", "~~~")))
    # (Blank lines are numbered too; the last line of a paste may be its fence's or the newline's.)
    if len(numbered) < _GUTTER_LINES or 10 * len(numbered) < 9 * content or 10 * following < 9 * (len(numbered) - 1):
        return text, ""
    kept = [line[match.end() :] if match else line for line, match in zip(lines, found, strict=True)]
    return "\n".join(kept), "line numbers removed"


# Go's cockroachdb/errors (CockroachDB's, Pebble's and other programs' errors, and Sentry's copies of them) prints
# each stack it attached below "  -- stack trace:", every line behind a "  | " gutter:
#   "  | github.com/cockroachdb/pebble.(*DB).newIter", "  | \tgithub.com/cockroachdb/pebble/db.go:954".
# Without the gutter the lines are Go's own stack lines.
_STACK_TRACE_HEAD = "-- stack trace:"
_STACK_GUTTER = re.compile(r"^[ \t]{0,16}\|(?: |(?=\t)|$)")


def _strip_stack_gutter(text: str) -> tuple[str, str]:
    if _STACK_TRACE_HEAD not in text:
        return text, ""
    lines = text.split("\n")
    inside, changed = False, False
    for index, line in enumerate(lines):
        if _STACK_TRACE_HEAD in line:
            inside = True
            continue
        gutter = _STACK_GUTTER.match(line) if inside else None
        if gutter:
            lines[index] = line[gutter.end() :]
            changed = True
        else:
            inside = False
    return ("\n".join(lines), "an error library's stack gutter removed") if changed else (text, "")


# A frame's number written "\#0" (or "\# 1") where a reporter escaped Markdown's heading mark by hand.
_ESCAPED_FRAME_NUMBER = re.compile(r"^([ \t>]{0,12})\\# ?(\d{1,4}\s)", re.M)
_ESCAPED_FRAMES = 2


def _unescape_frame_numbers(text: str) -> tuple[str, str]:
    """``\\#0 0x57… in f`` -> ``#0 0x57… in f``, where two lines or more are so written."""
    if "\\#" not in text:
        return text, ""
    unescaped, count = _ESCAPED_FRAME_NUMBER.subn(r"\1#\2", text)
    return (unescaped, "Markdown escapes of frame numbers removed") if count >= _ESCAPED_FRAMES else (text, "")


def _middle_cut(text: str) -> str:
    """The first HEAD_CHARS and last TAIL_CHARS of ``text``, each cut at a line end, a line between them."""
    head, tail = text[:HEAD_CHARS], text[-TAIL_CHARS:]
    # A cut inside a line would leave half a frame; a text with no line ends is cut as it is.
    head = head[: head.rfind("\n") + 1] or head
    tail = tail[tail.find("\n") + 1 :] or tail
    # A line no cut-line join takes for the rest of a name ("..." is one: [\w<>.]).
    return head + "[cut]\n" + tail


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


# A trace kept as a string in a structured log's line: a JSON record's field (zap's "stacktrace", a JSON
# handler's "exc_info"), logfmt's stack="…", a Python repr, its line breaks escaped. Such a string is read
# where it decodes as what it looks like (a JSON string, a Python literal), which a Windows path's
# backslashes ("C:\\Users\\net") do not.
# Lines of text a decoded string holds at least.
_HELD_LINES = 2
# Lines looked at per text: a hostile one holds a quarter of a million of them.
_ESCAPED_LINES = 8


def _unescape_embedded(text: str) -> tuple[str, str]:
    """A trace held as an escaped string in a log line, on lines of its own before the line's other fields."""
    if "\\n" not in text and '{"' not in text:
        return text, ""
    lines = text.split("\n")
    unescaped = looked = 0
    for index, line in enumerate(lines):
        record = line.strip()
        structured = record.startswith('{"') and record.endswith("}")
        # (A compiler's JSON diagnostic is rendered as it prints it, later: _render_json_diagnostics.)
        if '"rendered":' in line or not (structured or "\\n" in line):
            continue
        looked += 1
        held = _json_record(record) if structured else _held_string(line)
        if held is not None:
            lines[index] = held
            unescaped += 1
        if looked >= _ESCAPED_LINES:
            break
    if not unescaped:
        return text, ""
    return "\n".join(lines), f"{unescaped} escaped trace{'s' if unescaped > 1 else ''} unescaped"


def _json_record(record: str) -> str | None:
    """A JSON log record's texts (its message, its stack), each as pasted alone; None for any other line."""
    try:
        fields = json.loads(record, strict=False)
    except (ValueError, RecursionError):
        return None
    if not isinstance(fields, dict):
        return None
    # Text, not a level, a time or a caller's location.
    texts = [value for value in fields.values() if isinstance(value, str) and (" " in value.strip() or "\n" in value)]
    return "\n\n".join(_dedent(value)[0] for value in texts) if texts else None


def _held_string(line: str) -> str | None:
    """The quoted string in ``line`` holding its escaped line breaks, decoded, before the rest of the line."""
    first = line.find("\\n")
    while first >= 0 and _escaped_at(line, first):
        first = line.find("\\n", first + 2)
    if first < 0:
        return None
    quote = '"' if _quote_before(line, '"', first) >= 0 else "'"
    start = _quote_before(line, quote, first)
    # A field's value ("stacktrace": "…", stack="…") or the line itself (a repr), not a string in a line of
    # code (print("\\nDownload Complete\\n")).
    before = line[:start].rstrip() if start >= 0 else ""
    if start < 0 or (before and not before.endswith((":", "="))):
        return None
    end = line.find(quote, line.rfind("\\n") + 2)
    while end >= 0 and _escaped_at(line, end):
        end = line.find(quote, end + 1)
    # A line cut before its string closed (a paste stored short) is read to its end.
    content = line[start + 1 : end] if end >= 0 else line[start + 1 :].rstrip("\\")
    decoded = _json_string(content) if quote == '"' else _python_string(content)
    if decoded is None or len(_NON_BLANK_LINE.findall(decoded)) < _HELD_LINES:
        return None
    # The trace as pasted alone, then what else the log line said (a blank line between).
    rest = line[: start + 1] + line[end if end >= 0 else len(line) :]
    return _dedent(decoded)[0] + ("\n\n" + rest if rest.strip() else "")


def _json_string(content: str) -> str | None:
    try:
        return json.loads('"' + content + '"', strict=False)
    except ValueError:
        return None


_PYTHON_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.S)
_PYTHON_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\", "a": "\a", "b": "\b", "f": "\f"}


def _python_string(content: str) -> str | None:
    """A Python repr's single-quoted string decoded, or None where it is not one (an invalid escape, a bare quote)."""
    invalid = False

    def character(escape: re.Match) -> str:
        nonlocal invalid
        code = escape[1] or escape[2] or escape[3]
        if code:
            number = int(code, 16)
            if number > 0x10FFFF or 0xD800 <= number <= 0xDFFF:
                invalid = True
                return ""
            return chr(number)
        if escape[4] not in _PYTHON_ESCAPES:
            invalid = True
            return ""
        return _PYTHON_ESCAPES[escape[4]]

    if _quote_before(content + "'", "'", len(content) + 1) != len(content):
        return None  # an unescaped quote inside: not one string
    decoded = _PYTHON_ESCAPE.sub(character, content)
    return None if invalid else decoded


def _escaped_at(line: str, index: int) -> bool:
    """Whether ``line[index]`` is escaped: an odd run of backslashes before it (read back over the run only)."""
    start = index
    while start > 0 and line[start - 1] == "\\":
        start -= 1
    return (index - start) % 2 == 1


def _quote_before(line: str, quote: str, before: int) -> int:
    """Where the last unescaped ``quote`` before ``before`` is, or -1."""
    at = line.rfind(quote, 0, before)
    while at >= 0 and _escaped_at(line, at):
        at = line.rfind(quote, 0, at)
    return at


# Other trackers' and forums' markup around a paste, often on its first and last lines: Jira's {code} and
# {noformat}, HTML's <pre> and <code> (a migrated issue's), BBCode's [code] and [quote].
_MARKUP_MARKS = ("{code", "{noformat}", "<pre", "<code", "[code", "[quote")
# A few tags at most: a run of them is tried from each place it could start ("{code}{code}…x" would be
# read once for each of its tags).
_MARKUP_OPEN = re.compile(
    r"^[ \t]{0,8}(?:(?:\{(?:code|noformat)(?::[^}\n]{0,60})?\}|<(?:pre|code)(?: [^>\n]{0,100})?>|"
    r"\[(?:code|quote)(?:=[^\]\n]{0,60})?\])[ \t]{0,8}){1,4}",
    re.M,
)
_MARKUP_CLOSE = re.compile(
    r"(?:[ \t]{0,8}(?:\{code\}|\{noformat\}|</(?:pre|code)>|\[/(?:code|quote)\])){1,4}[ \t]*$", re.M
)


def _strip_markup_tags(text: str) -> tuple[str, str]:
    if not any(mark in text for mark in _MARKUP_MARKS):
        return text, ""
    opened, opening = _MARKUP_OPEN.subn("", text)
    closed, closing = _MARKUP_CLOSE.subn("", opened)
    return (closed, "markup tags removed") if opening or closing else (text, "")


def _drop_fences(text: str) -> tuple[str, str]:
    if "```" not in text and "~~~" not in text:
        return text, ""
    kept, dropped = _FENCE_LINE.subn(_fence_kept, text)
    if not dropped:
        return text, ""
    if kept.endswith("\n") and _FENCE_LINE.fullmatch(text, text.rfind("\n") + 1):
        kept = kept[:-1]  # the last line was a fence: no line follows the newline before it
    return kept, "Markdown code fences removed"


def fenced(text: str) -> str:
    """What ``text``'s Markdown fences hold, the blocks joined (an opened block a cut left open runs to the end);
    "" when it has none. (A fence opened and closed on one line, "```clang: … failed.```", is none of them.)"""
    if "```" not in text and "~~~" not in text:
        return ""
    fences = [fence for fence in _FENCE_LINE.finditer(text) if not _fence_closed_on_its_line(fence)]
    # (An opening fence a cut left unclosed is the one without a partner: zip leaves it for below.)
    pairs = zip(fences[::2], fences[1::2], strict=False)
    blocks = [text[opening.end() : closing.start()] for opening, closing in pairs]
    if len(fences) % 2:
        blocks.append(text[fences[-1].end() :])
    return "\n".join(block.rstrip("\n") for block in blocks if block.strip())


def _fence_closed_on_its_line(fence: re.Match) -> bool:
    line = fence.group().rstrip()
    marker = "```" if "```" in line else "~~~"
    return line.count(marker) > 1


# Longer than an opening fence's info string ("```python", "```shell session") is, with a blank in it: the
# first line of what the fence holds, written on the fence's own line ("```clang++: …/SmallVector.h:298: …"),
# whose closing fence a terminal's wrap put on a line of its own.
_INFO_STRING = 40


def _fence_kept(fence: re.Match) -> str:
    """What a fence line leaves: nothing, or the text written on it ("```clang: … failed.```")."""
    line = fence.group()
    opening = line.find("```") if "```" in line else line.find("~~~")
    inside = line[opening + 3 :].rstrip()
    if len(inside) > 3 and inside.endswith(line[opening : opening + 3]) and " " in inside:
        return line[:opening] + inside[:-3] + ("\n" if line.endswith("\n") else "")
    if len(inside) > _INFO_STRING and " " in inside:
        return line[:opening] + inside + ("\n" if line.endswith("\n") else "")
    return ""


# Zero-width, so counting them builds no copies of the lines. Possessive (*+),
# so a line of a million blanks is read once, not once per blank.
_NON_BLANK_LINE = re.compile(r"^(?=[^\S\n]*+\S)", re.M)


# How much of a text its lines are counted in: a paste quoted or logged throughout is so from its start.
_MOSTLY_READ = 32 * 1024


def _mostly(text: str, pattern: re.Pattern) -> bool:
    """True when at least half of the non-blank lines (and two or more) match ``pattern`` (a ^ pattern, re.M).

    Counted in the text's first :data:`_MOSTLY_READ` characters, whole lines: a hostile paste is 128 KiB of
    one-character lines, and each repair asks (a log prefix's expression, tried at each of them, took 20 ms).
    """
    if len(text) > _MOSTLY_READ:
        cut = text.rfind("\n", 0, _MOSTLY_READ)
        text = text[: cut + 1] if cut > 0 else text[:_MOSTLY_READ]
    # Counted by the regular expression engine, not line by line in Python.
    matching = len(pattern.findall(text))
    if matching < 2:
        # One line alone ("> thread 'main' panicked at …") is all of a one-line paste.
        return matching == 1 and len(_NON_BLANK_LINE.findall(text, 0, 100_000)) == 1
    # Counting the lines bounds the non-blank ones from above, at a tenth of the cost.
    return matching * 2 >= text.count("\n") + 1 or matching * 2 >= len(_NON_BLANK_LINE.findall(text))


def _unquote(text: str) -> tuple[str, str]:
    depth = 0
    # Nested quoting ("> > ") is peeled a level at a time; four is plenty.
    while depth < 4 and ">" in text and _mostly(text, _QUOTE):
        text = _QUOTE.sub("", text)
        depth += 1
    return (text, "Markdown quoting removed") if depth else (text, "")


# A whole line pasted as inline code: "`thread 'main' panicked at …`". Only
# when the backticks open and close the line and hold none between them, so
# a Rust message that quotes `Result::unwrap()` mid-line stays as it is.
_INLINE_CODE_LINE = re.compile(r"^([^\S\n]*+)`([^`\n]{1,2000})`[^\S\n]*+$", re.M)


def _strip_inline_code(text: str) -> tuple[str, str]:
    if "`" not in text:
        return text, ""
    kept, removed = _INLINE_CODE_LINE.subn(r"\1\2", text)
    return (kept, "Markdown inline code removed") if removed else (text, "")


# "**nil pointer**": a reporter's bold in a pasted trace. Opened and closed on
# one line around non-blank ends, and closed where a word does not go on, so
# `f(**kwargs)`, `x ** 2` and `int **p = f(**q)` stay.
_EMPHASIS = re.compile(r"\*\*(?=[^\s*])([^*\n]{1,200}?)(?<=[^\s*])\*\*(?![\w*])")


# Bold (and italic) around a whole paste of several lines: "_**loc(…): error: …\nLLVM ERROR: …**_".
# (Not "_" or "__": a C name may start and end a paste with them, "__GI_raise" … "__libc_start_main__".)
_WHOLE_EMPHASIS = (("_**", "**_"), ("**_", "_**"), ("***", "***"), ("**", "**"))


def _strip_emphasis(text: str) -> tuple[str, str]:
    if "**" not in text:
        return text, ""
    kept, removed = _EMPHASIS.subn(r"\1", text)
    body = kept.strip()
    for opening, closing in _WHOLE_EMPHASIS:
        if "\n" in body and len(body) > 2 * len(opening) and body.startswith(opening) and body.endswith(closing):
            inner = body[len(opening) : -len(closing)]
            if inner[:1].strip() and inner[-1:].strip():
                kept, removed = inner, removed + 1
            break
    return (kept, "Markdown emphasis removed") if removed else (text, "")


def _strip_log_prefixes(text: str) -> tuple[str, str]:
    prefix = _log_prefix(text)
    if not _mostly(text, prefix):
        return text, ""
    return _take_off(text, prefix)


def _take_off(text: str, prefix: re.Pattern) -> tuple[str, str]:
    """``text`` without the log prefix ``prefix`` matches at its lines' starts, its cut lines rejoined first."""
    text, rejoined = _rejoin_cut_log_lines(text, prefix)
    # A prefix's blanks run into the message's own indentation ("… ERROR   left: `1`,"): each line keeps
    # the blanks past the fewest any message line has behind its prefix.
    behind_messages = (found for found in prefix.finditer(text) if text[found.end() : found.end() + 1].strip())
    kept = min((_blanks_at_end(found.group()) for found in behind_messages), default=0)
    text = prefix.sub(lambda found: found.group()[len(found.group()) - _blanks_at_end(found.group()) + kept :], text)
    return text, "log prefixes removed" + (f", {rejoined} cut lines rejoined" if rejoined else "")


# Lines a shared line head is looked for on: a hostile text holds a quarter of a million of them.
_HEAD_LINES = 2000


def _shared_head(lines: list[str], read: Callable[[str], tuple[str, str] | None]) -> tuple[str, list[str], int] | None:
    """The head ``read`` finds on the most lines, what it read on each of them, and how many lines a head
    must be on: half the non-blank lines, three at least. None where no head is on that many.

    ``read`` gives a line's (head, reading), or None for a line without one.
    """
    readings: dict[str, list[str]] = {}
    non_blank = 0
    for line in lines[:_HEAD_LINES]:
        if line.strip():
            non_blank += 1
            found = read(line)
            if found is not None:
                readings.setdefault(found[0], []).append(found[1])
    if not readings:
        return None
    # (Of heads on as many lines, the first found.)
    head, read_lines = max(readings.items(), key=lambda item: len(item[1]))
    wanted = max(_MIN_WRAPPED_LINES, (non_blank + 1) // 2)
    return (head, read_lines, wanted) if len(read_lines) >= wanted else None


# Any logger's line head: a time of day in its first characters and the same text around it on most lines
# (Go's "2016/03/11 13:08:48 [DEBUG] plugin: ", Airflow's "[2022-05-27, 11:43:25 UTC] {pod.py:197} INFO - ",
# macOS Console's columns, foreman's "20:53:28 web.1 | "): the longest head, digits aside and ending at a
# separator before a line's text, that half the lines share. The formats above are each one such head;
# this reads the ones no list names.
_TIME_OF_DAY = re.compile(r"\d(?<!\d\d)\d?:\d\d:\d\d(?!\d)")  # a digit first, not one after a digit
_DIGITS = re.compile(r"\d")
_TIME_WITHIN = 100
_HEAD_WITHIN = 200
# Lines whose own heads are tried as the shared one (one of the first few is a message's, not a blank's).
_REFERENCES = 5
_SEPARATORS = (" - ", " | ", "] ", "} ", "> ", ": ", "\t", " ")
_INDENTATION = re.compile(r"\s\s")


def _timed(line: str) -> tuple[str, str] | None:
    """A line's digits masked, and the masked line up to its time of day, the key its head is grouped by."""
    # (Its colon first: most lines have none near their start, and the expression opens with a look-behind.)
    time = _TIME_OF_DAY.search(line, 0, _TIME_WITHIN) if ":" in line[:_TIME_WITHIN] else None
    if time is None:
        return None
    masked = _DIGITS.sub("0", line[:_HEAD_WITHIN])
    return masked[: time.end()], masked


def _strip_timed_prefixes(text: str) -> tuple[str, str]:
    if ":" not in text:
        return text, ""
    shared = _shared_head(text.split("\n"), _timed)
    if shared is None:
        return text, ""
    key, group, wanted = shared
    head = ""
    for reference in group[:_REFERENCES]:
        for cut in _head_cuts(reference, len(key)):
            if cut <= len(head):
                continue
            # Fewer lines share a longer head: past the first one too few share, none will.
            if sum(1 for masked in group if masked.startswith(reference[:cut])) < wanted:
                break
            head = reference[:cut]
    if not head:
        return text, ""
    return _take_off(
        text, re.compile("^" + "".join(r"\d" if character == "0" else re.escape(character) for character in head), re.M)
    )


def _head_cuts(masked: str, start: int) -> list[int]:
    """Where a line's head may end: after a separator past its time, before its text.

    Never past the first two blanks in a row: a head's columns are separated by one, and what
    follows a blank after a separator is the text's own indentation ("AndroidRuntime: \tat …": a
    stack's frames, which most lines of a log share, are no part of the head). And after a bare
    blank only right behind the time: a word and a blank further on may be the text's own ("at ").
    """
    indented = _INDENTATION.search(masked, start)
    stop = indented.start() + 1 if indented else len(masked)
    cuts = set()
    for separator in _SEPARATORS:
        at = masked.find(separator, start, stop)
        while at >= 0:
            end = at + len(separator)
            if end < len(masked) and not masked[end].isspace() and (separator != " " or at == start):
                cuts.add(end)
            at = masked.find(separator, at + 1, stop)
    return sorted(cuts)


# A program's or a log channel's name before every line, with no time: an editor's output panel ("clangd: "),
# Gradle's "[system.err] ", Go's Android log tag ("E/Go: "), the Kotlin daemon's "exception: ".
_NAMED_HEAD = re.compile(r"(?:\[[\w.-]{1,40}\]|[A-Za-z][\w./-]{0,40}:) ")
# Words a diagnostic's lines open with, which are the lines' own text ("note: delayed at …").
_DIAGNOSTIC_WORDS = frozenset(
    ("note", "help", "warning", "warn", "error", "err", "info", "debug", "trace", "hint", "fatal", "panic", "remark")
)


def _named(line: str) -> tuple[str, str] | None:
    named = _NAMED_HEAD.match(line)
    return (named.group(), "") if named is not None else None


def _strip_named_heads(text: str) -> tuple[str, str]:
    lines = text.split("\n")
    shared = _shared_head(lines, _named)
    if shared is None or shared[0].strip("[]: ").lower() in _DIAGNOSTIC_WORDS:
        return text, ""
    head = shared[0]
    return "\n".join(line[len(head) :] if line.startswith(head) else line for line in lines), "log prefixes removed"


# A log's line heads, each way they are found: listed prefixes, any logger's timed head, a program's name.
_LOG_HEADS = (_strip_log_prefixes, _strip_timed_prefixes, _strip_named_heads)


def _blanks_at_end(prefix: str) -> int:
    return len(prefix) - len(prefix.rstrip(" \t"))


def _rejoin_cut_log_lines(text: str, prefix: re.Pattern) -> tuple[str, int]:
    """A log a terminal cut: each prefixed line of its width goes on in the unprefixed line below.

    Once the prefixes are gone the pieces are too short to show a terminal's width, so the
    cut is undone first: when most prefixed lines followed by an unprefixed one are of one
    width (MIN_WRAP_WIDTH or more), each of those is joined to the line after it.
    """
    lines = text.split("\n")
    # Each line's prefix is looked for once.
    prefixed = [prefix.match(line) is not None for line in lines]
    goes_on = [_goes_on(line) and not has_prefix for line, has_prefix in zip(lines, prefixed, strict=True)]
    # A terminal's width: no prefixed line is longer, and distinct lines (not one message
    # logged twice) of exactly that length went on below.
    width = max((len(line) for line, has_prefix in zip(lines, prefixed, strict=True) if has_prefix), default=0)
    if width < MIN_WRAP_WIDTH:
        return text, 0
    at_width = [index for index, line in enumerate(lines) if prefixed[index] and len(line) == width]
    cut = {lines[index] for index in at_width if index + 1 < len(lines) and goes_on[index + 1]}
    if len(cut) < 2 or len(cut) * 2 < len(at_width):
        return text, 0
    out: list[str] = []
    out_prefixed = False  # whether out[-1] starts with a prefix
    joined = 0
    for line, has_prefix, continues in zip(lines, prefixed, goes_on, strict=True):
        previous = out[-1] if out else ""
        if out and out_prefixed and len(previous) % width == 0 and len(previous) // width <= 4 and continues:
            out[-1] = previous + line
            joined += 1
        else:
            out.append(line)
            out_prefixed = has_prefix
    return "\n".join(out), joined


# A record of its own below a log line, never the rest of one: an exception's first line.
_RECORD_HEAD = re.compile(r"^(?:[\w$.]{1,300}(?:Error|Exception|Throwable|Panic)\b|Traceback \(|panic: )")


def _goes_on(line: str) -> bool:
    """Whether ``line`` (one with no log prefix) may be the rest of a log line a terminal cut: at column 0,
    no record's head."""
    return (
        bool(line)
        and not line[:1].isspace()
        and not _LINE_START.match(line[:MAX_LINE])
        and not _RECORD_HEAD.match(line[:MAX_LINE])
    )


def _strip_list_markers(text: str) -> tuple[str, str]:
    # Only a marker on the first non-blank line with the rest indented under
    # it: that is a trace pasted into a list item, not a list of frames.
    first = _NON_BLANK_LINE.search(text)
    if first is None:
        return text, ""
    start = first.start()
    line_end = text.find("\n", start)
    found = _LIST_MARKER.match(text[start:line_end] if line_end >= 0 else text[start:])
    if not found:
        return text, ""
    marker = found.end()
    rest = text[line_end + 1 :] if line_end >= 0 else ""
    # A non-blank line indented less than the item's text ends the list item. (A one-line
    # paste is all item.)
    if _NON_BLANK_LINE.search(rest) is None and line_end >= 0:
        return text, ""
    if re.search(rf"^[ \t]{{0,{marker - 1}}}[^ \t\n]", rest, re.M):
        return text, ""
    return text[:start] + " " * marker + text[start + marker :], "list marker removed"


# A non-blank line's leading blanks (spaces and tabs), up to its first non-blank character.
_INDENT = re.compile(r"^([ \t]*+)(?=[^\S\n]*+\S)", re.M)


# A non-blank line with no indentation: then nothing is indented in common.
_UNINDENTED = re.compile(r"^(?=[^\S\n]*+\S)[^ \t\n]", re.M)


def _dedent(text: str) -> tuple[str, str]:
    # Looked for first: collecting every line's indentation costs more, and most texts stop here.
    if _UNINDENTED.search(text):
        return text, ""
    indents = set(_INDENT.findall(text))
    if not indents or "" in indents:
        return text, ""
    common = min(map(len, indents))
    # Only a prefix every line shares: a mix of tabs and spaces is left alone.
    prefix = _INDENT.search(text).group(1)[:common]
    if any(not indent.startswith(prefix) for indent in indents):
        return text, ""
    return re.sub(rf"(?m)^[^\n]{{0,{common}}}", "", text), "indentation removed"


# A compiler's diagnostic as a JSON line (rustc --error-format=json, cargo's
# --message-format=json, which editors and RLS run): the ICE's text and its
# bug's location are inside, as the "rendered" string a terminal would print.
_JSON_DIAGNOSTIC = re.compile(r'^[ \t]*\{(?=[^\n]*"rendered":)"[^\n]*\}[ \t]*$', re.M)


def _rendered(line: str) -> str | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # cut by the paste, not JSON after all, or nested to exhaust the parser
        return None
    if not isinstance(record, dict):
        return None
    if isinstance(record.get("message"), dict):  # cargo wraps rustc's record: {"reason": …, "message": {…}}
        record = record["message"]
    rendered = record.get("rendered")
    if not isinstance(rendered, str) or not rendered.strip():
        return None
    # What the text itself went through: colours (cargo's --message-format=json-diagnostic-rendered-ansi),
    # CR line ends, and a lone surrogate a \ud800 escape decodes to, which no database stores.
    rendered = _ANSI.sub("", rendered).replace("\r\n", "\n").replace("\r", "\n")
    return rendered.encode("utf-8", "replace").decode("utf-8").rstrip("\n")


def _render_json_diagnostics(text: str) -> tuple[str, str]:
    """Each JSON diagnostic line as the text it renders to."""
    if '"rendered":' not in text:
        return text, ""
    rendered = 0

    def render(match: re.Match) -> str:
        nonlocal rendered
        shown = _rendered(match.group())
        if shown is None:
            return match.group()
        rendered += 1
        return shown

    text = _JSON_DIAGNOSTIC.sub(render, text)
    if not rendered:
        return text, ""
    return text, f"{rendered} JSON diagnostic{'s' if rendered > 1 else ''} rendered"


_RULE_ENDS = ("===", "___", "---", "***", "###", "~~~")


def _unwrap(text: str) -> tuple[str, str]:
    """Join lines hard-wrapped at a fixed width.

    A terminal or a mail client cuts every longer line at the same column,
    so the width shows as the longest line length being shared by several
    lines. A line of exactly that width continues on the next one unless
    the next one starts a new frame or record, or is indented: a cut line
    goes on at column 0, while a trace's own next line (a Python frame's
    source, its position markers) is indented. Several lines of one length
    happen by chance (a traceback's paths, checked out in /tmp/ci, made
    four lines of 63 characters), so the evidence is weighed: three
    distinct lines of the width, or two that each go on in the next line
    (a line and its repetition are no line and its continuation); at least
    two joins either way; a line ending as a frame ends (a Go file line, a
    closing parenthesis, ``file:line:column``) is whole, since a cut falls
    exactly there by chance only.
    """
    if _mostly(text, _PADDED_LINE):
        # A console pads every line with blanks (to its width, or by a few), a copy leaves one
        # after each: the cuts show as lines of the width once the padding is gone.
        text = _TRAILING_BLANKS.sub("", text)
    lines = text.split("\n")
    if max(map(len, lines)) < MIN_WRAP_WIDTH:
        return text, ""
    # A line printed twice is one piece of evidence, not two.
    lengths = Counter(len(line) for line in set(lines) if len(line) >= MIN_WRAP_WIDTH)
    width = max(lengths)
    if lengths[width] < _MIN_WRAPPED_LINES - 1:
        return text, ""
    joined: list[str] = []
    wrapped = 0
    # A cut can fall on a blank, which then starts the next line; with less evidence of a cut
    # than three lines, a line starting with one blank is taken as indented.
    blank_cuts = lengths[width] >= _MIN_WRAPPED_LINES
    cut = False  # whether the last physical line looks cut: full width, not ending a record
    for line, before in zip(lines, ["", *lines[:-1]], strict=True):
        continues = (
            line != before
            and line.strip()
            and (not line[:1].isspace() or (blank_cuts and _ONE_BLANK.match(line)))
            and not _LINE_START.match(line)
            # A Python frame line cut in its function's name goes on with the rest of the name
            # alone; a line that says more is the frame's source, pasted without its indentation.
            and not (_PYTHON_FRAME_END.match(before[:MAX_LINE]) and not NAME_REST.fullmatch(line.rstrip()))
        )
        # A frame's location alone, one blank in (" /src/p_lx_elf.cpp:1688"), goes on a line of the width
        # even where that line ends as a frame does ("…const*)"): a location is never a record of its own.
        cut_before_location = len(before) >= width and not before.endswith("  ") and _LOCATION_ONLY.match(line)
        if joined and (cut or cut_before_location) and continues:
            joined[-1] += line
            wrapped += 1
        else:
            joined.append(line)
        # A fragment wrapped again is full width too.
        # A line ending in two blanks or more was padded, not cut; one blank at the width is where a cut fell.
        # And a rule ("=== FAILURES ===" filling a terminal's width, as pytest draws its sections) is whole.
        cut = (
            len(line) >= width
            and not line.endswith("  ")
            and not _RECORD_END.search(line[-120:])
            and not line.endswith(_RULE_ENDS)
        )
    # Two lines of one width happen by chance; two that each go on in the next line rarely do.
    if wrapped < 2 or (lengths[width] < _MIN_WRAPPED_LINES and wrapped < lengths[width]):
        return text, ""
    return "\n".join(joined), f"{wrapped} lines unwrapped at column {width}"


# The words a crash's headline opens with, which parsers and identity lines are found by. A short
# paste has too few full-width lines for _unwrap to trust, but a line of at least MIN_WRAP_WIDTH
# whose end and the next line's start make one of these only when put together was cut there
# ("…/Linear_cell_complex_base.h:279:40: internal compiler" / " error: in cp_parser_template_id…").
_MARKERS = (
    "internal compiler error",
    "panicked at",
    "Traceback (most recent call last)",
    "AddressSanitizer",
    "Assertion `",
    "Assertion failed",
    "LLVM ERROR",
    "UNREACHABLE executed",
    "Exception in thread",
    "Unhandled exception",
    "fatal error:",
    "runtime error:",
)
# How much of each side of a cut a marker can span.
_MARKER_SPAN = max(map(len, _MARKERS))


_WRAP_WIDE_LINE = re.compile(rf"^[^\n]{{{MIN_WRAP_WIDTH}}}", re.M)


def _join_cut_markers(text: str) -> tuple[str, str]:
    """Join a line to the next where a terminal cut a crash marker in two (see :data:`_MARKERS`)."""
    if "\n" not in text or not _WRAP_WIDE_LINE.search(text):
        return text, ""  # (no line a terminal could have cut: none as long as its width)
    lines = text.split("\n")
    joined: list[str] = []
    cut_at = -1  # index in joined of a line just extended: a marker cut twice is not joined again
    for line in lines:
        before = joined[-1] if joined else ""
        if len(joined) - 1 != cut_at and len(before) >= MIN_WRAP_WIDTH and line and _spans_cut(before, line):
            joined[-1] = before + line
            cut_at = len(joined) - 1
        else:
            joined.append(line)
    count = len(lines) - len(joined)
    return (
        ("\n".join(joined), f"{count} crash headline{'s' * (count > 1)} rejoined where a terminal cut it")
        if count
        else (text, "")
    )


def _spans_cut(before: str, after: str) -> bool:
    """True when a marker runs from the end of ``before`` into the start of ``after``."""
    tail, head = before[-_MARKER_SPAN:], after[:_MARKER_SPAN]
    window = tail + head
    for marker in _MARKERS:
        position = window.find(marker)
        while position != -1:
            if position < len(tail) < position + len(marker):
                return True
            position = window.find(marker, position + 1)
    return False


# Blanks at a line's end: a terminal's padding or an editor's leftovers, never part of a frame.
# Only from the start of a run (the look-behind), so a line of a million blanks is read once.
# A run's first blank, then the rest (a blank first, so scanned for; the look-behind skips a run's later blanks,
# each of which would read the run to its end again).
_TRAILING_BLANKS = re.compile(r"[ \t](?<![ \t][ \t])[ \t]*+$", re.M)


def _strip_trailing_blanks(text: str) -> tuple[str, str]:
    """Last, after :func:`_unwrap`: a line cut at a blank still shows its full width there."""
    return _TRAILING_BLANKS.sub("", text), ""
