"""fuzzweb's reducers against C-Vise, picire and lithium: same inputs, same interestingness tests.

Python: generated programs (engines.differential.pygen) with a crash planted
in a function among them. A candidate is interesting when running it ends
in ZeroDivisionError with ``planted`` as the innermost frame: exception type
plus top frame, as a bucket signature would have it.

Python, wrong output: generated programs whose output differs between CPython
and a planted interpreter (CPython running the program with ``//`` rounded
toward zero when the operands' signs differ, as a buggy implementation
might). A candidate is interesting when CPython prints the same thing twice
(and no address), the planted interpreter prints something else, and both
exit 0: a miscompilation bucket's test. Only fuzzweb and lithium run on
these (C-Vise and picire are compared on the crashes), for the
lithium figure below.

C: small Csmith programs compiled by a wrapper compiler (bench/ice_cc.py)
that plays a compiler with a bug: it checks the program with gcc and then
reports an internal compiler error when a chosen construct (a compound
assignment of a chosen operator inside a loop body) is present. A candidate
is interesting when the wrapper reports that error; it only does so for
programs gcc accepts.

Every tool gets the same test script and one core (C-Vise ``--n 1``, picire
and lithium unparallelised, fuzzweb's reducers are sequential). picire and
lithium run as their documentation suggests: lines first, then characters
on the result; their time is the sum of both. fuzzweb reduces Python with
its tree reducer (engines.reduce.pyreduce) with the test budget a bucket's
reduction has in production and at most PY_SECONDS seconds (the goal is a
paste-ready program within a minute), and C as production does: C-Vise, C-Reduce if
C-Vise dies, under its own budget and check script (engines.reduce.external),
so the C figure says what fuzzweb's pipeline costs against C-Vise run alone;
after C-Vise, fuzzweb cleans up what it leaves of Csmith (engines.reduce.cclean:
safe-math wrappers as plain operations, the checksum as printf, unused
declarations), with at least CLEAN_UP_SECONDS for it, as production does.

Every result is re-checked with the test: one that is not interesting
counts as no reduction at all (the original's size), whichever tool made it.
A tool stopped by the cap keeps what it last wrote: C-Vise rewrites the
file as it goes; lithium writes each candidate over it, so its test is
wrapped to keep a copy of the last interesting one, which counts when the
file holds a candidate that was not; picire writes only at its end, so a
picire run the cap stops counts as the size it started its pass with.

Last line: python_size_vs_best=<x> python_time_vs_best=<y> c_size_vs_cvise=<z> python_size_vs_lithium=<r>
- x: fuzzweb's Python result size over the smallest of the other tools' (crashes);
- y: fuzzweb's time over the time of the tool that reached that size;
- z: fuzzweb's C result size over C-Vise's;
- r: fuzzweb's Python result size over lithium's, over every Python program
  (crashes and wrong outputs); the goal is 0.5 or less.
Each is the geometric mean over the programs; the worst program is printed too.

Shrink Ray (``shrinkray`` on PyPI) is not compared: its releases need Python
3.12 or later and the project runs 3.11 (the only ones pip finds for 3.11,
0.0.1 and 0.0.2, are an early prototype).

    make bench-deps && .venv/bin/python bench/reduce.py [--quick] [--python 10] [--wrong 5] [--c 10] [--cap 300]

--quick (what `make test` runs: that it still runs, not a figure): one
program of each language, QUICK_CAP seconds per tool. picire and lithium
come with `make bench-deps`; quick mode leaves out whichever is missing,
says so, and compares with the tools it has (C-Vise at least).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.differential import pygen  # noqa: E402
from engines.reduce import cclean, external, pyreduce  # noqa: E402
from engines.reduce.result import command_test  # noqa: E402

BENCH = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent

PLANTED = """
def planted(values):
    total = 0
    for value in values:
        total += len(str(value))
    return total // (total - total)
"""

PYTHON_TEST = """#!/bin/sh
# Interesting: ends in ZeroDivisionError raised in planted().
timeout 10 {python} "$1" >/dev/null 2>err.txt
[ $? -eq 1 ] || exit 1
tail -n 1 err.txt | grep -q '^ZeroDivisionError' || exit 1
grep '^  File ' err.txt | tail -n 1 | grep -q ', in planted$'
"""

WRONG_TEST = """#!/bin/sh
# Interesting: CPython prints the same twice and no address, the planted interpreter prints otherwise; both exit 0.
timeout 10 {python} "$1" >reference.txt 2>/dev/null || exit 1
timeout 10 {python} "$1" >again.txt 2>/dev/null || exit 1
cmp -s reference.txt again.txt || exit 1
grep -q ' at 0x' reference.txt && exit 1
timeout 10 {python} {planted} "$1" >planted.txt 2>/dev/null || exit 1
! cmp -s reference.txt planted.txt
"""

# The planted interpreter of the wrong-output set: CPython, but ``a // b`` rounds toward zero when the signs differ.
PLANTED_PYTHON = """import ast
import sys


