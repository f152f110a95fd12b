"""The shape of a reduced difference: a cause key where no optimisation pipeline can be bisected.

An interpreter (CPython, PyPy, a Cython build) has no ``-opt-bisect-limit``
and no ``-f`` flags to switch off, so its wrong-code bugs cannot be told
apart by the pass that breaks them. What tells them apart is what the
reduced program still needs: once a reducer has taken away everything the
difference does not depend on, two reports of one bug keep the same
operations (``-7 // 2`` and ``n // -3`` both keep a floor division of a
negative number), and two bugs keep different ones. That is how
maintainers read a fuzzer's reduced programs, and what fuzz-d's authors
did by hand to sort 35 findings into 18 causes.

The shape is the set of operations the reduced program performs (operators,
the built-ins and methods it calls, the statements and expressions that
carry behaviour) with every name, value and position left out, plus how
the misbehaving run differed (died of a signal, or ran otherwise to an end:
other output or another exit status, which one reduction prints and
another turns into an exception). A program that keeps more than
MAX_FEATURES operations was not reduced far enough, and has no shape.
Plumbing is left out: how the difference is shown (``print``) and how the
data is made (names, assignments, literals, displays, comprehensions,
``range``).

A C program's wrong code whose compiler names no flag or pass (no gcc or
clang, or a bug below every flag and pass of the level) is keyed the same
way, by what its reduced program keeps (engines.differential.cfeatures).
Pure of Django.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Iterator

from engines.differential import cfeatures
from engines.reduce import pysemantic

# Nodes that carry behaviour an implementation can get wrong; everything else (names, loads,
# literals of ubiquitous types, expression statements, assignments) is how a program spells it.
_CONSTRUCTS = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.Return,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.For,
    ast.While,
    ast.If,
    ast.IfExp,
    ast.With,
    ast.Try,
    ast.Raise,
    ast.Assert,
    ast.Delete,
    ast.Global,
    ast.Nonlocal,
    ast.Break,
    ast.Continue,
    ast.Slice,
    ast.Starred,
    ast.JoinedStr,
    ast.NamedExpr,
    ast.Match,
)
# Literal types that are rarer than int and str, and that a bug may be about (float formatting, bytes).
_TELLING_LITERALS = (float, complex, bytes)
# How the program shows its result (the reduced difference always keeps it) and how it makes the data
# the operation works on (a list display, a comprehension, range or list()): neither tells which
# operation went wrong, and two reductions of one bug keep different ones ([0, 1, 2, 3] or range(4)).
_PLUMBING_CALLS = frozenset({"print", "repr", "range", "list", "tuple", "set", "dict", "frozenset"})
# Programs read as C (engines.differential.cfeatures) rather than Python.
C_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")
# More operations than this: the program was not reduced far enough to say what the bug needs.
MAX_FEATURES = 16


def python_features(program: str) -> frozenset[str] | None:
    """The operations ``program`` performs, or None when it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    # Everything the program binds (functions, classes, variables, parameters): calling one of those is
    # calling the program's own code, named as the program pleases, never an operation of the language.
    defined = {
        node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    defined |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    defined |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    features: set[str] = set()
    plumbing: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp | ast.AugAssign | ast.UnaryOp | ast.BoolOp):
            features.add(type(node.op).__name__)
        elif isinstance(node, ast.Compare):
            features.update(type(op).__name__ for op in node.ops)
        elif isinstance(node, ast.Subscript):
            features.add("Subscript")
        elif isinstance(node, ast.Call):
            features.update(_called(node, defined))
            function = node.func
            if isinstance(function, ast.Name) and function.id in _PLUMBING_CALLS - {"print"} - defined:
                plumbing.add(f"call:{function.id}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, _TELLING_LITERALS):
            features.add(f"literal:{type(node.value).__name__}")
        if isinstance(node, _CONSTRUCTS):
            features.add(type(node).__name__)
    # Where nothing else is left, the plumbing is what went wrong (range with a negative step, list()).
    return frozenset(features or plumbing)


def _called(call: ast.Call, defined: set[str]) -> set[str]:
    function = call.func
    if isinstance(function, ast.Name):
        # A function of the program's own is a construct (FunctionDef, counted there), not an operation.
        if function.id in defined or function.id in _PLUMBING_CALLS:
            return set()
        return {f"call:{function.id}"}
    if isinstance(function, ast.Attribute):
        return {f"method:{function.attr}"}
    return set()  # calling what an expression returned (f(0)(1)): the function called is counted where defined


# Tests the canonical form may spend: one per operation it could print alone, a few rounds.
CANONICAL_TESTS = 40


def canonical(program: str, interesting: Callable[[str], bool], max_tests: int = CANONICAL_TESTS) -> str:
    """``program`` showing its difference with the fewest operations: the value that differs, printed.

    A reducer keeps the smallest text, and the smallest text often shows a
    wrong value through whatever the generator routed it into: an index
    (``'é'[-1 % 5]`` raises), a loop's count, a ``sum`` of strings. Those are
    how the difference shows, not what is wrong, and two reports of one bug
    show it differently. So each operation the program computes from names
    the statements before bind is tried printed alone, in place of its
    top-level statement and everything after (``print(-1 % 5)``), and kept
    when the program still differs and performs strictly fewer operations.
    """
    features = python_features(program)
    tests = 0
    while features is not None and tests < max_tests:
        for candidate in _printed_alone(program):
            found = python_features(candidate)
            if found is None or not found < features:
                continue
            tests += 1
            if interesting(candidate):
                program, features = candidate, found
                break
            if tests >= max_tests:
                return program
        else:
            return program
    return program


def c_canonical(program: str, interesting: Callable[[str], bool], max_tests: int = CANONICAL_TESTS) -> str:
    """A reduced C ``program`` without the lines whose operations its difference does not need.

    A reduction cut short by its budget (C-Vise under load) keeps whole
    statements the bug does not need: a ``printf`` of ``a * 5`` beside the
    ``a << 3`` that goes wrong. Its shape then performs both operations,
    and covers another bug's bucket as well as its own (``covering`` takes
    the finding for the ``*`` bug's). So each operation is tried away with
    every line that performs it (two leftover ``* 5`` lines go together:
    either alone leaves the operation), then each line, last first, when
    that leaves the program performing strictly fewer operations; each is
    kept away when the program still differs. One test per operation and
    per line that carries an operation of its own, whatever the machine's load.
    """
    features = cfeatures.c_features(program)
    if features is None:
        return program
    lines = program.splitlines(keepends=True)
    tests = 0
    refused: set[str] = set()  # a line alone may be what an operation's lines were: tested once

    def take_away(rest: list[str]) -> None:
        """Keep ``rest`` when it performs strictly fewer operations and still differs (one test)."""
        nonlocal lines, features, tests
        text = "".join(rest)
        found = None if text in refused else cfeatures.c_features(text)
        if found is None or not found < features:
            return
        tests += 1
        if interesting(text):
            lines, features = rest, found
        else:
            refused.add(text)

    for operation in sorted(features):
        if tests >= max_tests:
            break
        if operation in features:
            take_away([line for line in lines if not (_balanced(line) and operation in _line_features(line))])
    for index in range(len(lines) - 1, -1, -1):
        if tests >= max_tests:
            break
        if _balanced(lines[index]):  # not half a block or a call: what is left would compile
            take_away(lines[:index] + lines[index + 1 :])
    return "".join(lines)


def _line_features(line: str) -> frozenset[str]:
    """The operations one statement performs (read as a block's body: a program needs one)."""
    return cfeatures.c_features("{" + line + "}") or frozenset()


def _balanced(line: str) -> bool:
    return all(line.count(opening) == line.count(closing) for opening, closing in ("{}", "()", "[]"))


def _printed_alone(program: str) -> Iterator[str]:
    """The program up to a top-level statement, then one value that statement computes, printed."""
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for _index, _value, candidate in pysemantic.printed_alone(tree, _computed):
        try:
            yield ast.unparse(candidate)
        except (ValueError, RecursionError):
            continue


def _computed(statement: ast.stmt) -> Iterator[ast.expr]:
    """The operations a statement computes that bind no name of their own (a comprehension's, a lambda's)."""
    for node in ast.walk(statement):
        if isinstance(node, _COMPUTED) and not pysemantic.binds_names(node):
            yield node


# What a program computes and could print: operations and calls, not names or literals.
_COMPUTED = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Subscript, ast.IfExp)


