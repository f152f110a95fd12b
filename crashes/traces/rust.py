"""Rust panics, and rustc's internal compiler errors, identified the way rustc's triagers do.

A panic is ``thread 'main' panicked at src/main.rs:4:5:`` + message (1.73+)
or ``thread 'main' panicked at 'message', src/main.rs:4:5`` (older), then
maybe ``stack backtrace:`` with ``  12: crate::module::function::h0123…``.

rustc's ICEs are triaged by where the compiler gave up and what it said:
the panic location or the ``bug!`` location quoted in ``error: internal
compiler error: compiler/rustc_x/src/y.rs:12:34: message`` (file, without
the line, which moves between nightlies), the message with its types,
names and numbers masked, and the query that was running (``query stack
during panic: #0 [typeck] …``). ``Box<dyn Any>`` panics, ``unexpected
panic`` and the ``delayed bug`` banners carry no identity of their own: the
real message is the ICE line before them, or the delayed bug's location.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from crashes.model import Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import (
    MAX_LINE,
    at_column_zero,
    find_lines,
    join_cut_lines,
    mask_message,
    path_before,
    per_text,
)

FORMAT = "rust"
# Since Rust 1.89 the thread's id follows its name: "thread 'main' (6913397) panicked at …".
THREAD = r"thread '(?P<thread>[^'\n]{0,200})' (?:\(\d{1,20}\) )?"
# A Windows path may hold blanks ("C:\Program Files\Rust\.cargo\registry\…", "C:\Users\Jane Doe\…"), up to
# the colon before the line; any other path ends at a blank.
_WINDOWS_PATH = r"[A-Za-z]:[\\/][^:\n']{1,300}?"
_PANIC_NEW = re.compile(
    # A custom panic hook (ruff's, cargo's) prints it without the thread; a logger prints the message on the
    # same line ("panicked at src/x.rs:586:29: called `Option::unwrap()` on a `None` value").
    r"^\s*`?(?:" + THREAD + r")?panicked at (?P<file>" + _WINDOWS_PATH + r"|[^\s:'][^\s:]{0,300}):"
    r"(?P<line>\d+):\d+:?(?:\s*$| ?(?P<inline>\S.{0,2000}?)\s*$)"
)
# The old form's file, in its pattern and in the search for its end (which must find every end the pattern does).
# (No quote in a file's name: at every "'," of a message of quotes and commas it would read 300 characters.)
_OLD_FILE = _WINDOWS_PATH + r"|[^\s:']{1,300}"
_PANIC_OLD = re.compile(
    # The blank after the comma may be gone: a line cut there, its trailing blank stripped.
    # A custom panic hook (ruff's) prints it without the thread, as in the new form.
    r"^\s*`?(?:" + THREAD + r")?panicked at '(?P<message>(?s:.*))', ?"
    r"(?P<file>" + _OLD_FILE + r"):(?P<line>\d+)(?::\d+)?"
)
# Where the old form's message closes and its location follows.
_PANIC_OLD_TAIL = re.compile(r"', ?(?:" + _OLD_FILE + r"):\d")
# The old form with its location cut off by the reporter ("thread 'main' panicked at 'msg'" and the
# line ends): the message is all there is to go by, as for a panic that printed no location.
_PANIC_OLD_BARE = re.compile(r"^\s*`?(?:" + THREAD + r")?panicked at '(?P<message>[^\n]{1,2000})'`?\s*$")
# The old form's head: a message that runs past its line (its own newlines, or
# a terminal's hard wrap) closes on one of the next lines.
# (A "`" opening the line: inline code whose closing tick a wrap put on the next line.)
_PANIC_OLD_HEAD = re.compile(r"^\s*`?(?:" + THREAD + ")?panicked at '")
# Ruff's and ty's own panic report: "panic: Panicked at FILE:L:C when checking `x.py`: `message`".
_PANIC_REPORTED = re.compile(
    r"^\s*panic: Panicked at (?P<file>[^\s:]{1,300}):(?P<line>\d+):\d+ when [^\n]{0,600}?: "
    r"`(?P<message>[^\n]{0,2000})`\s*$"
)
# A panic hook that prints the hook's argument with {:?} (gitui's, many TUIs'):
# "PanicHookInfo { payload: Any { .. }, message: Some(…), location: Location { file: "src/x.rs",
# line: 3, col: 5 }, … }". The type's name is not needed: a redrawing terminal may overwrite it.
_HOOK_PAYLOAD = "{ payload: "
_HOOK_LOCATION = re.compile(
    r'location: Location \{ file: "(?P<file>[^"]{1,300})", line: (?P<line>\d{1,9}), col: \d{1,9} \}'
)
_PANIC_OLD_LINES = 12
# ... and characters: a message of an error chain is a few hundred.
_PANIC_OLD_CHARACTERS = 4096
# color-eyre's and color-backtrace's panic hook (Foundry, many CLIs): a banner, then the payload and where:
#   The application panicked (crashed).
#   Message:  checksum not found
#   Location: /…/ethers-solc/src/compile/mod.rs:463
# then "━━━ BACKTRACE ━━━" and frames as std prints them. The same crash as "panicked at", told otherwise.
_EYRE_BANNER = "The application panicked (crashed)"
_EYRE_MESSAGE = re.compile(r"^\s*Message:\s+(?P<message>\S.*?)\s*$")
# (A closing fence may follow on the line: "Location: /…/src/lib.rs:175```".)
_EYRE_LOCATION = re.compile(
    r"^\s*Location:\s+(?P<file>(?:[A-Za-z]:)?[^\s:`]{1,300}):(?P<line>\d+)(?::\d+)?\s*(?:`{1,3}\s*)?$"
)
_EYRE_INDENTED = re.compile(r"^\s{2,8}(?P<message>\S.*?)\s*$")
# ("in src/app.rs:774", or as color-eyre's panic section prints it: "in src/buffer.rs, line 229".)
_EYRE_IN = re.compile(
    r"^\s*in (?P<file>(?:[A-Za-z]:)?[^\s:`,]{1,300})(?::|, line )(?P<line>\d+)(?::\d+)?\s*(?:`{1,3}\s*)?$"
)
# How far below the banner its fields may be (a message of several lines in between).
_EYRE_LINES = 8
# miette's panic hook (espflash's, many CLIs'): "Error:   × Main thread panicked.", then
# "  ├─▶ at src/x.rs:171:80" and "  ╰─▶ called `Result::unwrap()` on an `Err` value: …".
_MIETTE_BANNER = re.compile(r"× (?:Main thread|Thread '[^'\n]{0,200}') panicked\.?\s*$")
_MIETTE_AT = re.compile(r"^\s*[├│]─+▶ at (?P<file>(?:[A-Za-z]:)?[^\s:]{1,300}):(?P<line>\d+)(?::\d+)?\s*$")
_MIETTE_MESSAGE = re.compile(r"^\s*[╰├]─+▶ (?P<message>\S.*?)\s*$")
_MIETTE_LINES = 4
# human-panic's report (many Rust CLIs' "Well, this is embarrassing." file, pasted into an issue):
# "Panic occurred in file '/…/rustic_core-0.7.2/src/vfs.rs' at line 540" and 'cause = "called `Option::…"'.
# (qdrant's hook prints the file unquoted and the message after it: "Panic occurred in file lib/x.rs at line 139:
# MSG".)
_HUMAN_PANIC_AT = re.compile(
    # (Since 2.0 its explanation says only "file '/…/src/execution.rs' at line 356".)
    r"(?:Panic occurred in file|^file) '?(?P<file>[^'\s]{1,300})'? at line (?P<line>\d{1,9})"
    r"(?::\s?(?P<inline>\S.{0,2000}))?"
)
# Biome's (Rome's) crash report: "Source Location: crates/biome_service/src/settings.rs:78:14", "Thread Name: …",
# "Message: You must have at least one workspace.".
_SOURCE_LOCATION = re.compile(r"^\s*Source Location:\s+(?P<file>[^\s:]{1,300}\.rs):(?P<line>\d{1,9})(?::\d{1,9})?\s*$")
# Its cause field as TOML writes it: 'cause = "…"', with the key quoted in newer releases ('"cause" = "…"'), or as a
# multi-line string ("cause = '''" and the message on the lines below it, up to the closing quotes).
_HUMAN_PANIC_CAUSE = re.compile(r"""^\s*"?cause"? = (?P<quote>'''|\"\"\"|["'])(?P<message>.{0,2000}?)\s*$""")
_BASIC_STRING_END = re.compile(r'(?<!\\)"')
_PANICKED_AT_LINE = re.compile(r"^panicked at \S{1,300}:\d{1,9}:\d{1,9}:?$")
# How many lines a multi-line cause is read over.
_HUMAN_PANIC_CAUSE_LINES = 20
# rustc's own thread; since Rust 1.89 with its id: "thread 'rustc' (81234) panicked at".
_RUSTC_THREAD = re.compile(r"thread 'rustc' (?:\(\d{1,20}\) )?panicked")
_ICE = re.compile(r"^\s*(?:error|ERROR): internal compiler error: (?P<message>.+)$")
# Before 2018 the location had no column: "../src/librustc_metadata/decoder.rs:490: entry: …".
_ICE_LOCATION = re.compile(r"^(?P<file>[\w./\\-]{1,300}\.rs):(?P<line>\d+)(?::\d+)?: (?P<message>.*)$")
_DELAYED_AT = re.compile(r"^\s*(?:=\s*)?note: delayed at (?P<file>[\w./\\-]{1,300}\.rs):(?P<line>\d+)")
_QUERY = re.compile(r"^\s*#(?P<index>\d+) \[(?P<query>\w+)\]")
# (human-panic's report closes its backtrace string on the last frame's line: "6: 0x7ffa… - RtlUserThreadStart\"\"\"".)
_FRAME = re.compile(r"^\s*(?P<index>\d+):\s+(?:0x[0-9a-fA-F]+ - )?(?P<function>\S.*?)(?:\"\"\"|''')?\s*$")
# A legacy symbol ends in its hash ("core::fmt::write::h0123456789abcdef"); a name cut short does not.
_SYMBOL_HASH = re.compile(r"::h[0-9a-f]{16}$")
_AT = re.compile(r"^\s+at (?P<file>.+?):(?P<line>\d+)(?::\d+)?\s*$")
# Messages that name no bug: the real one is elsewhere in the report.
_GENERIC_PANICS = re.compile(
    r"^(?:Box<(?:dyn )?Any>|unexpected panic|aborting due to .*|"
    r"no errors encountered even though .*|"
    r"(?:`?delayed_span_bug`?|delayed bug).*|"
    r"failed to process buffered lint here.*|"
    r"rustc_errors::ExplicitBug|explicit panic)$"
)
# What Rust and rustc print after a panic's message: never the message itself.
_AFTER_THE_MESSAGE = re.compile(
    r"^(?:stack backtrace:|note: run with `?RUST_BACKTRACE|note: some details are omitted|"
    r"(?:error|note): the compiler unexpectedly panicked|(?:error|ERROR): internal compiler error: unexpected panic|"
    r"query stack during panic|"
    # std giving up on a panic inside the panic handler: the message was never printed.
    r"thread (?:'[^']*' )?panicked while (?:processing panic|panicking))",
    re.I,
)
# Panic locations that are only where a panic is raised, not why.
_RAISING_FILES = re.compile(
    r"(?:^|/)(?:library/(?:core|std|alloc)|lib(?:core|std|alloc|collections)/|rustc_errors/src|"
    r"rustc_middle/src/util/bug\.rs|"
    # The same places before the 2020 move to compiler/: src/librustc_errors/lib.rs, src/librustc/util/bug.rs.
    r"librustc_errors/|librustc(?:_middle)?/util/bug\.rs|libsyntax_pos/|"
    r"rustc_span/src/lib\.rs|/rustc/[0-9a-f]+/library)"
)


