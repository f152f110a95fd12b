"""Real wrong-code bugs grouped by cause: GCC's own regression tests against Debian's gcc-11, scored by GCC's fixes.

The planted compilers of bench/miscompile_dedup.py tie each bug to one flag
or pass, which real bugs need not do: a bug in an analysis several passes
share shows under whichever consumes it. This bench takes real ones. GCC
12.2's run-time regression tests (Debian's gcc-12-source) include eight that
Debian 12's gcc-11 (11.3) still gets wrong at some level, found by scanning
every self-contained test of ``gcc.c-torture/execute`` and
``gcc.dg/torture`` numbered PR 80000 or higher (187 tests; see
docs/targets/gcc_torture.py, which selects them, and docs/findings.md).
GCC's ChangeLog names the commit that fixed each, which is the truth:

- 2022-01-24, tree-ssa-loop-niter.cc (number_of_iterations_cond), PR 100740,
  101508, 101972, 102131: pr100740, pr101508, pr102131-3;
- 2022-01-31 and 2022-02-04, fold-const.cc (multiple_of_p), PR 100499:
  pr100499-1, -2, -3;
- 2022-02-25, tree-ssa-sccvn / tree-ssa-pre, PR 103037: pr103037;
- 2021-09-01, tree-ssa-pre.c (compute_avail), PR 93491: pr93491.

Each test runs as the campaign ran it (docs/targets/gcc-torture-releases.toml:
gcc-12 -O0 decides; gcc-11 at -O1, -O2, -O3 and -Os) and each
miscompilation is keyed as production keys it: v1 by which backends
disagreed and how; v2 by its culprit (triage/culprits.py: gcc's flags at
its first failing level, checked at the others, a covered bucket joined in
arrival order; no flag: the shape of the C-Vise-reduced program). The rule
for gcc's flags (every single flag, umbrella flags last, kept across
levels) was chosen looking at the first seven of these tests; pr93491 was
found afterwards. There is no held-out set of real bugs on this machine
beyond it: read the figure as how production does on real bugs, not as a
prediction.

Needs gcc-11, gcc-12 and gcc-12-source (``make test`` installs them);
the tests are read from the source tarball.

Last line: f1 v2=<x> v1=<y> programs=<n>

    .venv/bin/python bench/gcc_regressions.py [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "docs" / "targets"))

import gcc_torture  # noqa: E402

from bench.miscompile_dedup import pairwise_f1, shape_of_reduced, signature_of  # noqa: E402
from engines import sandbox  # noqa: E402
from engines.differential import compare, culprit, findings, harness, shape  # noqa: E402
from engines.differential.backends import Backend  # noqa: E402

TARBALL = Path("/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz")
# Test -> the fix that made it pass (gcc/ChangeLog and gcc/ChangeLog-2021 of GCC 12.2).
FIXES = {
    "pr100740": "niter 2022-01-24",
    "pr101508": "niter 2022-01-24",
    "pr102131-3": "niter 2022-01-24",
    "pr100499-1": "multiple_of_p 2022-02-04",
    "pr100499-2": "multiple_of_p 2022-02-04",
    "pr100499-3": "multiple_of_p 2022-02-04",
    "pr103037": "sccvn 2022-02-25",
    "pr93491": "compute_avail 2021-09-01",
}
QUICK = ("pr100740",)
SHAPE_SECONDS = 60.0


def _compiler(program: str, level: str) -> Backend:
    return Backend(
        name=f"{program}{level}",
        compile=(program, level, "-w", "-o", "{binary}", "{source}", "-lm"),
        run=("{binary}",),
        version=(program, "--version"),
    )


def chosen_backends() -> list[Backend]:
    return [_compiler("gcc-12", "-O0")] + [_compiler("gcc-11", level) for level in ("-O1", "-O2", "-O3", "-Os")]


def sources(names: list[str]) -> dict[str, str]:
    """The tests' text, read from Debian's GCC source tarball."""
    wanted = {f"gcc/testsuite/gcc.dg/torture/{name}.c": name for name in names}
    found = {}
    with tarfile.open(TARBALL) as archive:
        for member in archive:
            name = wanted.get(member.name.split("/", 1)[-1])
            if name:
                found[name] = archive.extractfile(member).read().decode(errors="replace")
                if len(found) == len(wanted):
                    break
    return found


def keyed(name: str, text: str, chosen: list[Backend], limits, seconds: float) -> dict | None:
    program = gcc_torture.PRELUDE + text
    results = harness.process(program, ".c", chosen, limits)
    verdict = compare.classify(results, chosen[0].name)
    wrong = [f for f in findings.findings(
        target="gcc-11 against gcc-12", language="c", program=program, reproducer="", verdict=verdict,
        results=results, metadata={},
    ) if f.kind == "miscompilation"]  # fmt: skip
    if not wrong:
        return None
    finding = wrong[0]
    v1 = signature_of(finding).digest
    misbehaving = [b for b in chosen if verdict.outcomes.get(b.name) == "wrong_output"]
    expected = next(r for r in results if r.backend == verdict.reference)
    bad = culprit.prints_otherwise_than(expected)
    answer = culprit.find(misbehaving[0], program, ".c", bad, limits, others=tuple(misbehaving[1:])).to_dict()
    if answer["beyond_pipeline"]:
        answer, _ = shape_of_reduced("gcc-11", program, chosen, seconds)
    v2 = culprit.cause_key("gcc", answer) or v1
    levels = ", ".join(b.name for b in misbehaving)
    print(f"{name}: wrong at {levels}; {answer['method']}: {answer['name']}", flush=True)
    return {"truth": FIXES[name], "v1": v1, "v2": v2, "name": name}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one test: that it still runs, not a figure")
    args = parser.parse_args()
    missing = [tool for tool in ("gcc-11", "gcc-12") if not shutil.which(tool)]
    if missing or not TARBALL.exists():
        absent = missing + ([] if TARBALL.exists() else [str(TARBALL)])
        print(f"not installed: {', '.join(absent)} (make test installs them)")
        print("f1 v2=nan v1=nan programs=0")
        return 0
    names = list(QUICK if args.quick else FIXES)
    texts = sources(names)
    chosen, limits = chosen_backends(), sandbox.Limits()
    rows = [row for name in names if (row := keyed(name, texts[name], chosen, limits, SHAPE_SECONDS))]
    # As production moves findings: in arrival order, into a bucket whose flags or shape the key covers.
    bucketed: list[str] = []
    for row in rows:
        joined = shape.covering(row["v2"], bucketed)
        if joined is None:
            bucketed.append(row["v2"])
        row["v2"] = joined or row["v2"]
    for key in dict.fromkeys(row["v2"] for row in rows):
        members = [f"{row['name']} ({row['truth']})" for row in rows if row["v2"] == key]
        print(f"  bucket: {', '.join(members)}")
    print(f"f1 v2={pairwise_f1(rows, 'v2'):.3f} v1={pairwise_f1(rows, 'v1'):.3f} programs={len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
