"""The shape of a reduced difference: one key for two reductions of one bug, two keys for two bugs."""

from __future__ import annotations

import subprocess
import sys

from engines.differential import culprit, shape
from tests.conftest import BASE_DIR

PLANTED = BASE_DIR / "tests" / "data" / "planted" / "multi_python"


def test_two_reductions_of_one_bug_share_a_shape_and_names_values_and_plumbing_do_not_count():
    first = shape.shape_key("print(-7 // 2)\n", "output")
    second = shape.shape_key("a = [3, 1]\nb = 5\nprint(b // -a[1], list(range(3)))\n", "output")
    assert first == "output: FloorDiv USub"
    assert second == "output: FloorDiv Subscript USub"  # the index it kept is an operation too
    assert shape.shape_key("x = 9\nprint(x // -2)\n", "output") == first


def test_plumbing_is_the_shape_where_nothing_else_is_left():
    # A bug in range or list() itself: those calls are all the reduced difference keeps.
    assert shape.shape_key("print(list(range(2, 9, 3)))\n", "output") == "output: call:list call:range"
    assert shape.shape_key("print(range(3))\n", "output") == "output: call:range"
    # The program's own list() is its own code, and print is how any difference shows.
    assert shape.shape_key("def list(x):\n    return x\nprint(list(1))\n", "output") == "output: FunctionDef Return"
    assert shape.shape_key("print(1)\n", "output") == "output: no operation"


def test_two_bugs_at_the_same_backend_have_different_shapes():
    floor = shape.shape_key("print(-7 // 2)\n", "output")
    modulo = shape.shape_key("print(-7 % 2)\n", "output")
    join = shape.shape_key("print('-'.join(['a', 'b', 'c']))\n", "output")
    assert len({floor, modulo, join}) == 3
    assert "method:join" in join and "Mod" in modulo


def test_how_the_run_differed_is_part_of_the_shape():
    program = "def f(b):\n    def g():\n        return b\n    return g\nf(0)()\n"
    aborted = shape.shape_key(program, shape.how_it_differed(0, None, "SIGABRT"))
    printed = shape.shape_key(program, shape.how_it_differed(0, 0))
    assert aborted.startswith("signal SIGABRT: ") and printed.startswith("output: ")
    assert shape.how_it_differed(0, 1) == "output"  # a wrong value printed, or used as an index: one bug
    # The program's own functions are constructs, not operations named after them.
    assert "call:f" not in aborted and "FunctionDef" in aborted


def test_an_unparsable_program_has_no_shape_and_names_no_cause():
    answer = shape.answer("def (:\n", 0, 0)
    assert answer["method"] == "none"
    assert culprit.cause_key("planted", answer) == ""
    found = shape.answer("print(-1 // 2)\n", 0, 0)
    assert culprit.cause_key("planted", found) == "planted:shape:output: FloorDiv USub"