_CRATE_HASH = re.compile(r"\b[a-z_][a-z0-9_]{0,60}\[[0-9a-f]{16}\]::")
_RUST_FRAME = re.compile(r"^\s*\d+:\s+(?:0x[0-9a-fA-F]+ - )?(?:<?[\w]+(?:::|\[))")
# Names only Rust's standard library has, on its way from a panic to its hook.
_PANIC_MACHINERY = ("std::panicking::", "core::panicking::", "rust_begin_unwind")


def _panic_hook_print(line: str) -> tuple[str, int, str] | None:
    """(file, line, message) of a panic hook's {:?} print, read by ``str.find`` (no backtracking)."""
    start = line.find(_HOOK_PAYLOAD)
    at = line.find("location: Location { file: ", start) if start >= 0 else -1
    located = _HOOK_LOCATION.match(line, at) if at >= 0 else None
    if located is None:
        return None
    between = line[start + len(_HOOK_PAYLOAD) : at].rstrip(", ")
    said = between.find("message: ")
    if said >= 0:
        message = between[said + len("message: ") :].removeprefix("Some(").removesuffix(")")
    else:
        message = between.strip('"') if between.startswith('"') else ""  # a &str payload; Any { .. } says nothing
    # {:?} escapes a Windows path's backslashes.
    return located["file"].replace("\\\\", "\\"), int(located["line"]), message