def how_it_differed(expected_status: int | None, status: int | None, signal: str = "") -> str:
    """What the misbehaving run did otherwise: died of a signal, or ran to an end of its own.

    Another exit status counts as other output: one wrong value is printed by one reduction and
    raises an IndexError in another (used as an index), and both are the same bug.
    """
    return f"signal {signal}" if signal else "output"


def features_of(program: str, suffix: str = ".py") -> frozenset[str] | None:
    """The operations of a Python program, or of a C one (engines.differential.cfeatures) by its suffix."""
    if suffix in C_SUFFIXES:
        return cfeatures.c_features(program)
    return python_features(program)


def shape_key(program: str, difference: str, suffix: str = ".py") -> str:
    """The cause key of a reduced difference: its operations and how the run differed ("" if none)."""
    features = features_of(program, suffix)
    if features is None or len(features) > MAX_FEATURES:
        return ""
    return f"{difference}: {' '.join(sorted(features)) or 'no operation'}"


def answer(
    program: str, expected_status: int | None, status: int | None, signal: str = "", suffix: str = ".py"
) -> dict:
    """A culprit answer (as engines.differential.culprit stores one) naming the shape of a reduced program."""
    difference = how_it_differed(expected_status, status, signal)
    shape = shape_key(program, difference, suffix)
    if not shape:
        why = "the reduced program does not parse, or keeps too many operations to tell what the bug needs"
        return {"method": "none", "name": why, "position": None, "detail": "", "tests": 0}
    return {
        "method": "shape",
        "name": shape,
        "position": None,
        "detail": f"the operations the reduced program of {len(program)} characters keeps",
        "tests": 0,
    }