def test_the_planted_interpreter_runs_one_bug_at_a_time(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("print(-7 // 2, -7 % 2, '-'.join('abc'))\n")

    def run(*bugs: str) -> str:
        return subprocess.run(
            [sys.executable, str(PLANTED), *bugs, str(program)], capture_output=True, text=True, check=True
        ).stdout

    assert run("--bugs=mod") == "-4 -1 a-b-c\n"  # C's remainder
    assert run("--bugs=floordiv,join") == "-3 1 a-b\n"
    assert subprocess.run([sys.executable, str(program)], capture_output=True, text=True).stdout == "-4 1 a-b-c\n"


def test_names_the_program_binds_are_not_operations_and_an_unreduced_program_has_no_shape():
    with_f = shape.shape_key("f = lambda a: a // -2\nprint(f(7))\n", "output")
    with_g = shape.shape_key("g = lambda b: b // -2\nprint(g(7))\n", "output")
    assert with_f == with_g == "output: FloorDiv Lambda USub"
    # A generated program nobody reduced keeps dozens of operations: no shape, no culprit, no move.
    import random

    from engines.differential import pygen

    program = pygen.generate(random.Random(1)).text
    assert len(shape.python_features(program)) > shape.MAX_FEATURES
    assert shape.shape_key(program, "output") == ""
    assert shape.answer(program, 0, 0)["method"] == "none"
    assert shape.python_features("x = " + "-" * 200_000 + "1\n") is None  # too deep for the parser: no shape


def test_a_shape_with_leftovers_joins_the_most_specific_bucketed_shape_it_contains():
    buckets = ["p:shape:output: USub", "p:shape:output: FloorDiv USub", "p:shape:output: Mod USub"]
    # A reduction the budget stopped kept a sum the value went through: still the floor division's bug.
    assert shape.covering("p:shape:output: FloorDiv USub call:sum", buckets) == "p:shape:output: FloorDiv USub"
    assert shape.covering("p:shape:output: Pow", buckets) is None  # no shape holds the other: a new bucket
    # A reduction that got further than the bucket's first one: its core joins the narrowest bucket holding it.
    wider = ["p:shape:output: FloorDiv USub call:sum", "p:shape:output: FloorDiv Subscript USub call:sum"]
    assert shape.covering("p:shape:output: FloorDiv USub", wider) == wider[0]
    assert shape.covering("p:shape:output: no operation", wider) is None  # nothing is the core of anything
    assert shape.covering("p:shape:signal SIGABRT: FloorDiv USub", buckets) is None  # it died: another bug
    assert shape.covering("q:shape:output: FloorDiv USub", buckets) is None  # another backend misbehaved
    # Every backend's part must contain the bucket's; keys that are no shape never join.
    two = "p:shape:output: Mod USub | q:shape:output: Mod USub"
    assert shape.covering("p:shape:output: Mod USub Subscript | q:shape:output: Mod USub", [two]) == two
    assert shape.covering("p:shape:output: Mod USub Subscript | q:shape:output: Mod", [two]) is None
    assert shape.covering("gcc:flags:-ftree-vrp", buckets) is None


def test_the_canonical_form_prints_the_value_that_differs_with_fewer_operations():
    # A stand-in for an interpreter whose -1 % k is wrong: a program differs while it computes one.
    tried: list[str] = []

    def differs(program: str) -> bool:
        tried.append(program)
        return "-1 % " in program

    routed = "x = 3\n'é'[-1 % 5]\n"
    assert shape.canonical(routed, differs) == "x = 3\nprint(-1 % 5)"
    assert shape.shape_key("print(-1 % 5)", "output") == "output: Mod USub"
    # Names bound further on or by the expression itself are never printed alone, and a program that
    # already shows its difference with the fewest operations costs no test.
    tried.clear()
    assert shape.canonical("print({a % 5 for a in [-1]})\n", differs) == "print({a % 5 for a in [-1]})\n"
    assert all("a % 5" not in candidate or "for a" in candidate for candidate in tried)
    assert shape.canonical("print(-1 % 3)\n", lambda program: False) == "print(-1 % 3)\n"
    # A budget of tests, whatever the program.
    tried.clear()
    shape.canonical("'é'[-1 % 5]\n", lambda program: tried.append(program) and False, max_tests=1)
    assert len(tried) == 1


def test_a_c_reduction_cut_short_loses_the_statements_its_difference_does_not_need():
    # What C-Vise kept of a `<< 3` finding of tests/data/planted/multi_level under load (the CI run that
    # put it in the `*` bug's bucket): the `a2 * 5` line is a leftover, and with it the shape covered `*`.
    kept = (
        "#include <stdio.h>\nint main(void) {\n    volatile int a0 = 665;\n"
        '    printf("%d\\n", a0 << 3);\n    volatile int a2 = 405;\n    printf("%d\\n", a2 * 5);\n'
        "    return 0;\n}\n"
    )
    tried: list[str] = []

    def differs(program: str) -> bool:  # the planted compiler: wrong while `<< 3` is compiled
        tried.append(program)
        return "<< 3" in program

    settled = shape.c_canonical(kept, differs)
    assert shape.shape_key(settled, "output", ".c") == "output: <<"
    assert "a2 * 5" not in settled and "a0 << 3" in settled and settled.rstrip().endswith("}")
    # One test per line that takes an operation away: the `*` line (kept away) and the `<<` line (needed).
    assert len(tried) == 2
    # A program every line of which the difference needs is returned as it was; a budget of tests holds.
    assert shape.c_canonical(settled, differs) == settled
    tried.clear()
    assert shape.c_canonical(kept, lambda program: tried.append(program) and False, max_tests=1) == kept
    assert len(tried) == 1

    # A later CI run's: two leftover `* 5` lines, neither of which alone takes the `*` away.
    twice = (
        '#include <stdio.h>\nint main(void) {\n    volatile int a0 = 417;\n    printf("%d\\n", a0 * 5);\n'
        '    volatile int a1 = 173;\n    printf("%d\\n", a1 * 5);\n    volatile int a2 = 528;\n'
        '    printf("%d\\n", a2 << 3);\n    return 0;\n}\n'
    )
    tried.clear()
    settled = shape.c_canonical(twice, differs)
    assert shape.shape_key(settled, "output", ".c") == "output: <<"
    assert "* 5" not in settled and "a2 << 3" in settled and settled.rstrip().endswith("}")
    assert len(tried) == 2  # both `*` lines at once (kept away), then the `<<` line (needed)
