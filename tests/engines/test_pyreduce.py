"""The Python program reducer: syntax-tree passes, then lines; every candidate valid, the budget kept."""

from __future__ import annotations

import contextlib
import io
import random
import re
import subprocess
import sys
import warnings

from engines.differential import pygen
from engines.reduce import ddmin, pyreduce


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
