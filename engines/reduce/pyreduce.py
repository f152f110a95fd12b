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

import argparse
import ast
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from engines.reduce.ddmin import Budget, ddmin

_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.AsyncFor, ast.AsyncWith)
_SMALL_LITERALS = (0, 1, "", None)


@dataclass(frozen=True)
class Reduction:
    text: str
    original_size: int
    tests: int
    seconds: float

    @property
    def ratio(self) -> float:
        """Size after over size before (0.1: ten times smaller)."""
        return len(self.text) / self.original_size if self.original_size else 1.0


class _Reducer:
    def __init__(self, source: str, interesting: Callable[[str], bool], budget: Budget):
        self.best = source
        self.tree = ast.parse(source)
        self.interesting = interesting
        self.budget = budget
        self.seen: dict[str, bool] = {source: True}

    # --- testing candidates --------------------------------------------------
    def test(self, text: str) -> bool:
        """Is ``text`` valid, smaller and interesting? Cached; only valid candidates cost a test."""
        if text in self.seen:
            return self.seen[text]
        try:
            with warnings.catch_warnings():
                # Candidates are often odd ("0[1]"): compiling them is a validity check, not a review.
                warnings.simplefilter("ignore", SyntaxWarning)
                compile(text, "<candidate>", "exec")
        except (SyntaxError, ValueError):
            self.seen[text] = False
            return False
        if len(text) >= len(self.best) or self.budget.spent:
            return False
        self.budget.charge()
        verdict = bool(self.interesting(text))
        self.seen[text] = verdict
        if verdict:
            self.best = text
        return verdict

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
        options += [ast.Constant(value) for value in _SMALL_LITERALS]
        for option in options:
            self._put(parent, field, index, option)
            if self.test_tree():
                return True
            self._put(parent, field, index, child)
        return False

    def reduce_nodes(self) -> bool:
        progress = False
        changed = True
        while changed and not self.budget.spent:
            changed = False
            for parent, field, index, child in list(self._slots()):
                if self.budget.spent:
                    break
                if self._replace_with_body(parent, field, index, child) or self._simplify_expression(
                    parent, field, index, child
                ):
                    changed = progress = True
                    break  # the tree changed under the slot list: collect again
        return progress

    def reduce_lines(self) -> bool:
        lines = self.best.splitlines(keepends=True)
        kept = ddmin(lines, lambda subset: self.test("".join(subset)), self.budget)
        if "".join(kept) == self.best and len(kept) < len(lines):
            self.tree = ast.parse(self.best)
            return True
        return False

    def run(self) -> str:
        while not self.budget.spent:
            progress = self.reduce_lists()
            progress = self.reduce_nodes() or progress
            progress = self.reduce_lines() or progress
            if not progress:
                break
            self.tree = ast.parse(self.best)
        return self.best


def reduce_python(source: str, interesting: Callable[[str], bool], max_tests: int = 5000) -> Reduction:
    """The smallest program this reducer finds that is still ``interesting`` (``source`` must be)."""
    started = time.monotonic()
    budget = Budget(max_tests)
    reducer = _Reducer(source, interesting, budget)
    text = reducer.run()
    return Reduction(text, len(source), budget.used, time.monotonic() - started)


def _command_test(command: list[str]) -> Callable[[str], bool]:
    """An interestingness test as C-Reduce takes it: a command run on the candidate, exit status 0 = interesting."""

    def interesting(text: str) -> bool:
        with tempfile.TemporaryDirectory(prefix="fuzzweb-reduce-") as scratch:
            path = Path(scratch) / "candidate.py"
            path.write_text(text)
            try:
                done = subprocess.run([*command, str(path)], cwd=scratch, capture_output=True, timeout=60)  # noqa: S603
            except subprocess.TimeoutExpired:
                return False
            return done.returncode == 0

    return interesting


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Reduce a Python program while a test command keeps exiting 0.")
    parser.add_argument("program", type=Path)
    parser.add_argument("command", nargs="+", help="run as COMMAND... CANDIDATE_PATH; exit 0 means interesting")
    parser.add_argument("--max-tests", type=int, default=5000)
    args = parser.parse_args(argv)
    source = args.program.read_text()
    test = _command_test(args.command)
    if not test(source):
        print("the original program is not interesting to this test", file=sys.stderr)
        return 2
    result = reduce_python(source, test, args.max_tests)
    sys.stdout.write(result.text)
    print(
        f"{result.original_size} -> {len(result.text)} characters in {result.tests} tests, {result.seconds:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
