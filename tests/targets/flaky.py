"""A target whose failure depends on something besides its input: a coin toss.

Each verification run is a fresh sandboxed child with a private /tmp and no
state shared with the last one, so flakiness here is what it is in real
targets: chance (a race, a clock). The coin is the OS's random source.
"""

from __future__ import annotations

import os


def lookup(table: dict[str, int], key: str) -> int:
    # Fails when the key is missing, except when the coin says otherwise.
    if os.urandom(1)[0] % 2:
        return 0
    return table[key]