def _panic_hook(lines: list[str]) -> tuple[str, int, str] | None:
    return next((found for line in lines if _HOOK_PAYLOAD in line and (found := _panic_hook_print(line))), None)


def _miette_panic(lines: list[str]) -> tuple[str, int, str] | None:
    """(file, line, message) of miette's panic report: its banner, "├─▶ at FILE:L:C", then "╰─▶ MESSAGE"."""
    banner = next((i for i, line in enumerate(lines) if "panicked" in line and _MIETTE_BANNER.search(line)), None)
    if banner is None:
        return None
    below = [line[:MAX_LINE] for line in lines[banner + 1 : banner + 1 + _MIETTE_LINES]]
    at = next((found for line in below if (found := _MIETTE_AT.match(line))), None)
    if at is None:
        return None
    said = next(
        (found for line in below if not _MIETTE_AT.match(line) and (found := _MIETTE_MESSAGE.match(line))), None
    )
    return at["file"], int(at["line"]), said["message"] if said else ""


def _source_location_panic(lines: list[str]) -> tuple[str, int, str] | None:
    """(file, line, message) of a "Source Location:" report and the "Message:" a few lines below it."""
    at, found = next(
        ((i, m) for i, line in enumerate(lines) if "Source Location:" in line and (m := _SOURCE_LOCATION.match(line))),
        (None, None),
    )
    if found is None:
        return None
    said = next((m for line in lines[at + 1 : at + 4] if (m := _EYRE_MESSAGE.match(line[:MAX_LINE]))), None)
    return found["file"], int(found["line"]), said["message"] if said else ""


def _human_panic(lines: list[str]) -> tuple[str, int, str] | None:
    """(file, line, message) of human-panic's report: its "Panic occurred in file" and its cause field."""
    at = next(
        (
            found
            for line in lines
            if ("Panic occurred" in line or line.startswith("file '")) and (found := _HUMAN_PANIC_AT.search(line))
        ),
        None,
    )
    if at is None:
        return None
    cause = next(
        (
            (index, found)
            for index, line in enumerate(lines)
            if "cause" in line and " = " in line and (found := _HUMAN_PANIC_CAUSE.match(line[:MAX_LINE]))
        ),
        None,
    )
    message = _cause_message(lines, *cause) if cause else ""
    return at["file"], int(at["line"]), message or (at["inline"] or "").strip()


def _cause_message(lines: list[str], index: int, found: re.Match) -> str:
    """The first line of human-panic's cause (an error's chain follows it: "Caused by: …")."""
    quote, rest = found["quote"], found["message"]
    if len(quote) == 1:
        # Up to its closing quote (a basic string escapes its own: \"): a wrap may have joined the next field on.
        closing = _BASIC_STRING_END.search(rest) if quote == '"' else None
        return rest[: closing.start()] if closing else rest.split(quote, 1)[0]
    # A multi-line string: its text from the opening quotes on, up to the closing ones; its first line, past the
    # location a new-form panic prints on a line of its own ("panicked at src/x.rs:356:14:").
    text = [line.strip() for line in (rest, *lines[index + 1 : index + 1 + _HUMAN_PANIC_CAUSE_LINES])]
    said = [line for line in text if line and not _PANICKED_AT_LINE.match(line)]
    return said[0].split(quote, 1)[0].strip() if said else ""


def _eyre_panic(lines: list[str]) -> tuple[str, int | None, str] | None:
    """(file, line, message) of color-eyre's panic report: the first banner followed by its ``Message:``."""
    banner = next((index for index, line in enumerate(lines) if _EYRE_BANNER in line), None)
    if banner is None:
        return None
    said, message = None, []
    window = lines[banner + 1 : banner + 1 + _EYRE_LINES]
    for index, line in enumerate(window):
        clipped = line[:MAX_LINE]
        located = (_EYRE_LOCATION.match(clipped) or _EYRE_IN.match(clipped)) if said is not None else None
        if located:
            return located["file"], int(located["line"]), "\n".join(message)
        if said is None:
            # Its fields ("Message:  …", "Location: …"), or its compact form: the message indented, then
            # "in src/app.rs:774" (gitui's and other color-eyre users' reports).
            said = _EYRE_MESSAGE.match(clipped) or _EYRE_INDENTED.match(clipped)
            message = [said["message"]] if said else []
        elif clipped.strip():
            message.append(clipped.strip())  # a message of several lines
        elif not _field_follows(window, index + 1):
            break
    # Cut before its Location: the message alone, as a panic that printed none.
    return ("", None, message[0]) if said is not None else None


def _field_follows(lines: list[str], start: int) -> bool:
    """Whether the next line with text, from ``start`` on, is the report's ``Location:``: pasted as prose
    rather than as code, a Markdown renderer parts its fields with blank lines (noir-lang/noir#1021)."""
    following = next((line[:MAX_LINE] for line in lines[start:] if line.strip()), "")
    return bool(_EYRE_LOCATION.match(following))


# tokio's JoinError for a task that panicked, as an application passes it on ("task 123 panicked with
# message \"assertion failed: …\""): the panic's message, its place not printed.
_JOIN_ERROR = re.compile(
    r"\btask (?:\d{1,20} |Id\(\d{1,20}\) )?panicked with message \"(?P<message>(?:[^\"\\]|\\.){1,1000})\""
)


