"""Kotlin files per hour through the K2 backend: one warm compiler against a cold kotlinc per file.

Files from ``engines/differential/kotlingen.py`` go through ``harness.process``
with the K2 backend of the default kotlinc, compiled and run in the sandbox
as a campaign does it, two ways:

- warm: ``kotlin.backends()``, whose compiles one long-lived compiler JVM
  serves (``engines/differential/kotlin_server.py``); it starts inside the
  timed run, so its start and JIT warm-up count against it;
- cold: ``kotlin.backends(warm=False)``, a new kotlinc for every file.

Each gets the same wall-clock budget, in interleaved slices so that other
load on the machine falls on both alike, on the same stream of generated
files (the cold side gets through a prefix of it). On the files both got
through, their outcomes and outputs are compared: the warm compiler must
give what the cold one gives.

Last line: ``files_per_hour warm=<x> cold=<y> ratio=<r>``; the aim is
ratio >= 10 (kotlin_server's docstring says where the time goes).

    .venv/bin/python bench/kotlin_throughput.py [--quick] [--seconds 300] [--slices 6]

--quick: the same file each way, no budget and no aim (what `make test`
runs: that it still runs, not a figure).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines import sandbox  # noqa: E402
from engines.differential import backends, harness, kotlin, kotlingen  # noqa: E402

AIM = 10.0


class Side:
    """One way of compiling: its backend, how far it got in the file stream, and what each file gave."""

    def __init__(self, name: str, backend: backends.Backend):
        self.name, self.backend = name, backend
        self.seconds = 0.0
        self.results: list[tuple] = []

    def step(self, program: str) -> None:
        started = time.perf_counter()
        (result,) = harness.process(program, ".kt", [self.backend], sandbox.Limits())
        self.seconds += time.perf_counter() - started
        self.results.append((result.stage, result.outcome, result.exit_status, result.stdout))

    @property
    def per_hour(self) -> float:
        return len(self.results) / self.seconds * 3600 if self.seconds else 0.0


def k2(listed: list[backends.Backend]) -> backends.Backend:
    return next(backend for backend in listed if backend.name == "kotlin-k2")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 file each way, no budget, no aim")
    parser.add_argument("--seconds", type=float, default=300.0, help="wall-clock budget of each way")
    parser.add_argument("--slices", type=int, default=6, help="interleaved slices the budget is cut into")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    warm_backend, cold_backend = k2(kotlin.backends()), k2(kotlin.backends(warm=False))
    if not warm_backend.available():
        print("kotlinc or java is missing (make kotlin)")
        print("files_per_hour warm=n/a cold=n/a ratio=n/a")
        return 0
    print(f"kotlinc: {backends.version_of(warm_backend)}")  # read once, as a campaign does, untimed
    rng = random.Random(args.seed)
    stream: list[str] = []

    def program(index: int) -> str:
        while len(stream) <= index:
            stream.append(kotlingen.generate(rng).text)
        return stream[index]

    warm, cold = Side("warm", warm_backend), Side("cold", cold_backend)
    if args.quick:
        for side in (warm, cold):
            side.step(program(0))
    else:
        # Generation is not what is measured: each side's clock runs only around harness.process.
        slice_seconds = args.seconds / args.slices
        for number in range(args.slices):
            for side in (cold, warm) if number % 2 else (warm, cold):
                until = side.seconds + slice_seconds
                while side.seconds < until:
                    side.step(program(len(side.results)))
            print(
                f"slice {number + 1}/{args.slices}: warm {len(warm.results)} files in {warm.seconds:.0f} s, "
                f"cold {len(cold.results)} files in {cold.seconds:.0f} s",
                flush=True,
            )
    server = warm_backend.server
    both = min(len(warm.results), len(cold.results))
    differing = [index for index in range(both) if warm.results[index] != cold.results[index]]
    outcomes = sorted({result[1] for result in warm.results})
    print(f"warm compiler: {server.starts} start(s), {server.cold_compiles} file(s) compiled cold instead")
    print(f"outcomes (warm): {', '.join(outcomes)}")
    print(f"same outcome and output on {both - len(differing)} of the {both} files both compiled")
    for index in differing[:5]:
        print(f"  file {index}: warm {warm.results[index][:3]} cold {cold.results[index][:3]}")
    server.stop()
    ratio = warm.per_hour / cold.per_hour if cold.per_hour else 0.0
    if not args.quick:
        print(f"aim ratio >= {AIM:g}: {'met' if ratio >= AIM else 'NOT met'}")
    print(f"files_per_hour warm={warm.per_hour:.0f} cold={cold.per_hour:.0f} ratio={ratio:.1f}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
