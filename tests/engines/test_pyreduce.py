"""The Python program reducer: syntax-tree passes, then lines; every candidate valid, the budget kept."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import random
import re
import select
import subprocess
import sys
import warnings

import pytest

from engines.differential import pygen
from engines.reduce import ddmin, pyreduce, pysemantic


def _planted(seed: int) -> str:
    """A generated program with a division by zero planted two thirds of the way down, at top level."""
    lines = pygen.generate(random.Random(seed)).text.splitlines()
    at = len(lines) * 2 // 3
    while lines[at].startswith(" ") or not lines[at].strip():
        at += 1
    lines.insert(at, "planted = 7 // (len('ab') - 2)")
    return "\n".join(lines) + "\n"


def _raises(kind: type[BaseException], calls: list[str]):
    def interesting(text: str) -> bool:
        calls.append(text)
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                exec(compile(text, "<candidate>", "exec"), {"__name__": "__main__"})  # noqa: S102 - generated test programs
        except kind:
            return True
        except Exception:
            return False
        return False

    return interesting


def test_a_planted_crash_in_a_generated_program_reduces_to_one_statement():
    for seed in (1, 2, 3):
        source = _planted(seed)
        calls: list[str] = []
        result = pyreduce.reduce_python(source, _raises(ZeroDivisionError, calls))
        # One division by zero is all that is left: no assignment, no spaces.
        assert re.fullmatch(r"\d+//?0\n?", result.text), result.text
        assert len(source) > 2000 and result.ratio < 0.01
        # Every candidate tested was a valid program; the budget counted each test.
        for text in calls:
            compile(text, "<candidate>", "exec")
        assert result.tests == len(calls) < 1000


def test_what_the_failure_needs_is_kept_and_nothing_else():
    source = (
        "import math\n"
        "def helper(a, b, c=3):\n"
        "    unused = [a, b, c]\n"
        "    for i in range(3):\n"
        "        if i == 2:\n"
        "            return {'k': a}[b]\n"
        "    return 0\n"
        "class Box:\n"
        "    size = 4\n"
        "x = helper(1, 'k')\n"
        "y = helper(2, 'missing', c=5)\n"
        "print(math.pi, x, y)\n"
    )
    calls: list[str] = []
    result = pyreduce.reduce_python(source, _raises(KeyError, calls))
    # The lookup that fails, reached through a call, and nothing the failure does not need.
    assert "Box" not in result.text and "math" not in result.text and "unused" not in result.text
    assert len(result.text) < len(source) // 3
    assert _raises(KeyError, [])(result.text)


def test_the_budget_is_a_hard_limit_and_the_result_stays_interesting():
    source = _planted(4)
    calls: list[str] = []
    result = pyreduce.reduce_python(source, _raises(ZeroDivisionError, calls), max_tests=5)
    assert result.tests == len(calls) <= 5
    assert _raises(ZeroDivisionError, [])(result.text)
    assert len(result.text) <= len(source)


def test_ddmin_finds_a_one_minimal_subset():
    budget = ddmin.Budget(1000)

    def interesting(parts) -> bool:
        budget.charge()
        return {3, 17, 31} <= set(parts)

    kept = ddmin.ddmin(list(range(40)), interesting, budget)
    assert kept == [3, 17, 31]
    assert budget.used < 200


def test_the_command_line_reducer_takes_a_test_script(tmp_path):
    program = tmp_path / "program.py"
    program.write_text(_planted(5))
    test = 'python3 "$0" 2>&1 | grep -q ZeroDivisionError'
    done = subprocess.run(
        [sys.executable, "-m", "engines.reduce.pyreduce", str(program), "--", "sh", "-c", test],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"\d+//?0\n?", done.stdout), done.stdout
    assert "characters in" in done.stderr
    refused = subprocess.run(
        [sys.executable, "-m", "engines.reduce.pyreduce", str(program), "--", "false"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2 and "not interesting" in refused.stderr


# --- semantic passes --------------------------------------------------------------------------------------------
# The planted interpreter of the wrong-output cases: CPython with ``a // b`` rounded toward zero when the signs
# differ. One worker process runs each candidate twice in CPython and once planted, under a memory limit and a
# step limit (a candidate loop may no longer end), and answers whether they print differently.
_DIFFERENTIAL_WORKER = """
import ast, contextlib, io, json, resource, sys, warnings

