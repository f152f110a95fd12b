"""What does the differential harness add to the compilers' and programs' own time?

The same Csmith programs go through the same C backends twice, interleaved:

- bare: each backend's compile and run command with ``subprocess.run``, no
  limits, no measuring, output read in memory: the tools' own time;
- harness: ``harness.process`` (scratch directory, rlimits, a session per
  command, pidfd wait, wait4 rusage, output through files, version lookup)
  followed by ``compare.classify`` and ``findings.findings``: everything a
  campaign does per program apart from generating it and storing findings.

Programs are generated first and are not timed; programs that run for
longer than a few seconds (a campaign skips those too) or that a compiler
refuses (tcc refuses some of Csmith's) are left out.
Each pass is repeated and the fastest of each kind counts.

Last line: harness_overhead=<x>, the fraction of time the harness adds
(harness / bare - 1).

    .venv/bin/python bench/difftest.py [--quick] [--programs 20] [--repeat 3]

--quick: 2 programs, 2 passes (what `make test` runs: that it still runs, not a figure).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines import sandbox  # noqa: E402
from engines.differential import backends, c, compare, csmith, findings, harness  # noqa: E402

CHOSEN = ("gcc-O0", "gcc-O2", "clang-O2", "tcc")
QUICK_SECONDS = 2.0


def bare(program: str, chosen: list[backends.Backend]) -> float:
    """Compile and run with nothing around the tools; the seconds it took (inf if a compiler refused)."""
    workdir = tempfile.mkdtemp(prefix="fuzzweb-bench-")
    try:
        source = os.path.join(workdir, "program.c")
        Path(source).write_text(program)
        started = time.perf_counter()
        for backend in chosen:
            values = {"source": source, "binary": os.path.join(workdir, f"{backend.name}.bin"), "workdir": workdir}
            compiled = subprocess.run(backend.command(backend.compile, **values), cwd=workdir, capture_output=True)  # noqa: S603
            if compiled.returncode != 0:
                return float("inf")
            subprocess.run(backend.command(backend.run, **values), cwd=workdir, capture_output=True)  # noqa: S603
        return time.perf_counter() - started
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def through_harness(program: str, chosen: list[backends.Backend]) -> float:
    started = time.perf_counter()
    results = harness.process(program, ".c", chosen, sandbox.Limits())
    verdict = compare.classify(results)
    findings.findings(
        target="c", language="c", program=program, reproducer="", verdict=verdict, results=results, metadata={}
    )
    return time.perf_counter() - started


def quick_programs(count: int, chosen: list[backends.Backend], seed: int) -> list[str]:
    rng = random.Random(seed)
    programs = []
    while len(programs) < count:
        try:
            program = csmith.generate(rng).text
        except csmith.GeneratorError:
            continue
        if bare(program, chosen) < QUICK_SECONDS:
            programs.append(program)
    return programs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 programs, 2 passes; a few seconds")
    parser.add_argument("--programs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.quick:
        args.programs, args.repeat = 2, 2

    chosen = [b for b in backends.available(c.backends()) if b.name in CHOSEN]
    print(f"backends: {', '.join(b.name for b in chosen)}")
    programs = quick_programs(args.programs, chosen, args.seed)
    for backend in chosen:
        backends.version_of(backend)  # read once per worker in a campaign too
    bare_times, harness_times = [], []
    for attempt in range(args.repeat):
        # Interleaved, and the order flipped each pass: the page cache and
        # the CPU's clock treat both kinds alike.
        passes = [("bare", bare), ("harness", through_harness)]
        for name, run in passes if attempt % 2 == 0 else reversed(passes):
            total = sum(run(program, chosen) for program in programs)
            (bare_times if name == "bare" else harness_times).append(total)
            print(f"pass {attempt + 1} {name:8} {total:7.2f} s for {len(programs)} programs")
    best_bare, best_harness = min(bare_times), min(harness_times)
    print(f"bare: {best_bare:.2f} s   harness: {best_harness:.2f} s   (best of {args.repeat})")
    print(f"harness_overhead={best_harness / best_bare - 1:.3f}")


if __name__ == "__main__":
    main()
