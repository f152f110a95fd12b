"""Faster forms of v4's text rules (and those added since) agree with the plain expressions they replaced.

The path and crate-hash expressions were rewritten to let the engine skip positions where no
match can start, runs of blanks are collapsed by ``str.split`` instead of ``\\s+``, and the
unparsed path looks for a failure word with ``str``'s own search before trying its expression:
each is checked here against the form it replaced, on text mixing what each one looks for
(the letters IGNORECASE folds that ``lower()`` does not among them).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from crashes.signatures import unparsed
from crashes.traces import extract, text

# The expressions as v4 was recorded with them.
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.+@-]{1,100}){2,}[\\/]?")
_CRATE_HASH = re.compile(r"(?<=\w)\[[0-9a-f]{4,16}\](?=::)")
_SPACE = re.compile(r"\s+")
# v8: a relative path's first directory goes with the rest.
_PATH_HEAD = re.compile(r"(?<![\w.+@-])[\w.+@-]{1,100}\x00path\x00")


def reference_mask(message: str, limit: int = 200, quoted: bool = True) -> str:
    message = message[: limit * 4]
    message = text._HEX.sub("0x?", message)
    message = text._BARE_HEX.sub("0x?", message)
    message = _CRATE_HASH.sub("", message)
    message = text._DEF_PATH.sub(r"\1?", message)  # v8's, taken as it is (no faster form)
    if quoted:
        message = text._QUOTED.sub("'?'", message)
        message = text._UNCLOSED.sub("'?'", message)  # v14's open quotes, taken as they are
    if quoted:  # v6's file names, taken as they are (no faster form)
        message = text._FILE_NAME.sub("<path>", message)
    file_mark = "\x00path\x00"

    def path(m: re.Match) -> str:
        found = m.group()
        is_file = re.search(r"\.[A-Za-z]\w{0,7}[\\/]?$", found)
        if "/" not in found and ":" not in found and not is_file:
            return found  # v19: backslashes alone, no drive, no file: a namespace
        return file_mark if is_file else "<path>"

    message = _PATH.sub(path, message)
    if file_mark in message:
        message = _PATH_HEAD.sub("<path>", message).replace(file_mark, "<path>")
    message = text._NUMBER.sub("N", message)
    return _SPACE.sub(" ", message).strip()[:limit]


PIECES = st.sampled_from(
    [
        "C:",
        "c:\\",
        "/",
        "\\",
        "usr",
        "a.b",
        "x.rs",
        ".py",
        "x+y",
        "@",
        "-",
        "crate",
        "[4c35]",
        "[",
        "]",
        "::",
        "0x1f",
        "12",
        " ",
        "  ",
        "\t",
        "\n",
        "\x0b",
        "\x0c",
        "\u00a0",
        "\u2003",
        "\u3000",
        "'q'",
        '"q"',
        "`q`",
        "é",
        "_",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES | st.text(max_size=4), max_size=40), st.integers(1, 300), st.booleans())
def test_masks_as_the_recorded_expressions(parts, limit, quoted):
    message = "".join(parts)
    assert text.mask_message(message, limit, quoted) == reference_mask(message, limit, quoted)


def test_real_messages_mask_as_before():
    for message in (
        "error[E0080]: evaluation of `bevy_inspector_egui[4c35]::x` failed at C:\\Users\\a\\src\\lib.rs:12:5",
        "panicked at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/option.rs:1\u00a0 x",
        "thread 'rustc' (81234) panicked at compiler/rustc_middle/src/ty/mod.rs:1:2:\n\n  boom  ",
    ):
        assert text.mask_message(message) == reference_mask(message)
        assert text.mask_message(message, 500, quoted=False) == reference_mask(message, 500, quoted=False)


WORDS = st.sampled_from(
    [
        "error",
        "ERROR",
        "Exception",
        "xError",
        "panicked",
        "fatal",
        "Assertion",
        "abort",
        "fault",
        "failed",
        "CRASH",
        "unreachable",
        "signal",
        "SIGSEGV",
        "sigabrt",
        "overflow",
        "invalid",
        "unexpected",
        "cannot",
        "can't",
        "unable",
        "not",
        "note",
        "\u0130nvalid",
        "fa\u0131led",
        "\u017figsegv",
        "\u212aill",
        "\u017f",
        "é",
        " ",
        "_",
        ".",
        ":",
        "a",
        "Z",
        "1",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(WORDS | st.text(max_size=3), max_size=20))
def test_the_failure_prefilter_agrees_with_the_expression(parts):
    line = "".join(parts)
    assert unparsed._reports_failure(line) == (unparsed._FAILURE.search(line) is not None)


def test_cut_lines_are_joined_once_for_recognize_and_parse(monkeypatch):
    from crashes import traces
    from crashes.traces import rust

    calls = []
    join = rust._join_cut_lines
    monkeypatch.setattr(rust, "_join_cut_lines", lambda lines: calls.append(1) or join(lines))
    text.forget_texts()
    # A panic hook's print cut before its Location: recognize needs the join, and parse too.
    pasted = (
        'PanicHookInfo { payload: Any { .. }, message: boom, location: Location { file: "src/a.rs", li\n'
        "ne: 3, col: 5 }, can_unwind: true }\n"
    )
    parsed = traces.parse(pasted)
    assert parsed.format == "rust" and len(calls) == 1
    text.forget_texts()
    assert traces.parse(pasted) == parsed and len(calls) == 2


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["<", ">", " as ", "Foo", "core::fmt::Display", "::", "x", " "]), max_size=30))
def test_trait_impls_unwrap_as_the_whole_name_expression_did(parts):
    import re

    from crashes import frames

    name = "".join(parts)
    expected = re.sub(r"<([^<>]+?) as [^<>]+>", r"\1", name)
    unwrap = frames._TRAIT_IMPL.sub
    got = name if " as " not in name else frames._INNERMOST_ANGLES.sub(lambda m: unwrap(r"\1", m[0]), name)
    assert got == expected


def reference_strip_balanced(text: str, opening: str, closing: str) -> str:
    """v6's balanced-group removal as it was recorded: one character at a time."""
    if opening not in text:
        return text
    kept, pending, depth = [], [], 0
    for char in text:
        if char == opening:
            depth += 1
            pending.append(char)
        elif char == closing and depth:
            depth -= 1
            pending.append(char)
            if depth == 0:
                pending.clear()
        elif depth:
            pending.append(char)
        else:
            kept.append(char)
    return "".join(kept) + "".join(pending)


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(["(", ")", "<", ">", "a", "::", " ", "<>", "()", "é"]), max_size=40))
def test_balanced_groups_are_dropped_as_one_character_at_a_time_did(parts):
    from crashes import frames

    name = "".join(parts)
    for opening, closing in (("(", ")"), ("<", ">")):
        assert frames._strip_balanced(name, opening, closing) == reference_strip_balanced(name, opening, closing)