def _join_error_panic(lines: list[str]) -> tuple[str, None, str] | None:
    """("", None, message) of the first tokio JoinError of a panicked task."""
    found = next((m for line in lines if "panicked with message" in line and (m := _JOIN_ERROR.search(line))), None)
    return ("", None, found["message"].replace('\\"', '"')) if found else None


# A hook that prints the location first, labelled, and the message indented below it (the Gleam compiler's:
# "Panic: compiler-core/src/exhaustiveness.rs:746", then "\tCustom type variants must exist: …").
_LABELLED_LOCATION = re.compile(r"^\s{0,8}Panic:\s{1,8}(?P<file>[^\s:]{1,300}\.rs):(?P<line>\d{1,9})(?::\d{1,9})?\s*$")
_INDENTED_MESSAGE = re.compile(r"^(?:\t|\s{2,16})(?P<message>\S.{0,1000}?)\s*$")


def _labelled_location_panic(lines: list[str]) -> tuple[str, int, str] | None:
    """(file, line, message) of the first "Panic: F.rs:N" line and the indented message just below it."""
    at, found = next(
        (
            (i, m)
            for i, line in enumerate(lines)
            if "Panic:" in line and (m := _LABELLED_LOCATION.match(line[:MAX_LINE]))
        ),
        (None, None),
    )
    if found is None:
        return None
    said = _INDENTED_MESSAGE.match(lines[at + 1][:MAX_LINE]) if at + 1 < len(lines) else None
    return found["file"], int(found["line"]), said["message"] if said else ""


# What follows a Rust file's name in a location: ":321:17", ":2345", or "; Line: 321" (Neovide's fields). The name
# is read back from its ".rs" to a blank or a quote (a pattern searched along the line would try every start).
_AFTER_RUST_FILE = re.compile(r"(?::(?P<line>\d{1,9})(?::(?P<column>\d{1,9}))?|; Line: (?P<field>\d{1,9}))")
# "panic" as a word of the hook's ("Neovide panicked", "A panic occurred", "RustPanic:"), not inside a frame's name
# (__rust_maybe_catch_panic, std::panicking::begin_panic).
_PANIC_WORD = re.compile(r"(?<![\w:])[Pp]anic|(?<=[a-z])Panic")
_LOCATION_ENDS_LINE = re.compile(r":?\s*$")
_QUOTES = "'\""
# How far below its panic line a hook prints the location.
_HOOK_LOCATION_LINES = 2


def hook_words(text: str) -> tuple[str, int, str] | None:
    """(file, line, message) of a panic hook's own words with a Rust location (:func:`_any_hook_panic`), read where
    no other format claimed the text (crashes.traces.rust_hook_words)."""
    return _any_hook_panic(list(_joined_lines(text)[0])) if "anic" in text else None


def _any_hook_panic(lines: list[str]) -> tuple[str, int, str] | None:
    """(file, line, message) of the first line saying "panic" with a Rust location on it or just below it.

    Any other hook's wording, read by what every one of them prints: Neovide's "Neovide panicked with the message
    '…'. (File: src/bridge/events.rs; Line: 321, Column: 17)", a crash reporter's "RustPanic: panicked at
    C:\\…\\runner.rs:246:18:" (the message on the next line, as std's new form prints it), "A panic occurred:
    Some("…")" with "Location: Some("…/event_loop.rs:2345:11")" below it (a {:?} print, its backslashes
    doubled). A path of a Windows drive with blanks in it is not read here.
    """
    for index, line in enumerate(lines):
        if "anic" not in line:
            continue
        clipped = line[:MAX_LINE]
        spoken = _PANIC_WORD.search(clipped)
        if spoken is None:
            continue
        for below, place in enumerate(lines[index : index + 1 + _HOOK_LOCATION_LINES]):
            located = _rust_location(place[:MAX_LINE]) if ".rs" in place else None
            if located is None:
                continue
            begins, found, ends = located
            file = place[begins : found.start()].replace("\\\\", "\\")
            if _RAISING_FILES.search(file.replace("\\", "/")):
                return None  # std's own place (core's Result::unwrap): a frame's, not the panic's
            number = int(found["line"] or found["field"])
            if below == 0 and found["column"] and _LOCATION_ENDS_LINE.fullmatch(clipped, ends):
                # std's new form behind the hook's own words ("RustPanic: panicked at F:L:C:"): the message is
                # the next line with text.
                said = next((text.strip() for text in lines[index + 1 : index + 4] if text.strip()), "")
            else:
                said = _quoted_after(clipped, spoken.end(), begins if below == 0 else len(clipped))
            return file, number, said
        return None
    return None


def _rust_location(line: str) -> tuple[int, re.Match, int] | None:
    """(where the file's name begins, what follows its ".rs", where that ends) of the first Rust location in
    ``line``."""
    at = line.find(".rs")
    while at != -1:
        found = _AFTER_RUST_FILE.match(line, at + 3)
        if found:
            begins = path_before(line, at)
            if begins < at:
                return begins, found, found.end()
        at = line.find(".rs", at + 3)
    return None


def _quoted_after(line: str, start: int, end: int) -> str:
    """The quoted text of ``line`` between ``start`` and ``end``: from its first quote to the last one like it (a
    message may quote inside itself: "message 'invalid format for event 'win_pos' - …'."); else what follows
    the last ": " before ``end``."""
    opening = next((at for at in range(start, end) if line[at] in _QUOTES), None)
    if opening is not None:
        closing = line.rfind(line[opening], opening + 1, end)
        # (Unclosed: the message runs on below, as an old-form panic's multi-line message does.)
        return line[opening + 1 : closing if closing > opening else end].strip()
    colon = line.rfind(": ", start, end)
    return line[colon + 2 : end].strip(" .(") if colon >= 0 else ""


# Panic hooks' own reports (color-eyre's, miette's, human-panic's, Biome's, tokio's JoinError), each found by a
# literal it holds: the first that reads one gives the panic's file, line and message. A {:?} print of the
# hook's argument (_panic_hook) is read before them, and in parse also where std's panic line left no file.
_HOOK_REPORTS = (
    (_EYRE_BANNER, _eyre_panic),
    ("─▶ at ", _miette_panic),
    ("Panic occurred in file", _human_panic),
    ('explanation" = """', _human_panic),
    ("Source Location:", _source_location_panic),
    ("panicked with message", _join_error_panic),
    ("Panic:", _labelled_location_panic),
)


