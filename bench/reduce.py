"""fuzzweb's reducers against C-Vise, picire and lithium: same inputs, same interestingness tests.

Python: generated programs (engines.differential.pygen) with a crash planted
in a function among them. A candidate is interesting when running it ends
in ZeroDivisionError with ``planted`` as the innermost frame: exception type
plus top frame, as a bucket signature would have it.

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
reduction has in production, and C as production does: C-Vise, C-Reduce if
C-Vise dies, under its own budget and check script (engines.reduce.external),
so the C figure says what fuzzweb's pipeline costs against C-Vise run alone.

Every result is re-checked with the test: one that is not interesting
counts as no reduction at all (the original's size), whichever tool made it.
A tool stopped by the cap keeps what it last wrote: C-Vise and lithium
rewrite the file as they go; picire writes only at its end, so a picire run
the cap stops counts as the size it started its pass with.

Last line: python_size_vs_best=<x> python_time_vs_best=<y> c_size_vs_cvise=<z>
- x: fuzzweb's Python result size over the smallest of the other tools';
- y: fuzzweb's time over the time of the tool that reached that size;
- z: fuzzweb's C result size over C-Vise's.
Each is the geometric mean over the programs; the worst program is printed too.

    make bench-deps && .venv/bin/python bench/reduce.py [--quick] [--python 10] [--c 10] [--cap 300]

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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines.differential import pygen  # noqa: E402
from engines.reduce import external, pyreduce  # noqa: E402
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

C_TEST = """#!/bin/sh
# Interesting: the wrapper compiler reports its internal compiler error.
timeout 30 {python} {ice_cc} {construct} "$1" >/dev/null 2>err.txt
grep -q 'internal compiler error: in fold_binary_loc' err.txt
"""

# Operators the wrapper compiler may be made to crash on, tried in this order per program.
CONSTRUCTS = ("^=", "|=", "&=", "-=", "+=")
# --quick's seconds per tool and program.
QUICK_CAP = 5.0
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
        result = pyreduce.reduce_python(text, command_test([str(script)], suffix), seconds=cap)
    else:
        result = external.reduce_c(text, [str(script)], suffix, seconds=cap, jobs=1)
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
            command = [sys.executable, "-m", "lithium", atom, str(condition), str(script), str(case)]
            started = time.monotonic()
            _bounded(command, work, cap - total)
            total += time.monotonic() - started
            current = case.read_text()
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


def python_set(count: int, cap: float, work: Path) -> tuple[list[float], list[float]]:
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
    return size_ratios, time_ratios


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
    parser.add_argument("--python", type=int, default=10, help="Python programs")
    parser.add_argument("--c", type=int, default=10, help="C programs")
    parser.add_argument("--cap", type=float, default=300, help="seconds per tool and program")
    parser.add_argument("--quick", action="store_true", help="one program each, short caps, without missing tools")
    args = parser.parse_args()
    if args.quick:
        args.python, args.c, args.cap = 1, 1, QUICK_CAP
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
        py_sizes, py_times = python_set(args.python, args.cap, work)
        c_sizes = c_set(args.c, args.cap, work)
    print(
        f"python: size vs best other, worst {max(py_sizes):.3f}; time vs that tool, worst {max(py_times):.3f}; "
        f"c: size vs cvise, worst {max(c_sizes):.3f}"
    )
    size, speed, c = geometric_mean(py_sizes), geometric_mean(py_times), geometric_mean(c_sizes)
    if not args.quick:  # quick mode's figures are no measure: no goals
        met = {"python size <= 1.0": size <= 1.0, "python time <= 0.5": speed <= 0.5, "c size <= 1.2": c <= 1.2}
        print("goals: " + "; ".join(f"{goal} {'met' if ok else 'MISSED'}" for goal, ok in met.items()))
    print(
        f"python_size_vs_best={geometric_mean(py_sizes):.3f} python_time_vs_best={geometric_mean(py_times):.3f} "
        f"c_size_vs_cvise={geometric_mean(c_sizes):.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
