"""Delta debugging over lines, bracketed blocks and tokens: for Kotlin and any text without a reducer of its own.

The passes, repeated until none makes progress or the budget is spent:

1. ddmin over lines;
2. bracketed blocks (``{...}``, ``(...)``, ``[...]``) removed whole,
   outermost first: a function body or an argument list in one test;
3. ddmin over tokens (words, numbers, quoted strings, single symbols), each
   token taking the whitespace before it along.

    python -m engines.reduce.textreduce program.kt -- ./interesting.sh

The test command gets the candidate's path as its last argument and exits 0
when the candidate is still interesting.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from engines.reduce.ddmin import Budget, Candidates, ddmin
from engines.reduce.result import Reduction, file_reducer_main

# A token with the whitespace before it: removing one never glues two others together
# unless that whitespace was all that kept them apart, which the test then rejects.
_TOKEN = re.compile(
    r"""\s*(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|[A-Za-z_$][\w$]*|\d[\w.]*|\S)""",
    re.S,
)
_PAIRS = {"{": "}", "(": ")", "[": "]"}


def tokens(text: str) -> list[str]:
    """``text`` cut into tokens that join back into it exactly."""
    found = _TOKEN.findall(text)
    rest = text[sum(map(len, found)) :]
    return [*found, rest] if rest else found


def bracket_spans(parts: list[str]) -> list[tuple[int, int]]:
    """(first, last) token indexes of each balanced bracket pair, widest first."""
    spans, stack = [], []
    for index, part in enumerate(parts):
        symbol = part.strip()
        if symbol in _PAIRS:
            stack.append((symbol, index))
        elif stack and symbol == _PAIRS[stack[-1][0]]:
            spans.append((stack.pop()[1], index))
    return sorted(spans, key=lambda span: span[0] - span[1])


class _Reducer:
    def __init__(self, source: str, interesting: Callable[[str], bool], budget: Budget, valid=None):
        self.candidates = Candidates(source, interesting, budget, valid)
        self.budget = budget

    @property
    def best(self) -> str:
        return self.candidates.best

    def test(self, text: str) -> bool:
        return self.candidates.test(text)

    def _ddmin(self, parts: list[str]) -> bool:
        before = self.best
        ddmin(parts, lambda subset: self.test("".join(subset)), self.budget)
        return self.best != before

    def reduce_lines(self) -> bool:
        return self._ddmin(self.best.splitlines(keepends=True))

    def reduce_blocks(self) -> bool:
        progress = False
        parts = tokens(self.best)
        spans = bracket_spans(parts)
        while spans and not self.budget.spent:
            first, last = spans.pop(0)
            # The block alone, then the block with the word before it (a call's
            # name, an `if`), then just the brackets' contents.
            for start, end in ((first, last + 1), (max(first - 1, 0), last + 1)):
                if self.test("".join(parts[:start] + parts[end:])):
                    progress = True
                    parts = tokens(self.best)
                    spans = bracket_spans(parts)
                    break
        return progress

    def reduce_tokens(self) -> bool:
        return self._ddmin(tokens(self.best))

    def run(self) -> str:
        while not self.budget.spent:
            progress = self.reduce_lines()
            progress = self.reduce_blocks() or progress
            progress = self.reduce_tokens() or progress
            if not progress:
                break
        return self.best


def reduce_text(
    source: str,
    interesting: Callable[[str], bool],
    max_tests: int = 5000,
    seconds: float | None = None,
    on_progress: Callable[[str, int], None] | None = None,
    valid: Callable[[str], bool] | None = None,
) -> Reduction:
    """The smallest text these passes find that is still ``interesting`` (``source`` must be).

    ``valid``, when given, is a cheap check run before the test (a parser,
    say): candidates it refuses cost no test.
    """
    started = time.monotonic()
    budget = Budget(max_tests, seconds, on_progress)
    text = _Reducer(source, interesting, budget, valid).run()
    return Reduction(text, len(source), budget.used, time.monotonic() - started, "fuzzweb-textreduce")


def main(argv: list[str] | None = None) -> int:
    return file_reducer_main(argv, "Reduce a text file while a test command keeps exiting 0.", reduce_text)


if __name__ == "__main__":
    raise SystemExit(main())