def _hook_report(text: str, lines: Sequence[str]) -> tuple[str, int | None, str] | None:
    """The first panic hook's report in ``text`` (its ``lines`` joined where cut), or None."""
    return next((found for needle, read in _HOOK_REPORTS if needle in text and (found := read(lines))), None)


def recognize(text: str) -> bool:
    """True for a Rust panic, a rustc ICE, or a Rust backtrace whose head was cut off."""
    if _HOOK_PAYLOAD in text and _panic_hook(_joined_lines(text)[0]):
        return True
    # (The lines are joined only for a text holding a hook's words: a text of nothing else is not read for them.)
    if any(needle in text for needle, _ in _HOOK_REPORTS) and _hook_report(text, _joined_lines(text)[0]):
        return True
    if "anicked at" not in text and "internal compiler error" not in text:
        # Headless: a run of "N: crate::path" frames with "at /rustc/…" or "at src/…" lines, or
        # with the hashes rustc's own crates carry in their symbols (rustc_middle[1a99a9759c5accc7]::ty::…).
        if "::" not in text:
            return False
        rust_sources = (
            (" at " in text and ("/rustc/" in text or ".rs:" in text))
            or bool(_CRATE_HASH.search(text))
            # Old toolchains printed no source lines: std's own panic machinery in the frames says Rust.
            or any(name in text for name in _PANIC_MACHINERY)
        )
        return rust_sources and len(find_lines(text, _RUST_FRAME, 3, "::")) >= 3
    if "anicked at" in text and (
        find_lines(text, _PANIC_REPORTED, 1, "Panicked at")
        or any(
            _PANIC_NEW.match(line[:MAX_LINE]) or _PANIC_OLD_HEAD.match(line[:MAX_LINE])
            for line in _joined_lines(text)[0]
            if "panicked at" in line
        )
    ):
        return True
    # "error: internal compiler error: …" opening a line is rustc's way; gcc and go put a location first.
    return bool(find_lines(text, _ICE, 1, "internal compiler error")) or _bare_rustc_ice(text)


# An ICE line pasted without its "error: " (a CI annotation's "test (nightly)internal compiler error: …")
# is rustc's when the text bears rustc's marks and none of GCC's.
# No colon before it: gcc and go put a location or a tool's name there ("./a.go:5:6: ", "crab1: ").
_BARE_ICE = re.compile(r"^[^:\n]{0,200}?internal compiler error: (?P<message>.+)$")
_RUSTC_MARKS = re.compile(r"DefId\(|delay_span_bug|compiler/rustc_|librustc|query stack during panic|\brustc \d+\.\d+")
_GCC_MARKS = re.compile(
    r"during (?:RTL|GIMPLE|IPA) pass|Please submit a full bug report|-freport-bug|\bcc1(?:plus)?\b|"
    r", at [\w/.-]+\.\w+:\d+"
)


@per_text
def _bare_rustc_ice(text: str) -> bool:
    return (
        _RUSTC_MARKS.search(text) is not None
        and _GCC_MARKS.search(text) is None
        and bool(find_lines(text, _BARE_ICE, 1, "internal compiler error"))
    )


_AT_START = re.compile(r"^\s+at \S")


def _cut_at_line(line: str) -> bool:
    return bool(_AT_START.match(line)) and not _AT.match(line[:MAX_LINE])


def _cut_hook_print(line: str) -> bool:
    return _HOOK_PAYLOAD in line and _panic_hook_print(line) is None


# A location a terminal cut inside its numbers: "…/diagnostic_builder.rs:775:2" / "1:", an ICE's
# "…/sortck.rs:511:3" / "2: no entry found for …", the old form's "…/file.rs:33" / "1:9". The next line
# opens with the rest of them (and the colon after them, where one follows). Or an ICE's cut on the blank
# after its location's colon: "…/fixpoint_encoding.rs:415:25:" / " failed to run fixpoint: …".
_CUT_LOCATION = re.compile(r"\.rs:\d+(?::\d*)?:?$")
_LOCATION_REST = re.compile(r"^(?:\d*(?::\d*)?(?::(?: |$)|$)| \S)")


def _cut_location(line: str) -> bool:
    return ("panicked at " in line or "internal compiler error: " in line) and bool(_CUT_LOCATION.search(line))


def _location_joined(joined: str) -> bool:
    line = joined[:MAX_LINE]
    if _PANIC_NEW.match(line) or _PANIC_OLD.match(line):
        return True
    ice = _ICE.match(line)
    located = _ICE_LOCATION.match(ice["message"]) if ice else None
    return bool(located and located["message"])


# A panic's path cut by a terminal before its location (the new form's, on a line of its own):
# "panicked at /Users/x/.cargo/git/checkouts/wgpu-53e7…/59f56e0" / "/wgpu-core/src/indirect_validation.rs:288:58:".
def _cut_path(line: str) -> bool:
    return (
        len(line) >= MIN_WRAP_WIDTH
        and "panicked at " in line
        and not line.rstrip().endswith(":")
        and _PANIC_OLD_HEAD.match(line[:MAX_LINE]) is None
        and _PANIC_NEW.match(line[:MAX_LINE]) is None
    )


def _join_cut_lines(lines: list[str]) -> tuple[list[str], int]:
    """Join an ``at`` line cut before its ``:line``, a panic hook's print cut before its Location, and a
    panic's or an ICE's location cut inside its numbers.

    Returns the lines and how many were joined.
    """
    # An indented line is the backtrace's next record; a hook's print cut on a blank goes on
    # with it (and is whole only once its Location closes).
    lines, at_lines = join_cut_lines(
        lines,
        _cut_at_line,
        lambda joined, _: bool(_AT.match(joined[:MAX_LINE])),
        goes_on=lambda line: not line[:1].isspace(),
    )
    lines, hook_prints = join_cut_lines(lines, _cut_hook_print, lambda joined, _: _panic_hook_print(joined) is not None)
    lines, paths = join_cut_lines(
        lines,
        _cut_path,
        lambda joined, _: _PANIC_NEW.match(joined[:MAX_LINE]) is not None,
        goes_on=at_column_zero,
    )
    lines, locations = join_cut_lines(
        lines,
        _cut_location,
        lambda joined, _: _location_joined(joined),
        goes_on=lambda line: bool(_LOCATION_REST.match(line)),
        most=1,
    )
    return lines, at_lines + hook_prints + paths + locations


