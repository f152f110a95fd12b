"""A hierarchical reducer for Python programs: over the syntax tree first, then over lines.

Hierarchical delta debugging (Misherghi and Su) on Python's own syntax tree:
every list in the tree (a block's statements, a call's arguments, a
function's parameters, a list display's items) is cut down with ddmin,
outermost lists first, so whole functions go before the statements inside
them. Then compound statements are replaced by their bodies, and
expressions by one of their own subexpressions or by a small literal. Each
candidate is unparsed and compiled before it is tested: an invalid program
never costs an interestingness test. A last pass runs ddmin over lines.
The passes repeat until none makes progress or the budget is spent.

    python -m engines.reduce.pyreduce program.py -- ./interesting.sh

The test command gets the candidate's path as its last argument and exits 0
when the candidate is still interesting.
"""

from __future__ import annotations

import ast
import re
import time
import warnings
from collections.abc import Callable, Iterator

from engines.reduce import pysemantic
from engines.reduce.ddmin import Budget, Candidates, ddmin
from engines.reduce.result import Reduction, file_reducer_main
from engines.reduce.textreduce import tokens

_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)
# What an expression is tried as: -1 too, since a negative number is what many wrong-code bugs need
# (floor division and modulo of mixed signs), and a computed -1 otherwise keeps its whole computation.
_SMALL_LITERALS = (0, 1, -1, "", None)


