"""A target whose failure depends on something besides its input: every third call succeeds.

The count lives in a file, so it survives the fresh child each verification
run gets; tests reset it through ``COUNTER``.
"""

from __future__ import annotations

import os
import tempfile

COUNTER = os.path.join(tempfile.gettempdir(), f"fuzzweb-flaky-calls-{os.getuid()}")


def _next_call() -> int:
    try:
        with open(COUNTER) as handle:
            count = int(handle.read() or 0)
    except (OSError, ValueError):
        count = 0
    with open(COUNTER, "w") as handle:
        handle.write(str(count + 1))
    return count


def lookup(table: dict[str, int], key: str) -> int:
    # Fails when the key is missing, except on every third call (a race, a cache, a clock).
    if _next_call() % 3 == 2:
        return 0
    return table[key]