warnings.simplefilter("ignore")
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


class Planted(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.FloorDiv):
            return ast.Call(ast.Name("__toward_zero__", ast.Load()), [node.left, node.right], [])
        return node


def toward_zero(a, b):
    quotient = a // b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and (a < 0) != (b < 0) and quotient * b != a:
        return quotient + 1
    return quotient


class Steps(Exception):
    pass


def run(text, planted):
    tree = ast.parse(text)
    if planted:
        tree = ast.fix_missing_locations(Planted().visit(tree))
    steps = [0]

    def trace(frame, event, arg):
        steps[0] += 1
        if steps[0] > 100000:
            raise Steps
        return trace

    out = io.StringIO()
    sys.settrace(trace)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(tree, "<candidate>", "exec"), {"__name__": "__main__", "__toward_zero__": toward_zero})
    except BaseException:
        return None
    finally:
        sys.settrace(None)
    return out.getvalue()


for line in sys.stdin:
    text = json.loads(line)
    reference, planted = run(text, False), run(text, True)
    stable = reference is not None and " at 0x" not in reference and reference == run(text, False)
    print(json.dumps(stable and planted is not None and reference != planted), flush=True)
"""


class _Differential:
    """Interesting: CPython and the planted interpreter print differently (both finish, CPython prints the same
    twice, no addresses). Every text it was asked about is in ``calls``."""

    def __init__(self):
        self.calls: list[str] = []
        self.process: subprocess.Popen | None = None

    def __call__(self, text: str) -> bool:
        self.calls.append(text)
        if self.process is None:
            command = [sys.executable, "-c", _DIFFERENTIAL_WORKER]
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # noqa: S603
        self.process.stdin.write(json.dumps(text) + "\n")
        self.process.stdin.flush()
        # A loop in C (sum(range(10**20))) never reaches the step limit: such a worker is replaced.
        ready, _, _ = select.select([self.process.stdout], [], [], 20)
        answer = self.process.stdout.readline() if ready else ""
        if not answer:
            self.close()
            return False
        return json.loads(answer)

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@pytest.fixture
def differential():
    test = _Differential()
    yield test
    test.close()


def _prints(expected: str, calls: list[str], needs: str = ""):
    """Interesting: the program prints ``expected`` (and its text holds ``needs``)."""

    def interesting(text: str) -> bool:
        calls.append(text)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                exec(compile(text, "<candidate>", "exec"), {"__name__": "__main__"})  # noqa: S102 - hand-written programs
        except Exception:
            return False
        return out.getvalue() == expected and needs in text

    return interesting


def _reduced(source: str, interesting, calls: list[str]) -> str:
    """The reduced program, without its trailing newline (the token pass may take it); it and every candidate the
    test saw compile."""
    result = pyreduce.reduce_python(source, interesting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        for text in [result.text, *calls]:
            compile(text, "<candidate>", "exec")  # no invalid program ever cost a test
    assert interesting(result.text)
    return result.text.rstrip("\n")


def _proposals(propose, source: str) -> list[str]:
    """What a pass proposes for ``source``, unparsed; each proposal compiles."""
    texts = [ast.unparse(candidate) for _key, candidate in propose(ast.parse(source))]
    for text in texts:
        compile(text, "<proposal>", "exec")
    return texts


def test_a_function_called_once_is_inlined_by_its_returned_expression():
    source = "def helper(a, b):\n    return a * b + 1\nprint(helper(3, 4))\n"
    assert _proposals(pysemantic.inline_functions, source)[0] == "print(3 * 4 + 1)"
    calls: list[str] = []
    assert _reduced(source, _prints("13\n", calls), calls) == "print(13)"


def test_a_closure_is_inlined_by_its_statements_then_its_expression():
    source = (
        "def make(c):\n"
        "    def scale(k):\n"
        "        return c * k - 5\n"
        "    return scale\n"
        "result = make(3)(4)\n"
        "print(result)\n"
    )
    first = _proposals(pysemantic.inline_functions, source)[0]
    assert first == "c = 3\n\ndef scale(k):\n    return c * k - 5\nresult = scale(4)\nprint(result)"
    calls: list[str] = []
    assert _reduced(source, _prints("7\n", calls), calls) == "print(7)"


def test_a_lambda_and_a_temporary_used_once_are_inlined(differential):
    source = "half = lambda n: n // 2\nt = half(-7)\nprint(t)\n"
    assert _proposals(pysemantic.inline_functions, source)[0] == "t = -7 // 2\nprint(t)"
    assert _proposals(pysemantic.inline_variables, "a = -7\nb = 2\nt = a // b\nprint(t)\n")[-1] == (
        "a = -7\nb = 2\nprint(a // b)"
    )
    # Folding -7 // 2 would lose the difference: the test refuses it, and the division stays.
    assert _reduced(source, differential, differential.calls) == "print(-7//2)"


def test_constant_subexpressions_are_folded_without_evaluating_code():
    source = "x = (3 + 4) * len('abc')\nprint(x, 'a'.upper() + 'b')\n"
    calls: list[str] = []
    assert _reduced(source, _prints("21 Ab\n", calls), calls) == "print(21, 'Ab')"
    # Only literals, a few pure builtins and size limits: nothing huge is computed, nothing is called.
    for expression in ("2 ** 100000", "'a' * 10 ** 9", "1 << 10 ** 6", "open('x')", "len(x)", "1 // 0"):
        with pytest.raises(Exception):  # noqa: B017, PT011 - the evaluator's own refusal, whatever its class
            pysemantic.evaluate(ast.parse(expression, mode="eval").body)
    # A builtin the program rebinds is its own, not the builtin.
    assert _proposals(pysemantic.fold_constants, "def len(x):\n    return 0\nprint(len('abc'))\n") == []


def test_lists_built_by_concatenation_and_comprehension_fold_to_their_literal():
    # The generator builds lists as [0] + [0 for v in range(2)]: the difference needs the items, not the build.
    source = "print('-'.join([''] + ['' for v in range(2)]))\n"
    proposals = _proposals(pysemantic.fold_constants, source)
    assert proposals[0] == "print('--')" and "print('-'.join(['', '', '']))" in proposals
    assert pysemantic.evaluate(ast.parse("(1,) + (2,) * 2", mode="eval").body) == (1, 2, 2)
    # A generator is the list it yields to a builtin that iterates it, and to nothing else (len, str).
    assert pysemantic.evaluate(ast.parse("1 % sum(-30 for a in [0])", mode="eval").body) == -29
    for expression in ("len(0 for v in [1])", "str(0 for v in [1])"):
        with pytest.raises(Exception):  # noqa: B017, PT011 - the evaluator's own refusal, whatever its class
            pysemantic.evaluate(ast.parse(expression, mode="eval").body)
    # An item that reads the loop variable, a range too long to write out, a rebound range: no constant.
    for expression in ("[v for v in range(3)]", "[0 for v in range(10 ** 9)]", "[0] + (1,)", "[0 for v in x]"):
        with pytest.raises(Exception):  # noqa: B017, PT011 - the evaluator's own refusal, whatever its class
            pysemantic.evaluate(ast.parse(expression, mode="eval").body)
    assert _proposals(pysemantic.fold_constants, "range = len\nprint([0 for v in range('ab')])\n") == []


def test_every_call_of_a_function_is_replaced_by_a_value_and_the_stub_goes():
    source = (
        "def noisy(values):\n    for v in values:\n        v += 1\nx = noisy([1, 2])\ny = noisy([3])\nprint(x, y)\n"
    )
    proposals = _proposals(pysemantic.replace_calls, source)
    assert proposals[0] == "x = None\ny = None\nprint(x, y)"
    assert "x = [1, 2]\ny = [3]\nprint(x, y)" in proposals
    calls: list[str] = []
    assert _reduced(source, _prints("None None\n", calls), calls) == "print(None,None)"


def test_unused_definitions_and_parameters_are_dropped():
    source = "import os\ndef unused():\n    pass\nclass K:\n    pass\nx = 1\nprint(2)\n"
    assert _proposals(pysemantic.drop_unused, source)[0] == "print(2)"
    source = "def f(a, b, c=3):\n    return b * 2\nprint(f(1, 2, c=4))\n"
    assert _proposals(pysemantic.drop_parameters, source) == [
        "def f(b, c=3):\n    return b * 2\nprint(f(2, c=4))",
        "def f(a, b):\n    return b * 2\nprint(f(1, 2))",
    ]
    # A method's parameter goes with the argument of C(...).m(...); self stays.
    source = "class C:\n    def m(self, unused, k):\n        return k\nprint(C().m(1, 2))\n"
    assert _proposals(pysemantic.drop_parameters, source) == [
        "class C:\n\n    def m(self, k):\n        return k\nprint(C().m(2))"
    ]


def test_control_flow_that_decides_nothing_is_unwrapped():
    source = (
        "if 1 < 2:\n    print(1)\nelse:\n    print(2)\n"
        "for i in [5]:\n    print(i)\n"
        "try:\n    print(3)\nexcept ValueError:\n    pass\n"
    )
    proposals = _proposals(pysemantic.simplify_control, source)
    assert proposals[0].startswith("print(1)\nfor i in [5]:")
    assert "i = 5\nprint(i)" in proposals[1] and proposals[2].endswith("print(i)\nprint(3)")
    calls: list[str] = []
    assert _reduced(source, _prints("1\n5\n3\n", calls), calls) == "print(1)\nprint(5)\nprint(3)"
    # A test that decides nothing the program needs stays for what evaluating it does.
    looping = "def boom():\n    raise KeyError\nwhile boom():\n    pass\nif boom():\n    print(1)\n"
    assert _proposals(pysemantic.simplify_control, looping) == [
        "def boom():\n    raise KeyError\nboom()\nif boom():\n    print(1)",
        "def boom():\n    raise KeyError\nwhile boom():\n    pass\nboom()",
    ]


def test_a_method_called_on_a_fresh_instance_is_inlined():
    source = (
        "class K3:\n"
        "    def __init__(self, value):\n"
        "        self.a4 = value\n"
        "    def total(self, k):\n"
        "        return self.a4 * k - 7\n"
        "print(K3(2).total(5))\n"
    )
    assert _proposals(pysemantic.inline_methods, source)[0].endswith("\nprint(2 * 5 - 7)")
    calls: list[str] = []
    assert _reduced(source, _prints("3\n", calls), calls) == "print(3)"


def test_names_become_short_but_builtins_and_attributes_keep_theirs():
    source = (
        "class Holder:\n"
        "    def __init__(self, value):\n"
        "        self.value = value\n"
        "def compute(first_value, step=2):\n"
        "    total = len(str(first_value)) + first_value\n"
        "    return Holder(total).value\n"
        "print(compute(40, step=1))\n"
    )
    names = pysemantic.short_names(ast.parse(source))
    assert names == {"compute": "f", "Holder": "C", "first_value": "a", "total": "b", "value": "c"}
    calls: list[str] = []
    # The test wants the function and the class kept: what is left is renamed.
    reduced = _reduced(source, _prints("42\n", calls, needs="class"), calls)
    assert reduced == "class C:\n\n    def __init__(self,a):\n        self.value=a\nprint(C(42).value)"


def test_a_negative_floor_division_in_a_generated_program_reduces_to_one_print(differential):
    assert differential(NEGATIVE_FLOOR_DIVISION)
    result = pyreduce.reduce_python(NEGATIVE_FLOOR_DIVISION, differential)
    assert re.fullmatch(r"print\(-?\d+//-?\d+\)\n?", result.text), result.text
    assert differential(result.text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        for text in differential.calls:
            compile(text, "<candidate>", "exec")  # no invalid program ever cost a test


def test_candidates_that_do_not_compile_never_cost_a_test():
    # Inlining the loop body or the function here would leave a continue outside its loop and a return outside its
    # function: such candidates are compiled, refused, and never tested.
    source = (
        "def first_odd(items):\n"
        "    for item in items:\n"
        "        if item % 2 == 0:\n"
        "            continue\n"
        "        return item\n"
        "    return None\n"
        "for run in [1]:\n"
        "    print(first_odd([2, 4, 7]))\n"
    )
    calls: list[str] = []
    reduced = _reduced(source, _prints("7\n", calls), calls)
    assert len(reduced) < len(source) // 3 and "first_odd" not in reduced
    assert calls


# A program of engines.differential.pygen (seed 37) on which the planted interpreter prints one value otherwise,
# through one negative floor division: _div(3, -128) deep in an expression, in a closure's argument.
NEGATIVE_FLOOR_DIVISION = """\
def _div(a, b):
    return a // b if b else a


