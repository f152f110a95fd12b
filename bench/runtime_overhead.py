"""What does running through a campaign cost the engine?

Executions per second of the demo engine (engines.demo.textkit) run as a
one-shard campaign -- an RQ worker, the sandbox, stats, checkpoints and every
finding stored in PostgreSQL -- divided by the same engine, same seed, run
directly from the command line for the same time. Three times each,
interleaved; the best of each counts (the machine's own noise is ~10%).

Runs on a fresh database of its own, `<DATABASE_URL's name>_overhead`
(fuzzweb_overhead by default), and the configured Redis.

Last line: overhead_ratio=<x>

    .venv/bin/python bench/runtime_overhead.py [--quick] [--seconds 20]

--quick: one round of 2 seconds each (what `make test` runs: that it still runs, not a figure).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest import _database_url, _recreate_database, _setup_django  # noqa: E402

SEED = 1234


def command_line_rate(seconds: float) -> float:
    result = subprocess.run(
        [sys.executable, "-m", "engines.pyfunc", "engines.demo.textkit", "--seconds", str(seconds)]
        + ["--seed", str(SEED)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    executions = int(re.search(r"^(\d+) executions", result.stdout, re.MULTILINE).group(1))
    return executions / seconds


def campaign_rate(seconds: float) -> float:
    from campaigns.launch import campaign_launch
    from campaigns.models import Campaign, Target

    target = Target.objects.get(module="engines.demo.textkit")
    campaign = campaign_launch(target=target, time_budget_seconds=int(seconds), shard_count=1, seed=SEED)
    deadline = time.monotonic() + seconds + 120
    while Campaign.objects.get(pk=campaign.pk).status not in ("finished", "failed", "stopped"):
        if time.monotonic() > deadline:
            raise RuntimeError("the campaign did not finish")
        time.sleep(0.5)
    shard = campaign.shards.get()
    return shard.executions / shard.elapsed_seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one round of 2 s each; under half a minute")
    parser.add_argument("--seconds", type=float, default=20)
    options = parser.parse_args()
    rounds = 1 if options.quick else 3
    if options.quick:
        options.seconds = 2

    url = _database_url("overhead")
    _recreate_database(url)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "fuzzweb.settings", "LOG_LEVEL": "WARNING"}
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v", "0"], env=env, check=True)
    _setup_django(url)
    import django_rq

    django_rq.get_queue("engine-pyfunc").empty()
    worker = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "rqworker", "engine-pyfunc"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    direct, through = [], []
    try:
        for _ in range(rounds):
            direct.append(command_line_rate(options.seconds))
            through.append(campaign_rate(options.seconds))
            print(f"  command line {direct[-1]:8.0f} exec/s   campaign {through[-1]:8.0f} exec/s")
    finally:
        worker.terminate()
        worker.wait()
    ratio = max(through) / max(direct)
    print(f"overhead_ratio={ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