def toward_zero(a, b):
    quotient = a // b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and (a < 0) != (b < 0) and quotient * b != a:
        return quotient + 1
    return quotient


class Planted(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.FloorDiv):
            return ast.Call(ast.Name("__toward_zero__", ast.Load()), [node.left, node.right], [])
        return node


tree = ast.fix_missing_locations(Planted().visit(ast.parse(open(sys.argv[1]).read())))
exec(compile(tree, sys.argv[1], "exec"), {"__name__": "__main__", "__toward_zero__": toward_zero})
"""

C_TEST = """#!/bin/sh
# Interesting: the wrapper compiler reports its internal compiler error.
timeout 30 {python} {ice_cc} {construct} "$1" >/dev/null 2>err.txt
grep -q 'internal compiler error: in fold_binary_loc' err.txt
"""

# Operators the wrapper compiler may be made to crash on, tried in this order per program.
CONSTRUCTS = ("^=", "|=", "&=", "-=", "+=")
# Seconds fuzzweb's C clean-up gets at least after C-Vise (triage.reproduction.CLEAN_UP_MIN_SECONDS).
CLEAN_UP_SECONDS = 60.0
# --quick's seconds per tool and program.
QUICK_CAP = 2.0
# fuzzweb's seconds per Python program, whatever the cap: the goal is a minute.
PY_SECONDS = 60.0
# The reducers besides C-Vise; quick mode drops those not installed.
OTHERS = ["picire", "lithium"]


@dataclass
class Outcome:
    tool: str
    size: int
    seconds: float
    valid: bool
    original: int = 0

    @property
    def counted(self) -> int:
        """The size that counts: an uninteresting result is no reduction."""
        return self.size if self.valid else self.original


def planted_program(seed: int) -> str:
    """A generated program with planted() called halfway down its top level."""
    program = pygen.generate(random.Random(seed)).text
    tree = ast.parse(program)
    middle = len(tree.body) // 2
    lines = program.splitlines(keepends=True)
    at = tree.body[middle].lineno - 1
    return "".join(lines[:at]) + PLANTED + "\nplanted([1, 22, 333])\n" + "".join(lines[at:])


def small_csmith(seed: int) -> str | None:
    options = ["--max-funcs", "3", "--max-block-depth", "2", "--max-expr-complexity", "4", "--no-volatiles"]
    with tempfile.TemporaryDirectory() as scratch:
        done = subprocess.run(
            ["csmith", "--seed", str(seed), *options], capture_output=True, text=True, cwd=scratch, timeout=60
        )
    return done.stdout if done.returncode == 0 else None


def _write_script(directory: Path, name: str, body: str) -> Path:
    path = directory / name
    path.write_text(body)
    path.chmod(0o755)
    return path


def _interesting(script: Path, text: str, suffix: str) -> bool:
    return command_test([str(script)], suffix)(text)


# --- the tools -----------------------------------------------------------------------------------
def run_fuzzweb(language: str, text: str, script: Path, suffix: str, cap: float) -> Outcome:
    started = time.monotonic()
    if language == "python":
        result = pyreduce.reduce_python(text, command_test([str(script)], suffix), seconds=min(cap, PY_SECONDS))
    else:
        result = external.reduce_c(text, [str(script)], suffix, seconds=cap, jobs=1)
        # As production: Csmith's wrappers and checksum cleaned up after C-Vise (at least a minute for it).
        remaining = max(CLEAN_UP_SECONDS, cap - (time.monotonic() - started))
        cleaned, _ = cclean.clean(result.text, command_test([str(script)], suffix), remaining)
        result = replace(result, text=cleaned)
    return Outcome("fuzzweb", len(result.text), time.monotonic() - started, _interesting(script, result.text, suffix))


def run_cvise(text: str, script: Path, suffix: str, cap: float, not_c: bool) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="bench-cvise-") as scratch:
        work = Path(scratch)
        (work / f"case{suffix}").write_text(text)
        wrapper = _write_script(work, "test.sh", f"#!/bin/sh\nexec {script} case{suffix}\n")
        command = ["cvise", "--n", "1", "--tidy", *(["--not-c"] if not_c else []), str(wrapper), f"case{suffix}"]
        started = time.monotonic()
        _bounded(command, work, cap)
        seconds = time.monotonic() - started
        reduced = (work / f"case{suffix}").read_text()
    return Outcome("cvise", len(reduced), seconds, _interesting(script, reduced, suffix))


def run_picire(text: str, script: Path, suffix: str, cap: float) -> Outcome:
    current, total = text, 0.0
    for atom in ("line", "char"):
        with tempfile.TemporaryDirectory(prefix="bench-picire-") as scratch:
            work = Path(scratch)
            case = work / f"case{suffix}"
            case.write_text(current)
            out = work / "out"
            command = [str(VENV_BIN / "picire"), "-i", str(case), "--test", str(script), "-a", atom]
            command += ["--complement-first", "-q", "-o", str(out)]
            started = time.monotonic()
            _bounded(command, work, cap - total)
            total += time.monotonic() - started
            found = out / case.name
            if found.exists():
                current = found.read_text()
    return Outcome("picire", len(current), total, _interesting(script, current, suffix))


def run_lithium(text: str, script: Path, suffix: str, cap: float) -> Outcome:
    condition = BENCH / "lithium_command.py"
    current, total = text, 0.0
    for atom in ("--lines", "--char"):
        with tempfile.TemporaryDirectory(prefix="bench-lithium-") as scratch:
            work = Path(scratch)
            case = work / f"case{suffix}"
            case.write_text(current)
            # Lithium writes each candidate over the file it reduces: stopped by the cap, the file may hold one
            # that was not interesting. A wrapper keeps a copy of the last interesting one, which is what counts.
            best = work / f"best{suffix}"
            keeper = _write_script(work, "keep.sh", f'#!/bin/sh\n{script} "$1" || exit 1\ncp "$1" {best}\n')
            command = [sys.executable, "-m", "lithium", atom, str(condition), str(keeper), str(case)]
            started = time.monotonic()
            _bounded(command, work, cap - total)
            total += time.monotonic() - started
            written = case.read_text()
            if _interesting(script, written, suffix):
                current = written
            elif best.exists():
                current = best.read_text()
    return Outcome("lithium", len(current), total, _interesting(script, current, suffix))


def _bounded(command: list[str], cwd: Path, seconds: float) -> None:
    """Run a tool; past ``seconds`` it is stopped (the caller reads what it had written by then)."""
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        process.wait(timeout=max(1.0, seconds))
    except subprocess.TimeoutExpired:
        # The whole group: C-Vise and picire run their tests in processes of their own.
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# --- the sets ------------------------------------------------------------------------------------
def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(max(v, 1e-9)) for v in values) / len(values)) if values else float("nan")


def report(name: str, size: int, outcomes: list[Outcome]) -> None:
    cells = "  ".join(
        f"{o.tool} {o.size:5d} B {o.seconds:6.1f} s{'' if o.valid else ' (NOT INTERESTING)'}" for o in outcomes
    )
    print(f"{name:14s} {size:6d} B  {cells}", flush=True)


def python_set(count: int, cap: float, work: Path, vs_lithium: list[float]) -> tuple[list[float], list[float]]:
    script = _write_script(work, "python_test.sh", PYTHON_TEST.format(python=sys.executable))
    size_ratios, time_ratios = [], []
    seed = 0
    while len(size_ratios) < count:
        seed += 1
        program = planted_program(seed)
        if not _interesting(script, program, ".py"):
            continue  # the generated part raised first; the plant is never reached
        ours = run_fuzzweb("python", program, script, ".py", cap)
        others = [run_cvise(program, script, ".py", cap, not_c=True), *run_others(program, script, ".py", cap)]
        for outcome in (ours, *others):
            outcome.original = len(program)
        report(f"python seed {seed}", len(program), [ours, *others])
        best = min(others, key=lambda o: (o.counted, o.seconds))
        size_ratios.append(ours.counted / best.counted)
        time_ratios.append(ours.seconds / best.seconds)
        vs_lithium.extend(ours.counted / o.counted for o in others if o.tool == "lithium")
    return size_ratios, time_ratios


def wrong_output_set(count: int, cap: float, work: Path, vs_lithium: list[float]) -> list[float]:
    """Generated programs that print otherwise on the planted interpreter: fuzzweb against lithium (seconds)."""
    planted = work / "planted_python.py"
    planted.write_text(PLANTED_PYTHON)
    script = _write_script(work, "wrong_test.sh", WRONG_TEST.format(python=sys.executable, planted=planted))
    seconds = []
    seed = 0
    while len(seconds) < count:
        seed += 1
        program = pygen.generate(random.Random(seed)).text
        if not _interesting(script, program, ".py"):
            continue  # no negative floor division changes what this one prints
        ours = run_fuzzweb("python", program, script, ".py", cap)
        others = [run_lithium(program, script, ".py", cap)] if "lithium" in OTHERS else []
        for outcome in (ours, *others):
            outcome.original = len(program)
        report(f"wrong seed {seed}", len(program), [ours, *others])
        vs_lithium.extend(ours.counted / o.counted for o in others)
        seconds.append(ours.seconds)
    return seconds


def c_set(count: int, cap: float, work: Path) -> list[float]:
    size_ratios = []
    seed = 0
    while len(size_ratios) < count:
        seed += 1
        program = small_csmith(seed)
        if program is None:
            continue
        construct = next((c for c in CONSTRUCTS if _has(program, c)), None)
        if construct is None:
            continue
        script = _write_script(
            work,
            f"c_test_{seed}.sh",
            C_TEST.format(python=sys.executable, ice_cc=BENCH / "ice_cc.py", construct=f"'{construct}'"),
        )
        if not _interesting(script, program, ".c"):
            continue
        ours = run_fuzzweb("c", program, script, ".c", cap)
        cvise = run_cvise(program, script, ".c", cap, not_c=False)
        others = run_others(program, script, ".c", cap)
        for outcome in (ours, cvise, *others):
            outcome.original = len(program)
        report(f"c seed {seed} {construct}", len(program), [ours, cvise, *others])
        size_ratios.append(ours.counted / cvise.counted)
    return size_ratios


def run_others(text: str, script: Path, suffix: str, cap: float) -> list[Outcome]:
    runners = {"picire": run_picire, "lithium": run_lithium}
    return [runners[tool](text, script, suffix, cap) for tool in OTHERS]


def _missing_others() -> list[str]:
    missing = [] if (VENV_BIN / "picire").exists() else ["picire"]
    return missing + ([] if importlib.util.find_spec("lithium") else ["lithium"])


def _has(program: str, construct: str) -> bool:
    sys.path.insert(0, str(BENCH))
    from ice_cc import crashes_on

    return crashes_on(program, construct)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", type=int, default=10, help="Python programs (crashes)")
    parser.add_argument("--wrong", type=int, default=5, help="Python programs (wrong output)")
    parser.add_argument("--c", type=int, default=10, help="C programs")
    parser.add_argument("--cap", type=float, default=300, help="seconds per tool and program")
    parser.add_argument("--quick", action="store_true", help="one program each, short caps, without missing tools")
    args = parser.parse_args()
    if args.quick:
        args.python, args.wrong, args.c, args.cap = 1, 1, 1, QUICK_CAP
    missing = [tool for tool in ("cvise", "csmith", "gcc") if not shutil.which(tool)]
    others_missing = _missing_others()
    if missing or (others_missing and not args.quick):
        print(f"missing: {missing + [f'{tool} (make bench-deps)' for tool in others_missing]}", file=sys.stderr)
        return 2
    if others_missing:
        print(f"quick mode: {', '.join(others_missing)} not installed (make bench-deps): left out, n/a")
        OTHERS[:] = [tool for tool in OTHERS if tool not in others_missing]
    with tempfile.TemporaryDirectory(prefix="bench-reduce-") as scratch:
        work = Path(scratch)
        vs_lithium: list[float] = []
        py_sizes, py_times = python_set(args.python, args.cap, work, vs_lithium)
        wrong_seconds = wrong_output_set(args.wrong, args.cap, work, vs_lithium)
        c_sizes = c_set(args.c, args.cap, work)
    lithium_worst = f"{max(vs_lithium):.3f}" if vs_lithium else "n/a"
    print(
        f"python: size vs best other, worst {max(py_sizes):.3f}; time vs that tool, worst {max(py_times):.3f}; "
        f"size vs lithium, worst {lithium_worst}; "
        f"wrong output, fuzzweb's slowest: {max(wrong_seconds, default=0):.1f} s; "
        f"c: size vs cvise, worst {max(c_sizes):.3f}"
    )
    size, speed, c = geometric_mean(py_sizes), geometric_mean(py_times), geometric_mean(c_sizes)
    vs = geometric_mean(vs_lithium)
    if not args.quick:  # quick mode's figures are no measure: no goals
        met = {
            "python size <= 1.0": size <= 1.0,
            "python time <= 0.5": speed <= 0.5,
            "python size vs lithium <= 0.5": vs <= 0.5,
            f"python within {PY_SECONDS:.0f} s": max(wrong_seconds, default=0) <= PY_SECONDS + 5,
            "c size <= 1.2": c <= 1.2,
        }
        print("goals: " + "; ".join(f"{goal} {'met' if ok else 'MISSED'}" for goal, ok in met.items()))
    print(
        f"python_size_vs_best={size:.3f} python_time_vs_best={speed:.3f} c_size_vs_cvise={c:.3f} "
        f"python_size_vs_lithium={f'{vs:.3f}' if vs_lithium else 'n/a'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