def _mod(a, b):
    return a % b if b else a


def _at(items, i):
    return items[i % len(items)] if items else 0

n1 = sum(([-22, 255, 0] + sorted({2, 255, -128, 10})))
n2 = max(sum([0, 2, 46, -1]), n1)
n3 = n2
b4 = (str(n3)[max(n3, -1) % 5:n3 % 7] in str(n1).replace('42'.replace('a b', 'zz'), 'a b'[n1 % 5:10 % 7]))
b5 = b4
n6 = n2
l7 = [-128, 10, 100000000000000000000, 2147483648][(n1 + n1) % 4:]
n1 += n6
def f8(c10):
    def g9(k):
        return c10 * k + 0
    return g9
n11 = f8(n6)(n6)
def f12(c14):
    def g13(k):
        return c14 * k + -4
    return g13
n15 = f12(n6)(n3)
def f16(c18):
    def g17(k):
        return c18 * k + 0
    return g17
n19 = f16((((2 if (True or True) else n2)) << 3) ^ _at([], 0))(((n1 + len('zz')) + ((n2) << 3) ^ n1))
def f20(c22):
    def g21(k):
        return c22 * k + 2
    return g21
n23 = f20(sum(l7))({}.get(('alpha' + 'gamma').replace(('é' + 'zz'), 'é'.title()), n11))
def f24(c26):
    def g25(k):
        return c26 * k + 4
    return g25
