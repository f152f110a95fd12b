"""Benchmarks still run to their last line in quick mode: no thresholds, but a bench that rots is a broken tool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Not here: bench/ice_cc.py and bench/lithium_command.py are helpers of reduce.py (its
# quick mode runs ice_cc.py; lithium_command.py needs lithium, from `make bench-deps`), and
# bench/clusterfuzz_grouping.py is dedup_quality.py's helper in .venv-clusterfuzz, which
# dedup_quality.py's quick mode leaves out.
# Benches that make databases name them after DATABASE_URL's (<name>_bench, _load, ...),
# on the suite's PostgreSQL; the suite's Redis serves the worker and the queues.
QUICK = {
    "dedup_quality.py": "f1_test fuzzweb=",
    "paste_robustness.py": "paste_stable dev=",
    "parse_worst.py": "parse_max_ms=",
    # Its own database (fuzzweb_bench) and server.
    "ingest.py": "findings_per_s=",
    "difftest.py": "harness_overhead=",
    # picire, lithium: n/a when missing (make bench-deps); C-Vise, csmith and gcc as make test installs them.
    "reduce.py": "python_size_vs_best=",
    # atheris: n/a when missing (make bench-deps).
    "pyfunc.py": "bugs fuzzweb=",
    # An RQ worker and a campaign, on a database of its own (fuzzweb_overhead).
    "runtime_overhead.py": "overhead_ratio=",
    # A tiny dataset, made afresh (fuzzweb_pages_quick).
    "pages.py": "p95_max_ms=",
    # gunicorn, as make run serves; database fuzzweb_load.
    "load.py": "ingested=",
    # kotlinc and java as make test installs them; n/a without them.
    "kotlin_throughput.py": "files_per_hour warm=",
    # gcc, and the planted-bug compiler of the tests.
    "miscompile_dedup.py": "f1 v2=",
    # gcc-11, gcc-12 and gcc-12-source as make test installs them.
    "gcc_regressions.py": "f1 v2=",
}


@pytest.mark.parametrize(("bench", "last_line"), sorted(QUICK.items()))
def test_bench_runs_in_quick_mode(bench, last_line):
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / bench), "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert lines and lines[-1].startswith(last_line), done.stdout[-3000:]
