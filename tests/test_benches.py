"""Benchmarks still run to their last line in quick mode: no thresholds, but a bench that rots is a broken tool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

QUICK = {
    "dedup_quality.py": "f1_test fuzzweb=",
    "parse_worst.py": "parse_max_ms=",
    # Its own database (fuzzweb_bench) and server, on the suite's PostgreSQL.
    "ingest.py": "findings_per_s=",
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
