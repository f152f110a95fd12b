"""A long alternation of phrases, searched only for the phrases whose words a line holds.

Python's ``re`` tries every alternative at every character: the stock
phrases of crashes.signatures.unparsed (about 150 of them, ignoring case)
cost about 5 µs per character of every line they are looked for in, so a
hostile report of long lines that pass every cheaper test took most of a
second. Most alternatives hold a run of plain characters every match of
theirs contains ("bug report", "stack dump:"); a line that holds none of an
alternative's run cannot match it. So the line is lower-cased once, each
run looked for with ``str``'s own search, and only the alternatives whose run
is there (and those with none) are tried, as one expression in their order:
the match is the one the whole expression would find, found sooner.
"""

from __future__ import annotations

import functools
import re
import re._parser as sre_parse  # the standard library's own reading of a pattern: which parts are plain text

# What IGNORECASE matches to an ASCII letter but lower() does not make one: İ, ı, ſ and the Kelvin sign.
_IGNORECASE_LETTERS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
# A run shorter than this is in too many lines to pass any over.
MIN_RUN = 3


class Phrases:
    """``re.compile(pattern)``'s ``search``, for a case-insensitive ``(?i)(?:A|B|…)``, trying only what can match."""

    def __init__(self, pattern: str):
        self.pattern = re.compile(pattern)
        head, body = _outer_alternatives(pattern)
        self._head = head
        self._alternatives = body
        self._runs = tuple(_required_run(head + alternative) for alternative in body)

    def search(self, line: str) -> re.Match | None:
        folded = fold(line)
        chosen = tuple(index for index, run in enumerate(self._runs) if run is None or run in folded)
        if not chosen:
            return None
        expression, anchored = self._expression(chosen)
        # Alternatives that each open with "^" match at the line's start or nowhere: no search past it.
        return expression.match(line) if anchored else expression.search(line)

    @functools.lru_cache(maxsize=256)  # noqa: B019 - a few module-level instances, kept for the process's life
    def _expression(self, chosen: tuple[int, ...]) -> tuple[re.Pattern, bool]:
        alternatives = [self._alternatives[index] for index in chosen]
        anchored = "m" not in self._head and all(alternative.startswith("^") for alternative in alternatives)
        return re.compile(self._head + "(?:" + "|".join(alternatives) + ")"), anchored


def fold(line: str) -> str:
    """``line`` lower-cased as IGNORECASE reads it: a plain word's ``in`` finds every match of it ignoring case."""
    return (line if line.isascii() else line.translate(_IGNORECASE_LETTERS)).lower()


def _outer_alternatives(pattern: str) -> tuple[str, list[str]]:
    """``(flags, [A, B, …])`` of ``pattern`` written ``(?flags)(?:A|B|…)``; ValueError for any other form."""
    flags = re.match(r"\(\?[aiLmsux]+\)", pattern)
    head = flags.group() if flags else ""
    body = pattern[len(head) :]
    if not (body.startswith("(?:") and body.endswith(")")):
        raise ValueError("not one group of alternatives")
    alternatives, depth, start, index, in_class = [], 0, 3, 3, False
    while index < len(body) - 1:
        char = body[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            index += 1 + (body[index + 1 : index + 2] == "^")
            index += body[index : index + 1] == "]"  # a "]" first in a class is one of its characters
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise ValueError("the group closes before the pattern's end")
        elif char == "|" and depth == 0:
            alternatives.append(body[start:index])
            start = index + 1
        index += 1
    alternatives.append(body[start : len(body) - 1])
    if depth or in_class:
        raise ValueError("unbalanced pattern")
    for alternative in alternatives:
        re.compile(head + alternative)  # each a pattern of its own, or the split was wrong (re.error)
    return head, alternatives


def _required_run(alternative: str) -> str | None:
    """The longest run of plain characters, lower-cased, that every match of ``alternative`` holds; None if short."""
    best, run = "", ""
    for op, value in sre_parse.parse(alternative):
        if op is sre_parse.LITERAL:
            run += chr(value)
            continue
        best, run = max(best, run, key=len), ""
    best = max(best, run, key=len)
    return best.lower() if len(best) >= MIN_RUN else None