def _literal(value) -> ast.expr:
    """``-1`` as Python writes it (a negation of 1), so that ``-1 ** 2`` cannot come of it."""
    if isinstance(value, int) and value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def _compiles(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            # Candidates are often odd ("0[1]"): compiling them is a validity check, not a review.
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(text, "<candidate>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


class _Reducer:
    def __init__(self, source: str, interesting: Callable[[str], bool], budget: Budget):
        self.candidates = Candidates(source, interesting, budget, _compiles)
        self.tree = ast.parse(source)
        self.budget = budget
        # Keys of semantic changes refused once: proposed again in a changed program they are refused again
        # nearly always, and retrying each after every success made the passes quadratic in tests.
        self.refused: set[str] = set()

    @property
    def best(self) -> str:
        return self.candidates.best

    # --- testing candidates --------------------------------------------------
    def test(self, text: str) -> bool:
        """Is ``text`` valid, smaller and interesting? Cached; only valid candidates cost a test."""
        return self.candidates.test(text)

    def test_tree(self) -> bool:
        try:
            text = self._unparse()
        except (AttributeError, TypeError, ValueError):
            return False
        return self.test(text)

    # --- passes ------------------------------------------------------------------
    def lists(self) -> Iterator[tuple[ast.AST, str]]:
        """Every (node, field) holding a list of nodes, outermost first."""
        queue = [self.tree]
        while queue:
            node = queue.pop(0)
            for field, value in ast.iter_fields(node):
                nodes = isinstance(value, list) and value and all(isinstance(v, ast.AST) for v in value)
                # Dict keys and values, and a comparison's operators and operands, only go in pairs.
                if nodes and not isinstance(node, ast.Dict) and field not in ("ops", "comparators", "targets"):
                    yield node, field
            queue.extend(ast.iter_child_nodes(node))

    def reduce_lists(self) -> bool:
        progress = False
        for node, field in list(self.lists()):
            original = getattr(node, field)
            if len(original) < 1 or self.budget.spent:
                continue
            is_body = isinstance(original[0], ast.stmt)

            def keeps(subset, node=node, field=field, is_body=is_body) -> bool:
                setattr(node, field, list(subset) or ([ast.Pass()] if is_body else []))
                return self.test_tree()

            # ddmin never tries the empty list: try it first (a whole block gone).
            if keeps([]):
                progress = True
                continue
            setattr(node, field, original)
            kept = ddmin(original, keeps, self.budget)
            setattr(node, field, kept or original)
            if kept != original and self.best == self._unparse():
                progress = True
            else:
                setattr(node, field, original)
        return progress

    def _unparse(self) -> str:
        return ast.unparse(self.tree) + "\n"

    def _slots(self) -> Iterator[tuple[ast.AST, str, int | None, ast.AST]]:
        """Every (parent, field, index, child) where child is a statement or an expression, outermost first."""
        queue = [self.tree]
        while queue:
            parent = queue.pop(0)
            for field, value in ast.iter_fields(parent):
                items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
                for index, child in items:
                    if isinstance(child, ast.expr | ast.stmt):
                        yield parent, field, index, child
            queue.extend(ast.iter_child_nodes(parent))

    def _put(self, parent, field, index, value) -> None:
        if index is None:
            setattr(parent, field, value)
        else:
            getattr(parent, field)[index] = value

    def _replace_with_body(self, parent, field, index, child) -> bool:
        # A compound statement by its body (or its else branch): the block stays, the control goes.
        if index is None or not isinstance(child, _COMPOUND):
            return False
        block = getattr(parent, field)
        for inner in (child.body, getattr(child, "orelse", []), getattr(child, "finalbody", [])):
            if not inner:
                continue
            setattr(parent, field, block[:index] + inner + block[index + 1 :])
            if self.test_tree():
                return True
            setattr(parent, field, block)
        return False

    def _simplify_expression(self, parent, field, index, child) -> bool:
        if not isinstance(child, ast.expr) or isinstance(child, ast.Constant) and child.value in _SMALL_LITERALS:
            return False
        context = getattr(child, "ctx", None)
        if context is not None and not isinstance(context, ast.Load):
            return False  # an assignment target stays a target
        options = [c for c in ast.iter_child_nodes(child) if isinstance(c, ast.expr)]
        options += [_literal(value) for value in _SMALL_LITERALS]
        for option in options:
            self._put(parent, field, index, option)
            if self.test_tree():
                return True
            self._put(parent, field, index, child)
        return False

    def reduce_nodes(self) -> bool:
        progress = False
        position = 0
        while not self.budget.spent:
            slots = list(self._slots())
            if position >= len(slots):
                break
            for position in range(position, len(slots)):  # noqa: B020 - resumed where the last change was made
                if self.budget.spent:
                    break
                parent, field, index, child = slots[position]
                if self._replace_with_body(parent, field, index, child) or self._simplify_expression(
                    parent, field, index, child
                ):
                    progress = True
                    # The tree changed under the slot list: collect again, and go on from here rather than from
                    # the top, where every slot was just tried (starting over made this pass quadratic in tests).
                    break
            else:
                break
        return progress

    def reduce_semantic(self) -> bool:
        """The semantic passes (engines.reduce.pysemantic), each repeated while it makes progress."""
        progress = False
        for _name, propose in pysemantic.PASSES:
            progress = self._apply(propose) or progress
        return progress

    def _apply(self, propose) -> bool:
        progress = False
        while not self.budget.spent:
            for key, candidate in propose(self.tree):
                if self.budget.spent:
                    return progress
                if key in self.refused:
                    continue
                try:
                    text = ast.unparse(candidate) + "\n"
                except (AttributeError, TypeError, ValueError):
                    self.refused.add(key)
                    continue
                if self.test(text):
                    self.tree = ast.parse(text)
                    progress = True
                    break
                self.refused.add(key)
            else:
                return progress
        return progress

    def rename(self) -> bool:
        """Short names, last: it saves a little, and makes the paste readable."""
        return self._apply(pysemantic.rename)

    def reduce_lines(self) -> bool:
        lines = self.best.splitlines(keepends=True)
        kept = ddmin(lines, lambda subset: self.test("".join(subset)), self.budget)
        if "".join(kept) == self.best and len(kept) < len(lines):
            self.tree = ast.parse(self.best)
            return True
        return False

    def reduce_tokens(self) -> bool:
        """ddmin over tokens, for what the tree cannot express: a name's use without its binding, say."""
        before = self.best
        ddmin(tokens(self.best), lambda subset: self.test("".join(subset)), self.budget)
        return self.best != before

    def compact(self) -> bool:
        """The same program with no space the tokenizer does not need: unparsing writes ``a = b + 1``."""
        candidate = compact_spacing(self.best)
        return candidate != self.best and self.test(candidate)

    def run(self) -> str:
        while not self.budget.spent:
            progress = self.reduce_lists()
            progress = self.reduce_semantic() or progress
            progress = self.reduce_nodes() or progress
            progress = self.reduce_lines() or progress
            if not progress:
                break
            self.tree = ast.parse(self.best)
        self.tree = ast.parse(self.best)
        self.rename()
        # Text-level passes last: their output need not unparse to itself, so the tree passes end here.
        while not self.budget.spent and (self.reduce_tokens() | self.compact()):
            pass
        return self.best


_OPTIONAL_SPACE = re.compile(r"(?<=[^\w\s])[ \t]+|[ \t]+(?=[^\w\s])")


def compact_spacing(source: str) -> str:
    """``source`` without spaces beside punctuation, indentation kept; lines holding strings are left alone."""
    lines = []
    for line in source.splitlines(keepends=True):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        lines.append(line if "'" in body or '"' in body or "#" in body else indent + _OPTIONAL_SPACE.sub("", body))
    return "".join(lines)


def reduce_python(
    source: str,
    interesting: Callable[[str], bool],
    max_tests: int = 5000,
    seconds: float | None = None,
    on_progress: Callable[[str, int], None] | None = None,
) -> Reduction:
    """The smallest program this reducer finds that is still ``interesting`` (``source`` must be).

    Stops after ``max_tests`` tests or ``seconds``; ``on_progress(text, tests)``
    hears of each smaller interesting program as it is found.
    """
    started = time.monotonic()
    budget = Budget(max_tests, seconds, on_progress)
    reducer = _Reducer(source, interesting, budget)
    text = reducer.run()
    return Reduction(text, len(source), budget.used, time.monotonic() - started, "fuzzweb-pyreduce")


def main(argv: list[str] | None = None) -> int:
    return file_reducer_main(argv, "Reduce a Python program while a test command keeps exiting 0.", reduce_python)


if __name__ == "__main__":
    raise SystemExit(main())