# How far into its line the thread's name may start: a test runner's "[x86    ] " or a log's head.
_HEAD_MOST = 120
# wasm-bindgen's panic hook (console_error_panic_hook) throws a JavaScript Error whose message is the panic
# line: "Error: panicked at …", "Uncaught RuntimeError: panicked at …", an app's report "Error message: …".
_JS_ERROR_HEAD = re.compile(r"^\s*(?:Uncaught )?(?:Error|RuntimeError)(?: message)?: $")
# Its stack's WebAssembly frames, as V8 prints them ("    at ruffle_core::x::f::h0123… (wasm://wasm/0306993a:
# wasm-function[3168]:0x673a98)") and as Firefox does ("ruffle_core::x::f::h0123…@https://…/r.wasm:wasm-
# function[3168]:0x673a98"); the JavaScript glue's frames around them (.js files) are no frames of the panic.
_WASM_FRAME = re.compile(
    r"^\s*(?:at (?P<v8>\S[^()]{0,1000}?) \((?:wasm://|[^()\s]{0,500}:wasm-function\[)"
    r"|(?P<firefox>[^@\s]{1,1000})@[^@\s]{0,500}:wasm-function\[)"
)
# Firefox names a function with its module's name: "ruffle_web.wasm.js_sys::Error::new".
_WASM_MODULE = re.compile(r"^[\w-]{1,100}\.wasm\.")


def _from_thread(line: str) -> str:
    """A panic line from its thread's name on.

    ``[x86    ] thread 'main' panicked at …`` (a test runner's prefix) and a paste that cut the
    line's head off, ``hread 'main' panicked at …`` or ``polars-0' panicked at …``, are read as
    ``thread 'main' panicked at …``.
    """
    at = line.find("panicked at")
    if at <= 0 or at > _HEAD_MOST + 200:
        return line
    head = line[:at]
    if head.lstrip(" `").startswith("thread '") or not head.strip(" `"):
        return line
    if _JS_ERROR_HEAD.match(head) or head.endswith("="):
        # A panic in WebAssembly, as a browser's console shows the Error its panic hook threw; or a logger's
        # field holding the panic line ("ERROR meilisearch: info=panicked at …").
        return line[at:]
    thread = head.rfind("thread '")
    if 0 < thread <= _HEAD_MOST:
        return line[thread:]
    if head.endswith("' "):
        opening = head.rfind("'", 0, len(head) - 2)
        if 0 <= opening <= _HEAD_MOST:
            return "thread " + line[opening:]
        name = head[:-2].strip()
        if opening == -1 and name and " " not in name:
            return "thread '" + line.lstrip()
    return line


@per_text
def _joined_lines(text: str) -> tuple[tuple[str, ...], int]:
    """:func:`_join_cut_lines` of ``text``'s lines (for recognize and parse alike), panic lines from their thread on."""
    lines, joined = _join_cut_lines(text.split("\n"))
    return tuple(_from_thread(line) if "panicked at" in line else line for line in lines), joined


def _backtrace(lines: list[str]) -> tuple[Frame, ...]:
    frames: list[Frame] = []
    # Without its "stack backtrace:" header (cut off), the frames start at once;
    # a panic hook may print "Backtrace:" with the first frame on the same line.
    started = not any("stack backtrace:" in line or "Backtrace:" in line for line in lines)
    last_line = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    cut = False  # whether the last frame read is the text's last line
    for index, line in enumerate(lines):
        if not started:
            header = line.find("stack backtrace:") if "stack backtrace:" in line else line.find("Backtrace:")
            if header == -1:
                continue
            started = True
            line = line[header:].split(":", 1)[1]
            if not line.strip():
                continue
        at = _AT.match(line)
        if at and frames:
            last = frames[-1]
            frames[-1] = Frame(function=last.function, file=at["file"], line=int(at["line"]))
            continue
        frame = _FRAME.match(line)
        # color-backtrace prints a symbol's missing hash as "<unknown>" after its name.
        function = frame["function"].removesuffix("<unknown>") if frame else ""
        if frame and not _UNSYMBOLISED.match(function):
            frames.append(Frame(function=function))
            cut = index == last_line
        elif frames and line.strip() and not line.startswith(" "):
            break
    # A paste cut inside its last frame's name ("11: 0x115fde5ac - co") leaves a piece of a name: when
    # the frames above it end in their symbol hash (::h0123456789abcdef), a last line without one was cut.
    if cut and not _SYMBOL_HASH.search(frames[-1].function) and any(_SYMBOL_HASH.search(f.function) for f in frames):
        frames.pop()
    # Above std's rust_panic_with_hook (panic_with_hook since Rust 1.84) is the panic hook at work (a
    # logger's writer, a crash reporter, rustc's ICE hook): the same in every panic of the program,
    # never the crash.
    if not frames:
        frames = _wasm_frames(lines)
    hooked = max((i for i, frame in enumerate(frames) if _PANIC_WITH_HOOK.search(frame.function)), default=-1)
    return tuple(frames[hooked + 1 :])


def _wasm_frames(lines: list[str]) -> list[Frame]:
    """The WebAssembly frames of a browser's stack below a panic, by their Rust names (none unnamed)."""
    frames = []
    for line in lines:
        if "wasm-function[" not in line:
            continue
        found = _WASM_FRAME.match(line[:MAX_LINE])
        name = found and _WASM_MODULE.sub("", found["v8"] or found["firefox"])
        # An unnamed one ("wasm-function[3168]", "<anonymous>") names nothing.
        if name and "::" in name:
            frames.append(Frame(function=name))
    return frames


_PANIC_WITH_HOOK = re.compile(r"\bpanicking::(?:rust_)?panic_with_hook\b|\brust_panic_with_hook\b")