def test_function_names_are_remembered_only_when_of_ordinary_length():
    from crashes import frames

    frames._normalize_function_cached.cache_clear()
    name = "std::vector<int>::push_back(int const&)"
    assert frames.normalize_function(name, "native") == frames._normalize_function(name, "native")
    assert frames.normalize_function(name, "native") == "std::vector::push_back"
    assert frames._normalize_function_cached.cache_info().hits == 1
    hostile = "f<" * (frames.MAX_NAME // 2 + 1)
    assert frames.normalize_function(hostile, "native") == frames._normalize_function(hostile, "native")
    assert frames._normalize_function_cached.cache_info().currsize == 1


# What the log prefixes are made of, the Logcat panel's columns and levels among them.
LOG_PIECES = st.sampled_from(
    ["\n", " ", "  ", "\t", "E", "W", "A", "x", ":", "2024-01-02 03:04:05 ", "[INFO] ", "E/Tag( 12): ", "Nov 02"]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(LOG_PIECES | st.text(max_size=3), max_size=40))
def test_log_prefixes_are_read_alike_without_the_panels_branch_where_it_cannot_match(parts):
    # extract._log_prefix leaves the Logcat panel's costly branch out of texts with no level letter
    # followed by two blanks: the prefixes found and removed are those of the whole expression.
    pasted = "".join(parts)
    chosen = extract._log_prefix(pasted)
    assert chosen.findall(pasted) == extract._LOG_PREFIX.findall(pasted)
    assert chosen.sub("", pasted) == extract._LOG_PREFIX.sub("", pasted)
