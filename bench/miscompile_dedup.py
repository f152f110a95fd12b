"""Miscompilation buckets against their planted root causes: signature v1 (backends) and v2 (culprit).

The compiler under test is tests/data/planted/multi_gcc: real gcc with four
wrong-code bugs and two crashes planted, each in one optimisation flag that
gcc's own -O levels switch on and off (-ftree-vrp, -fgcse, -fipa-sra,
-ftree-pre; crashes in -fpeel-loops and -fcode-hoisting). Several are
visible at the same level, triggered by different constructs. It runs at
-O1, -O2 and -O3 against plain gcc -O0 as reference, on programs of
tests/data/planted/gen_multi.py, which plants at most one trigger per
program and says which in its first line: the truth to score against.

Each finding (a program's miscompilation, or one backend's crash) gets:
- its v1 key: the signature ingest gives it today (crashes.signatures:
  which backends disagreed and how; a crash by its parsed ICE site);
- its v2 key: for wrong code, the culprit found by
  engines.differential.culprit on the first misbehaving backend of the
  family (the key triage/culprits.py moves findings by); crashes keep their
  site key, which is the crash's culprit already.
Pairwise F1 of each grouping against the planted causes, and how often the
named culprit is the planted one (the flag, or the crash's function).

Last line: f1 v2=<x> v1=<y> culprit_accuracy=<z>

    .venv/bin/python bench/miscompile_dedup.py [--quick] [--programs 120]
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crashes.signatures import v2 as signatures  # noqa: E402
from engines import sandbox  # noqa: E402
from engines.differential import compare, culprit, findings, harness  # noqa: E402
from engines.differential.backends import Backend  # noqa: E402

PLANTED = ROOT / "tests" / "data" / "planted"
CAUSE = {  # trigger -> the flag it is planted in (wrong code) or the crash's function
    "<< 3": "-ftree-vrp",
    "% 7": "-fgcse",
    "* 9": "-fipa-sra",
    "- 11": "-ftree-pre",
    "/ 13": "peel_loops",
    "| 17": "hoist_code",
}


def backends() -> list[Backend]:
    def compiler(name: str, program: str, level: str) -> Backend:
        return Backend(
            name=name,
            compile=(program, level, "-w", "-o", "{binary}", "{source}"),
            run=("{binary}",),
            version=("gcc", "--version"),
        )

    multi = str(PLANTED / "multi_gcc")
    return [compiler("gcc-O0", "gcc", "-O0")] + [compiler(f"multi{lv}", multi, lv) for lv in ("-O1", "-O2", "-O3")]


def program_for(seed: int) -> str:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "p.c"
        subprocess.run([sys.executable, str(PLANTED / "gen_multi.py"), str(seed), str(out)], check=True)
        return out.read_text()


def keyed_findings(seed: int, chosen: list[Backend], limits) -> list[dict]:
    program = program_for(seed)
    planted = re.search(r"planted: (.+?) \*/", program).group(1)
    results = harness.process(program, ".c", chosen, limits)
    verdict = compare.classify(results, "gcc-O0")
    found = findings.findings(
        target="multi-bug gcc", language="c", program=program, reproducer="", verdict=verdict,
        results=results, metadata={},
    )  # fmt: skip
    rows = []
    for finding in found:
        pairs = [(b.name, b.outcome) for b in finding.backends]
        v1 = signatures.compute(
            kind=finding.kind, crash_type=finding.crash_type, trace_text=finding.trace, message=finding.message,
            target=finding.target, stage=finding.stage, reference=finding.reference, backends=pairs,
        ).digest  # fmt: skip
        named, v2 = "", v1
        if finding.kind == "miscompilation":
            expected = next(r for r in results if r.backend == verdict.reference)
            wrong = next(b for b in chosen if verdict.outcomes.get(b.name) == "wrong_output")

            bad = culprit.prints_otherwise_than(expected)
            answer = culprit.find(wrong, program, ".c", bad, limits)
            named = answer.name
            v2 = f"culprit:{culprit.family(wrong)}:{answer.key}" if answer.method != "none" else v1
        else:
            site = re.search(r"internal compiler error: in (\w+)", finding.trace or finding.message or "")
            named = site.group(1) if site else ""
        rows.append({"truth": planted, "v1": v1, "v2": v2, "named": named, "kind": finding.kind})
    return rows


def pairwise_f1(rows: list[dict], key: str) -> float:
    true_positive = false_positive = false_negative = 0
    for a, b in itertools.combinations(rows, 2):
        same_truth, same_key = a["truth"] == b["truth"], a[key] == b[key]
        true_positive += same_truth and same_key
        false_positive += same_key and not same_truth
        false_negative += same_truth and not same_key
    if true_positive == 0:
        return 0.0
    precision = true_positive / (true_positive + false_positive)
    recall = true_positive / (true_positive + false_negative)
    return 2 * precision * recall / (precision + recall)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few programs: that it still runs, not a figure")
    parser.add_argument("--programs", type=int, default=120)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    count = 3 if args.quick else args.programs
    rng = random.Random(args.seed)
    chosen, limits = backends(), sandbox.Limits()
    rows: list[dict] = []
    for number in range(count):
        rows += keyed_findings(rng.randrange(2**31), chosen, limits)
        if (number + 1) % 20 == 0:
            print(f"{number + 1} programs, {len(rows)} findings", flush=True)
    causes = sorted({row["truth"] for row in rows})
    print(f"{len(rows)} findings from {count} programs; planted causes seen: {', '.join(causes) or 'none'}")
    for name in ("v1", "v2"):
        groups = {}
        for row in rows:
            groups.setdefault(row[name], set()).add(row["truth"])
        print(f"{name}: {len(groups)} buckets; mixed buckets: {sum(len(t) > 1 for t in groups.values())}")
    named = [row for row in rows if row["truth"] in CAUSE]
    right = sum(row["named"] == CAUSE[row["truth"]] for row in named)
    for row in named:
        if row["named"] != CAUSE[row["truth"]]:
            print(f"  culprit missed: planted {row['truth']!r} ({CAUSE[row['truth']]}), named {row['named']!r}")
    accuracy = right / len(named) if named else float("nan")
    print(f"f1 v2={pairwise_f1(rows, 'v2'):.3f} v1={pairwise_f1(rows, 'v1'):.3f} culprit_accuracy={accuracy:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