# A frame without symbols ("0x5637cd7092d4 - <unknown>", or its address alone where the paste was cut):
# the address moves with every run, so it names nothing.
_UNSYMBOLISED = re.compile(r"(?:0x[0-9a-fA-F]+\s*-?\s*)?(?:<unknown>)?$")


_VERSIONED_CRATE = re.compile(r"-\d+\.\d+[\w.+-]*$")
# rustc's own sources, however they were printed: relative to the checkout (a panic's location
# since 1.73, an ICE line's bug!() location), under /rustc/<hash>/ (a delayed bug's note, older
# panics), or in the pre-2020 layout (src/librustc_x/…). One file must be one site in every form.
_RUSTC_SOURCE = re.compile(
    r"(?:^|/)compiler/(?P<crate>(?:rustc_|stable_mir)[\w-]*/.+)$|(?:^|/)src/(?P<old>lib(?:rustc|syntax)\w*/.+)$"
    r"|^(?P<bare>librustc\w*/.+)$"
)


# The standard library's folders before 2020 ("/rustc/<commit>/src/libcore/option.rs"), not a crate's own
# src/lib.rs or src/lib_impl/.
_OLD_STD_DIR = re.compile(
    r"/src/lib(?:std|core|alloc|collections|panic_unwind|panic_abort|unwind|test|proc_macro|term|backtrace|"
    r"compiler_builtins|syntax\w*)/"
)
# A tool built in the compiler's tree, in rustup's remapped sources ("/rustc/<commit>/src/tools/clippy/
# clippy_lints/src/x.rs") or a build in the tree ("src/tools/miri/src/shims/x.rs"): its path in its own
# repository, as a build from there prints it ("clippy_lints/src/x.rs", "src/shims/x.rs").
_TOOL_IN_TREE = re.compile(r"^(?:/rustc/[0-9a-f]{7,40}/)?src/tools/[\w-]{1,40}/")


def _strip_dir(path: str) -> str:
    """A source path without where it was checked out or which version it was.

    ``/rustc/<hash>/compiler/rustc_x/src/y.rs`` and ``compiler/rustc_x/src/y.rs``
    -> ``rustc_x/src/y.rs``; ``/rustc/<hash>/src/librustc/ty/context.rs`` and
    ``src/librustc/ty/context.rs`` -> ``librustc/ty/context.rs``;
    ``~/.cargo/registry/src/index-hash/zip-0.5.6/src/read.rs`` -> ``zip/src/read.rs``;
    ``src/main.rs`` stays.
    """
    path = _TOOL_IN_TREE.sub("", path.replace("\\", "/"))
    rustc = _RUSTC_SOURCE.search(path)
    if rustc:
        return rustc["crate"] or rustc["old"] or rustc["bare"]
    for anchor in ("/compiler/", "/src/librustc", "/library/"):
        index = path.find(anchor)
        if index > 0:
            return path[index + 1 :]
    # The standard library's folders before 2020 (src/libstd/…, src/libcore/…), not a crate's src/lib.rs.
    old_std = _OLD_STD_DIR.search(path)
    if old_std and old_std.start() > 0:
        return path[old_std.start() + 1 :]
    registry = path.find("/registry/src/")
    if registry >= 0:
        # index, crate folder, the file within: the crate's root may hold the file itself (lib.rs).
        inside = path[registry + len("/registry/src/") :].split("/")
        if len(inside) >= 3:
            return "/".join([_VERSIONED_CRATE.sub("", inside[1]), *inside[2:]])
    checkout = path.find("/git/checkouts/")
    if checkout >= 0:
        # A git dependency: <repository>-<hash>/<revision>/ then the file. In a workspace member's folder
        # (ethers-rs-…/c17c0c3/ethers-solc/src/…) the member is the crate, named as the registry names
        # it; at the repository's root (zip-rs-…/5c12e51/src/read.rs) the repository's name is not the
        # crate's (zip), so the file goes without one, as a checkout's does.
        inside = path[checkout + len("/git/checkouts/") :].split("/")
        if len(inside) >= 4:
            return "/".join(inside[2:])
    parts = path.split("/")
    if "src" in parts[:-1]:
        at = len(parts) - 1 - parts[::-1].index("src")
        crate = parts[at - 1] if at else ""
        # A registry crate's folder names it (zip-0.5.6); a checkout's folder
        # is wherever the reporter cloned it, unless the path is relative to
        # the workspace (crates/foo/src).
        absolute = path.startswith("/") or re.match(r"^[A-Za-z]:/", path)
        # A workspace member ("…/crates/ruff_linter/src") is named wherever it was checked out.
        member = at >= 2 and parts[at - 2] in ("crates", "compiler", "components", "packages", "libs")
        crate = _VERSIONED_CRATE.sub("", crate) if _VERSIONED_CRATE.search(crate) or not absolute or member else ""
        return "/".join([crate, *parts[at:]] if crate else parts[at:])
    return "/".join(parts[-2:])


def _new_panic(lines: list[str], index: int) -> tuple[re.Match | None, int]:
    """The new-form panic line at ``lines[index]`` and where its message is.

    A terminal cuts ``panicked at C:\\…\\mod.rs:`` from its ``77:18:``, or leaves the
    closing ``:`` alone on the next line: both are read as one line.
    """
    line = lines[index]
    found = _PANIC_NEW.match(line[:MAX_LINE])
    after = index + 1
    if found is None and len(line) >= MIN_WRAP_WIDTH and after < len(lines):
        found, after = _PANIC_NEW.match((line + lines[after])[:MAX_LINE]), after + 1
    if found is not None and after < len(lines) and lines[after].strip() == ":":
        after += 1
    return found, after


def _old_panic(lines: list[str], index: int) -> re.Match | None:
    """The old-form panic starting at ``lines[index]``, read across the lines its message runs over.

    A line cut at a terminal's width (``MIN_WRAP_WIDTH`` columns or more)
    continues the message without a break; a shorter one ended where the
    message has a newline of its own.
    """
    line = lines[index]
    head = _PANIC_OLD_HEAD.match(line)
    if not head:
        return None
    joined, ends = line, [len(line)]
    for following in lines[index + 1 : index + _PANIC_OLD_LINES]:
        if len(joined) > _PANIC_OLD_CHARACTERS:
            break
        joined += ("" if len(joined) - joined.rfind("\n") - 1 >= MIN_WRAP_WIDTH else "\n") + following[:MAX_LINE]
        ends.append(len(joined))
    # The panic ends on the first line its location does: found once, the whole panic read once (tried with
    # each line added, a head over lines of quotes and commas was read a dozen times).
    tail = _PANIC_OLD_TAIL.search(joined, head.end() - 1)
    if tail is None:
        return None
    return _PANIC_OLD.match(joined[: next(end for end in ends if end >= tail.end())])


