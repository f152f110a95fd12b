"""crashes.phrases: an alternation searched only for the alternatives whose plain words a line holds."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from crashes.phrases import Phrases
from crashes.signatures.unparsed import STOCK_LINES

TRACES = Path(__file__).resolve().parents[1] / "traces"


def test_it_finds_what_the_whole_expression_finds_on_every_fixture_line_and_their_mutants():
    lines = sorted({line.strip()[:500] for path in TRACES.glob("**/*.txt") for line in path.read_text().splitlines()})
    rng = random.Random(7)
    # Mutants: one character changed, often into one IGNORECASE matches to an ASCII letter.
    alphabet = "aeiks KSI:[]()-/$#*01_'\"`\u0130\u0131\u017f\u212a"
    mutants = []
    for line in lines:
        if line:
            index = rng.randrange(len(line))
            mutants.append(line[:index] + rng.choice(alphabet) + line[index + 1 :])
    whole = STOCK_LINES.pattern
    found = 0
    for line in lines + mutants:
        expected = whole.search(line)
        got = STOCK_LINES.search(line)
        assert (got and got.span()) == (expected and expected.span()), line
        found += expected is not None
    assert len(lines) > 3000 and found > 100  # the fixtures hold stock lines: the comparison compared something


def test_letters_that_ignoring_case_makes_ascii_are_read_as_such():
    phrases = Phrases(r"(?i)(?:please report|stack dump:)")
    assert phrases.search("PLEASE REPORT it").span() == (0, 13)
    assert phrases.search("plea\u017fe report it")  # LATIN SMALL LETTER LONG S matches "s" ignoring case
    assert phrases.search("\u212aeep: Stack Dump:") is not None
    assert phrases.search("please re-port") is None


@pytest.mark.parametrize(
    ("pattern", "line", "span"),
    [
        (
            r"(?i)(?:[]|]x|y(?:a|b)z|\|q)",
            "ab]x",
            (2, 4),
        ),  # a "]" first in a class is in it; "|" in a class splits nothing
        (r"(?i)(?:[]|]x|y(?:a|b)z|\|q)", "ybz", (0, 3)),
        (r"(?i)(?:[]|]x|y(?:a|b)z|\|q)", "a|q", (1, 3)),
        (r"(?i)(?:^\s*abc\b|zzz)", "  ABC def", (0, 5)),  # opening with "^": at the start or nowhere
        (r"(?i)(?:^\s*abc\b|zzz)", "x abc", None),
        (r"(?i)(?:first|fir)", "firs", (0, 3)),  # in the order written: "first" is tried first
    ],
)
def test_alternatives_are_split_where_the_expression_splits_them(pattern, line, span):
    match = Phrases(pattern).search(line)
    assert (match and match.span()) == span
    expected = re.search(pattern, line)
    assert (expected and expected.span()) == span


def test_any_other_form_is_refused():
    with pytest.raises(ValueError):
        Phrases(r"(?i)abc|def")
    with pytest.raises(ValueError):
        Phrases(r"(?i)(?:abc)|(?:def)")