n27 = f24(_div(abs(len({'x': 0, 'beta': 1, '': 100000000000000000000})), _at(l7, _div(10, 255))))(n11)
n27 += n15
d28 = {str(v29): v29 * n1 for v29 in sorted({10, 0})}
w30 = 0
while (((False and True) and (n23 >= 2147483648)) and b5) and w30 < 2:
    w30 += 1
    t31 = {2, 255, 2, 10}
d32 = {}
d33 = {'alpha': 10}
n34 = _mod(abs((n1 if True else -128)), n2)
b35 = (str(2).swapcase() in 'alpha'.replace('a b', 'zz').strip())
l36 = l7
l37 = [1, 255, 2]
l38 = [10, 2]
l39 = sorted([-19, -1])
d40 = {}
def f41(c43):
    def g42(k):
        return c43 * k + 1
    return g42
n44 = f41(int(255))(n23)
d45 = d33
t46 = {15, -1, -128}
def f47(c49):
    def g48(k):
        return c49 * k + -4
    return g48
n50 = f47(n34)(_mod(sum(v51 * sum(v52 * 7 for v52 in [] if v52 % 2) for v51 in l37 if v51 % 2), n23))
t53 = {-1, 2147483648, 2, 1}
d54 = {'': -128, 'beta': 7}
l55 = l7
l56 = [v57 * n2 for v57 in range(_mod(n2, 8))]
t58 = {v59 % 5 for v59 in l37}
d60 = {'Hello': 1, 'zz': 255, 'é': 0}
t61 = t58
l62 = l36
l63 = l39
t64 = {2, 255, -128}