# A path of the compiler's or the user's types ("std::option::Option", "alloc::raw_vec::RawVec"): two
# separators at least ("Def::Err" is one variant's name, as the message's own words are).
_TYPE_PATH = re.compile(r"(?<![\w:])\w{1,100}(?:::\w{1,100}){2,20}")
# How long a type printed into a message may be.
_TYPE_READ = 2000


def mask_types(message: str) -> str:
    """``message`` with the types rustc printed into it as ``T?``: ``<A<B> as Tr>::X`` -> ``<T?>::X``.

    rustc's triagers read an ICE's message without the user's types
    ("Failed to normalize <T?>::Item, maybe try to call …"): the same bug
    names each program's own. A bracket counts as a type's when it holds a
    path, a qualified path ("<Foo as Bar>") or another bracket ("Box<Any>"
    is a word); "a < b" is no bracket. The compiler's own types stay.
    """
    message = message[:_TYPE_READ]
    out, depth, start, start_of_type, typed = [], 0, 0, 0, False
    for index, character in enumerate(message):
        if character == "<" and index + 1 < len(message) and message[index + 1] not in " =":
            if depth == 0:
                start_of_type, typed = index, False
            depth += 1
            typed = typed or depth > 1
        elif depth and (
            (character == ":" and message[index - 1 : index + 1] == "::") or message[index : index + 4] == " as "
        ):
            typed = True  # a path, or a qualified one ("<Foo as Bar>")
        elif character == ">" and depth and message[index - 1] != "-":  # (not a closure's "-> T")
            depth -= 1
            if depth == 0 and typed:
                out.append(message[start:start_of_type] + "<T?>")
                start = index + 1
        elif character == "\n":
            depth = 0
    out.append(message[start:])
    return _TYPE_PATH.sub(_masked_path, "".join(out))


def _masked_path(found: re.Match) -> str:
    # The compiler's own types ("rustc_middle::mir::Body" of "attempted to read from stolen value") say which
    # of its structures failed, in every program: kept.
    return found.group(0) if found.group(0).startswith("rustc_") else "T?"


def parse(text: str) -> ParsedTrace:
    """Parse the panic (or ICE) and its backtrace; the first panic is the crash."""
    joined_lines, joined = _joined_lines(text)
    lines = list(joined_lines)
    if joined:
        text = "\n".join(lines)
    panic_file, panic_line, message = "", None, ""
    for index, line in enumerate(lines):
        if "anicked at" not in line:
            continue
        reported = _PANIC_REPORTED.match(line[:MAX_LINE])
        if reported:
            panic_file, panic_line, message = reported["file"], int(reported["line"]), reported["message"]
            break
        new, after = _new_panic(lines, index)
        if new:
            panic_file, panic_line = new["file"], int(new["line"])
            message = new["inline"] or (lines[after].strip() if after < len(lines) else "")
            # (Quoted in human-panic's TOML report, whose cause string closes on the message's line.)
            message = message.removesuffix('"""').removesuffix("'''")
            if _AFTER_THE_MESSAGE.match(message):
                message = ""  # the message was cut off (or the panic printed none): that line is what follows it
            break
        old = _old_panic(lines, index)
        if old:
            panic_file, panic_line, message = old["file"], int(old["line"]), old["message"].strip()
            break
        bare = _PANIC_OLD_BARE.match(line[:MAX_LINE])
        if bare:
            message = bare["message"].strip()
            break
    hooked = None if panic_file or _HOOK_PAYLOAD not in text else _panic_hook(lines)
    if not (panic_file or message or hooked):
        hooked = _hook_report(text, lines) or (_any_hook_panic(lines) if "anic" in text else None)
    if hooked:
        panic_file, panic_line, message = hooked
    ice_messages = [m["message"].strip() for m in find_lines(text, _ICE, 8, "internal compiler error")]
    if not ice_messages and _bare_rustc_ice(text):
        ice_messages = [m["message"].strip() for m in find_lines(text, _BARE_ICE, 8, "internal compiler error")]
    delayed = find_lines(text, _DELAYED_AT, 1, "delayed at")
    queries = [m["query"] for m in find_lines(text, _QUERY, 3, "#")]
    frames = list(_backtrace(lines))

    site, site_line, what = "", None, message
    # An ICE line that quotes the location of its bug!() names the site.
    for ice in ice_messages:
        located = _ICE_LOCATION.match(ice)
        if located:
            site, site_line, what = _strip_dir(located["file"]), int(located["line"]), located["message"]
            break
    if not site and delayed:
        site, site_line = _strip_dir(delayed[0]["file"]), int(delayed[0]["line"])
        what = next((m for m in ice_messages if not _GENERIC_PANICS.match(m)), what)
    is_ice = bool(ice_messages) or bool(_RUSTC_THREAD.search(text))
    if not site and panic_file and not _RAISING_FILES.search(panic_file.replace("\\", "/")):
        site, site_line = _strip_dir(panic_file), panic_line
        if not is_ice and panic_line is not None:
            site += f":{panic_line}"
    if not what or _GENERIC_PANICS.match(what):
        what = next((m for m in ice_messages if not _GENERIC_PANICS.match(m)), what)
    crash_type = ("ICE: " if is_ice else "") + mask_message(mask_types(what) if is_ice else what, limit=160)
    if site:
        frames.insert(0, Frame(function="", file=site, line=None, source="panic site"))
    query_frames = tuple(Frame(function=f"query {query}", source="query") for query in queries[:2])
    return ParsedTrace(
        format="rustc-ice" if is_ice else FORMAT,
        crash_type=crash_type,
        message=what,
        frames=tuple(frames),
        language="rust",
        site=site,
        context=tuple(f.function for f in query_frames),
        site_line=site_line if is_ice else None,
    )