def _parts(key: str) -> dict[tuple[str, str], frozenset[str]] | None:
    """A culprit key's parts that can cover one another, or None if any part cannot.

    A shape: (backend, how it differed) -> its operations. gcc's flags any one of which suffices
    (engines.differential.culprit, ``-fa or -fb``, or a single flag): (family, "flags") -> the flags.
    Flags that only removed together make the program right are one cause, never part of another.
    """
    parts = {}
    for part in key.split(" | "):
        backend, method, rest = (part.split(":", 2) + ["", ""])[:3]
        if method == "flags" and rest and (" " not in rest or " or " in rest):
            parts[(backend, "flags")] = frozenset(rest.split(" or "))
            continue
        if method != "shape" or ": " not in rest:
            return None
        how, operations = rest.split(": ", 1)
        parts[(backend, how)] = frozenset(operations.split()) - {"no", "operation"}
    return parts


def covering(key: str, existing: list[str]) -> str | None:
    """The existing shape key whose operations every part of ``key`` performs too, the most specific one.

    The same holds of gcc's flags any one of which makes the program right:
    one bug's programs are all made right by removing the flag of the pass
    it is in, and each also by the flags of what exposes it there.

    A reduction stopped by its budget keeps operations the bug does not need
    (a ``sum`` the program fed the value through), so one bug's findings
    differ in their leftovers but all keep its core. A finding whose reduced
    program performs every operation of a bucket's shape, for the same
    backends misbehaving the same way, is taken for that bucket's bug: the
    bucket with the largest such shape, so that a narrower bug's bucket wins
    over a broader one. Failing that, the narrowest bucket whose shape
    contains this finding's (its first finding's reduction kept leftovers
    this one did not). None when no shape contains the other.
    """
    mine = _parts(key)
    if not mine:
        return None
    best, size = None, -1
    wider, wider_size = None, None
    for other in sorted(existing):
        theirs = _parts(other)
        if theirs is None or theirs.keys() != mine.keys():
            continue
        total = sum(len(operations) for operations in theirs.values())
        if all(theirs[part] <= mine[part] for part in mine):
            if total > size:
                best, size = other, total
        elif all(mine[part] and mine[part] < theirs[part] for part in mine) and (
            wider_size is None or total < wider_size
        ):
            wider, wider_size = other, total
    # Else the reverse: this finding's reduction got further than the bucket's first one did, and its
    # operations are the core of that bucket's (the narrowest such bucket, when several).
    return best or wider