print('n1', repr(n1))
print('n2', repr(n2))
print('n3', repr(n3))
print('b4', repr(b4))
print('b5', repr(b5))
print('n6', repr(n6))
print('l7', repr(l7))
print('n11', repr(n11))
print('n15', repr(n15))
print('n19', repr(n19))
print('n23', repr(n23))
print('n27', repr(n27))
print('d28', repr(sorted(d28.items())))
print('d32', repr(sorted(d32.items())))
print('d33', repr(sorted(d33.items())))
print('n34', repr(n34))
print('b35', repr(b35))
print('l36', repr(l36))
print('l37', repr(l37))
print('l38', repr(l38))
print('l39', repr(l39))
print('d40', repr(sorted(d40.items())))
print('n44', repr(n44))
print('d45', repr(sorted(d45.items())))
print('t46', repr(sorted(t46)))
print('n50', repr(n50))
print('t53', repr(sorted(t53)))
print('d54', repr(sorted(d54.items())))
print('l55', repr(l55))
print('l56', repr(l56))
print('t58', repr(sorted(t58)))
print('d60', repr(sorted(d60.items())))
print('t61', repr(sorted(t61)))
print('l62', repr(l62))
print('l63', repr(l63))
print('t64', repr(sorted(t64)))
"""


def test_a_value_routed_through_an_exception_and_a_variable_is_printed_where_it_is_made():
    # As generated programs do: the value is raised, caught, kept, and printed at the end with everything else.
    source = (
        "total = 5\n"
        "try:\n"
        "    raise ValueError(total * 3 - 1)\n"
        "except ValueError as error:\n"
        "    kept = error\n"
        "print('kept', kept)\n"
        "print('total', total)\n"
    )
    calls: list[str] = []
    reduced = _reduced(source, _prints("14\n", calls), calls)
    assert "try" not in reduced and "raise" not in reduced and len(reduced) <= 20, reduced  # a=5 print(a*3-1)
    candidates = list(pysemantic.print_values(ast.parse(source)))
    shown = [ast.unparse(tree) for _, tree in candidates]
    assert "total = 5\nprint(total * 3 - 1)" in shown  # the statement that makes it, and nothing after
    assert not any("print(error)" in text for text in shown)  # names bound only inside are not printed


def test_a_value_built_by_a_comprehension_can_be_printed_where_it_is_made():
    source = (
        "n = 3\ntry:\n    raise ValueError('-'.join(str(x) for x in range(n)))\nexcept ValueError as e:\n    k = e\n"
    )
    shown = [ast.unparse(tree) for _, tree in pysemantic.print_values(ast.parse(source))]
    assert "n = 3\nprint('-'.join((str(x) for x in range(n))))" in shown  # x is the comprehension's own


def test_each_statement_gets_its_own_print_candidate():
    # The same expression at two places: refusing the first (no difference yet) must not refuse the second.
    source = "n = 5\nr = n % 3\nn = -7\nr = n % 3\n"
    names = [name for name, _ in pysemantic.print_values(ast.parse(source))]
    assert len(names) == len(set(names)) == 4
