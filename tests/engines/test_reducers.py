"""Text delta debugging, C-Vise under a budget, and typed call shrinking as reducers of their own."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engines.reduce import external, pyreduce, textreduce
from engines.reduce.ddmin import Budget

KOTLIN = """\
data class Point(val x: Int, val y: Int)

fun scale(p: Point, k: Int): Point {
    val scaled = Point(p.x * k, p.y * k)
    return scaled
}

fun main() {
    val points = listOf(Point(1, 2), Point(3, 4))
    for (p in points) {
        println(scale(p, 2))
    }
    val broken = points.map { it.x }.fold(0) { a, b -> a + b } / (points.size - 2)
    println(broken)
}
"""


def test_tokens_join_back_into_the_text_exactly():
    for text in (KOTLIN, 'val s = "a \\" b" // x\n\tend', "  x", "", "ünï ✓ 12.5e3\n"):
        assert "".join(textreduce.tokens(text)) == text


def test_bracket_spans_are_balanced_pairs_widest_first():
    parts = textreduce.tokens("f(a, g(b)) { x[1] }")
    spans = textreduce.bracket_spans(parts)
    widths = [last - first for first, last in spans]
    assert widths == sorted(widths, reverse=True)
    assert all(parts[first].strip() + parts[last].strip() in ("()", "{}", "[]") for first, last in spans)


def test_kotlin_text_is_reduced_to_the_failing_expression():
    # The "compiler" under test fails on an integer division whose divisor subtracts from a size.
    def interesting(text: str) -> bool:
        return "/ (points.size - 2)" in text and text.count("(") == text.count(")") and "val points" in text

    progress = []
    result = textreduce.reduce_text(KOTLIN, interesting, on_progress=lambda text, tests: progress.append(len(text)))
    assert interesting(result.text)
    assert len(result.text) < len(KOTLIN) / 3, result.text
    assert "data class" not in result.text and "fun scale" not in result.text
    assert progress == sorted(progress, reverse=True) and progress[-1] == len(result.text)
    assert result.reducer == "fuzzweb-textreduce" and result.tests > 0


def test_a_validity_check_spares_tests_and_the_budget_is_a_hard_limit():
    tested = []

    def interesting(text: str) -> bool:
        tested.append(text)
        return "println(broken)" in text

    result = textreduce.reduce_text(KOTLIN, interesting, valid=lambda text: text.count("{") == text.count("}"))
    assert all(text.count("{") == text.count("}") for text in tested)
    assert "println(broken)" in result.text
    limited = textreduce.reduce_text(KOTLIN, interesting, max_tests=4)
    assert limited.tests == 4 and "println(broken)" in limited.text


def test_a_deadline_stops_a_reduction_with_its_best_so_far():
    def slow(text: str) -> bool:
        time.sleep(0.05)
        return "broken" in text

    started = time.monotonic()
    result = textreduce.reduce_text(KOTLIN, slow, seconds=0.5)
    assert time.monotonic() - started < 1.5
    assert "broken" in result.text and len(result.text) <= len(KOTLIN)


def test_the_text_reducer_runs_from_the_command_line(tmp_path):
    case = tmp_path / "program.kt"
    case.write_text(KOTLIN)
    test = tmp_path / "test.sh"
    test.write_text("#!/bin/sh\ngrep -q 'fold(0)' \"$1\"\n")
    test.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "engines.reduce.textreduce", str(case), str(test)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "fold(0)" in done.stdout and len(done.stdout) < 40
    assert "characters in" in done.stderr


def test_python_results_lose_the_spaces_unparsing_adds():
    assert pyreduce.compact_spacing("x = f(a, b) // 2\nif x:\n    y = [1, 2]\n") == "x=f(a,b)//2\nif x:\n    y=[1,2]\n"
    # Lines with strings or comments are left as they are.
    assert pyreduce.compact_spacing("s = 'a + b'  # c\n") == "s = 'a + b'  # c\n"
    program = "value = 10\nother = value * 3\nprint(other // (value - value))\n"
    result = pyreduce.reduce_python(program, _divides_by_zero)
    assert result.text.strip() in ("0//0", "0/0"), result.text


def _divides_by_zero(text: str) -> bool:
    try:
        exec(compile(text, "<candidate>", "exec"), {"print": lambda *a: None})  # noqa: S102 - the test's own programs
    except ZeroDivisionError:
        return True
    except Exception:
        return False
    return False


C_PROGRAM = """\
#include <stdio.h>
int f(int a) { return a * 3; }
int g(int b) { int x = b % 7; return x + 1; }
int main(void) {
  int i, s = 0;
  for (i = 0; i < 10; i++) s += f(i) + g(i);
  printf("%d\\n", s);
  return 0;
}
"""


def _keeps_mod_7(tmp_path: Path, delay: str = "") -> Path:
    """A check script: the candidate still holds the `% 7` and still compiles."""
    check = tmp_path / "check.sh"
    check.write_text(f'#!/bin/sh\n{delay}grep -q \'% 7\' "$1" && gcc -fsyntax-only -w "$1"\n')
    check.chmod(0o755)
    return check


# C-Reduce reduces the same program in test_creduce_takes_over_when_cvise_dies_without_reducing.
def test_cvise_reduces_c_under_the_check_command(tmp_path):
    check = _keeps_mod_7(tmp_path)
    seen = []
    result = external.reduce_c(
        C_PROGRAM, [str(check)], seconds=90, tool="cvise", on_progress=lambda text, tests: seen.append(len(text))
    )
    _assert_reduced_c(result, seen, "cvise")


def _assert_reduced_c(result, seen: list[int], tool: str) -> None:
    """Reduced by ``tool`` to under a third, still holding the construct and compiling, progress shrinking."""
    assert result.reducer == tool and result.tests > 0
    assert "% 7" in result.text and len(result.text) < len(C_PROGRAM) / 3, result.text
    assert seen and seen == sorted(seen, reverse=True)
    compiled = subprocess.run(["gcc", "-fsyntax-only", "-w", "-x", "c", "-"], input=result.text, text=True)
    assert compiled.returncode == 0


def test_a_c_reduction_cut_short_keeps_its_best_version(tmp_path):
    check = _keeps_mod_7(tmp_path, delay="sleep 0.2; ")
    started = time.monotonic()
    result = external.reduce_c(C_PROGRAM, [str(check)], seconds=4)
    assert time.monotonic() - started < 20
    assert "% 7" in result.text and len(result.text) <= len(C_PROGRAM)


def test_creduce_takes_over_when_cvise_dies_without_reducing(monkeypatch, tmp_path):
    # A C-Vise that crashes at once, first on PATH; the real C-Reduce behind it.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cvise").write_text("#!/bin/sh\necho 'pass crashed' >&2\nexit 1\n")
    (bin_dir / "cvise").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    check = _keeps_mod_7(tmp_path)
    seen = []
    result = external.reduce_c(
        C_PROGRAM, [str(check)], seconds=90, on_progress=lambda text, tests: seen.append(len(text))
    )
    _assert_reduced_c(result, seen, "creduce")


def test_the_c_reducer_runs_from_the_command_line(tmp_path):
    program = tmp_path / "case.c"
    program.write_text(C_PROGRAM)
    check = _keeps_mod_7(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "engines.reduce.external", str(program), "--seconds", "15", str(check)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Wiring, not C-Vise's reach: some reduction within its 15 seconds, still interesting.
    assert "% 7" in done.stdout and len(done.stdout) < len(C_PROGRAM)
    assert "characters in" in done.stderr


def test_no_c_reducer_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a machine with neither installed
    assert external.available_tool() is None
    with pytest.raises(external.ReducerMissing, match="neither cvise nor creduce"):
        external.reduce_c(C_PROGRAM, ["true"])


def test_typed_call_shrinking_runs_from_the_command_line():
    done = subprocess.run(
        [sys.executable, "-m", "engines.reduce.pyinputs", "engines.demo.textkit", "parse_duration", '["12xq 99s 7x"]'],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    call = done.stdout.strip()
    assert call.startswith("parse_duration('") and len(call) < len("parse_duration('12xq 99s 7x')")
    assert "tests" in done.stderr


def test_budget_counts_tests_and_reports_progress():
    heard = []
    budget = Budget(2, on_progress=lambda text, tests: heard.append((text, tests)))
    budget.charge()
    budget.improved("a")
    budget.charge()
    assert budget.spent and budget.used == 2 and heard == [("a", 1)]


def test_kotlin_is_reduced_on_its_syntax_tree_with_fewer_compiles_than_over_text():
    """A generated program; the "compiler bug" needs a when over a sealed type's subject and the call of it."""
    import random

    from engines.differential import kotlingen
    from engines.reduce import treereduce

    program = kotlingen.generate(random.Random(3)).text
    compiles = {"tree": 0, "text": 0}

    def interesting_for(reducer: str):
        def interesting(text: str) -> bool:
            compiles[reducer] += 1  # a kotlinc run each, in production: what the tree's parse check spares
            return treereduce.kotlin_parses(text) and "when (x)" in text and "evalS5(" in text.replace("fun evalS5", "")

        return interesting

    assert interesting_for("tree")(program)
    tree = treereduce.reduce_kotlin(program, interesting_for("tree"))
    text = textreduce.reduce_text(program, interesting_for("text"))
    assert treereduce.kotlin_parses(tree.text) and "when (x)" in tree.text and tree.reducer == "fuzzweb-treereduce"
    # About as small, for a tenth of the compiles: invalid candidates never reach the compiler.
    assert len(tree.text) < len(program) / 50 and len(tree.text) <= 1.5 * len(text.text), (tree.text, text.text)
    assert compiles["tree"] < compiles["text"] / 4, compiles
    # Whole declarations went as units: nothing of the helper functions the bug does not need is left.
    assert "fun sdiv" not in tree.text and "data class Data4" not in tree.text


def _processes_mentioning(text: str) -> list[int]:
    """Live processes whose command line names ``text`` (zombies, which hold nothing, left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def test_a_reduction_killed_whole_leaves_no_reducer_behind(tmp_path):
    # What stopping `make run` does to a worker mid-reduction: SIGKILL, no chance to clean up.
    # C-Vise runs in a session of its own with helpers of its own; none may outlive it.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    program = tmp_path / "case.c"
    program.write_text(C_PROGRAM)
    check = _keeps_mod_7(tmp_path, delay="sleep 0.3; ")
    worker = subprocess.Popen(
        [sys.executable, "-m", "engines.reduce.external", str(program), "--seconds", "120", str(check)],
        env={**os.environ, "TMPDIR": str(scratch)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        # The reducer and at least one of its test processes are running in the scratch directory.
        while len(_processes_mentioning(str(scratch))) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(_processes_mentioning(str(scratch))) >= 2
    finally:
        worker.kill()
        worker.wait()
    deadline = time.monotonic() + 15
    while _processes_mentioning(str(scratch)) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _processes_mentioning(str(scratch))
    for pid in left:  # leave the machine clean whatever the outcome
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == []
