"""Hierarchical delta debugging over a tree-sitter syntax tree: Kotlin's reducer.

Misherghi and Su's HDD on the program's own syntax tree, for languages with
no reducer of their own but a tree-sitter grammar (Kotlin, through
``tree-sitter-kotlin``):

1. level by level from the root, each node's named children (a file's
   declarations, a block's statements, a call's arguments, a class's
   members) are cut down with ddmin; a removed run of children takes the
   separators after it (or, at the end, before it) along, so a dropped
   argument leaves no dangling comma;
2. each node, outermost first, is replaced by one of its named children or
   grandchildren (``a / (b - 2)`` by ``b - 2``, an ``if`` by its branch);
3. the line, block and token passes of engines.reduce.textreduce finish.

Every candidate is parsed first: one with a syntax error never costs an
interestingness test (the test compiles and runs it, seconds for kotlinc).

    python -m engines.reduce.treereduce program.kt -- ./interesting.sh
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from functools import cache

from engines.reduce import textreduce
from engines.reduce.ddmin import Budget, Candidates, ddmin
from engines.reduce.result import Reduction, file_reducer_main

# Replacements tried per node: its named children and grandchildren, the smallest first.
MAX_REPLACEMENTS = 12


@cache
def _kotlin_parser():
    import tree_sitter
    import tree_sitter_kotlin

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_kotlin.language()))


def kotlin_parses(text: str) -> bool:
    """Does ``text`` parse as Kotlin without a syntax error (tree-sitter's grammar)?"""
    return not _kotlin_parser().parse(text.encode("utf-8", "surrogateescape")).root_node.has_error


class _TreeReducer:
    def __init__(self, source: str, interesting: Callable[[str], bool], budget: Budget, parser):
        self.parser = parser
        self.candidates = Candidates(source, interesting, budget, kotlin_parses)
        self.budget = budget

    @property
    def best(self) -> str:
        return self.candidates.best

    def source(self) -> bytes:
        # tree-sitter's positions are byte offsets: edits are made on the bytes, tests on the text.
        return self.best.encode("utf-8", "surrogateescape")

    def tree(self):
        return self.parser.parse(self.source())

    def test(self, candidate: bytes) -> bool:
        return self.candidates.test(candidate.decode("utf-8", "surrogateescape"))

    # --- pass 1: named children, level by level --------------------------------------------
    def reduce_children(self) -> bool:
        progress, depth = False, 0
        while not self.budget.spent:
            count = len(_at_depth(self.tree().root_node, depth))
            if count == 0:
                break
            for index in range(count):
                # The tree changes with every success: find the index-th node of this level again.
                nodes = _at_depth(self.tree().root_node, depth)
                if index >= len(nodes) or self.budget.spent:
                    break
                children = nodes[index].named_children
                if not children:
                    continue
                before = self.best
                source = self.source()
                ddmin(
                    list(range(len(children))),
                    lambda kept, children=children, source=source: self.test(_without(source, children, kept)),
                    self.budget,
                )
                progress = progress or self.best != before
            depth += 1
        return progress

    # --- pass 2: a node by one of its descendants ------------------------------------------
    def replace_nodes(self) -> bool:
        progress, index = False, 0
        while not self.budget.spent:
            nodes = list(_preorder(self.tree().root_node))
            if index >= len(nodes):
                break
            node = nodes[index]
            index += 1
            source = self.source()
            for inner in _replacements(node):
                candidate = source[: node.start_byte] + inner.text + source[node.end_byte :]
                if self.test(candidate):
                    progress = True
                    break
        return progress

    def run(self) -> str:
        while not self.budget.spent:
            progress = self.reduce_children()
            progress = self.replace_nodes() or progress
            if not progress:
                break
        return self.best


def _at_depth(root, depth: int) -> list:
    level = [root]
    for _ in range(depth):
        level = [child for node in level for child in node.named_children]
    return level


def _preorder(root) -> Iterator:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.named_children))


def _replacements(node) -> list:
    inner = list(node.named_children)
    inner += [grandchild for child in node.named_children for grandchild in child.named_children]
    inner = [n for n in inner if n.end_byte - n.start_byte < node.end_byte - node.start_byte]
    return sorted(inner, key=lambda n: n.end_byte - n.start_byte)[:MAX_REPLACEMENTS]


def _without(source: bytes, children: list, kept: list[int]) -> bytes:
    """``source`` without the children not in ``kept``; each removed run takes its separators along."""
    keep = set(kept)
    cuts, index = [], 0
    while index < len(children):
        if index in keep:
            index += 1
            continue
        first = index
        while index < len(children) and index not in keep:
            index += 1
        last = index - 1
        if index < len(children):  # up to the next kept child: the separators after the run go
            cuts.append((children[first].start_byte, children[index].start_byte))
        elif first > 0:  # the run ends the list: the separators before it go
            cuts.append((children[first - 1].end_byte, children[last].end_byte))
        else:
            cuts.append((children[first].start_byte, children[last].end_byte))
    out, position = [], 0
    for start, end in cuts:
        out.append(source[position:start])
        position = end
    out.append(source[position:])
    return b"".join(out)


def reduce_kotlin(
    source: str,
    interesting: Callable[[str], bool],
    max_tests: int = 5000,
    seconds: float | None = None,
    on_progress: Callable[[str, int], None] | None = None,
) -> Reduction:
    """The smallest Kotlin program these passes find that is still ``interesting`` (``source`` must be)."""
    started = time.monotonic()
    budget = Budget(max_tests, seconds, on_progress)
    if not kotlin_parses(source):
        # A program the grammar does not know (newer syntax, say): the text passes alone.
        return textreduce.reduce_text(source, interesting, max_tests, seconds, on_progress)
    text = _TreeReducer(source, interesting, budget, _kotlin_parser()).run()
    left = None if seconds is None else max(0.0, seconds - (time.monotonic() - started))
    finished = textreduce.reduce_text(
        text, interesting, max(0, max_tests - budget.used), left, on_progress, valid=kotlin_parses
    )
    return Reduction(
        finished.text, len(source), budget.used + finished.tests, time.monotonic() - started, "fuzzweb-treereduce"
    )


def main(argv: list[str] | None = None) -> int:
    return file_reducer_main(argv, "Reduce a Kotlin program while a test command keeps exiting 0.", reduce_kotlin)


if __name__ == "__main__":
    raise SystemExit(main())
