"""A target that does everything a target should never do to its fuzzer."""

import ctypes
import os
import sys


def segfault(flag: bool) -> None:
    ctypes.string_at(0)


def hang(n: int) -> None:
    while True:
        n += 1


def hang_on_odd(n: int) -> int:
    # Hangs on some inputs only: a bug, unlike hang(), which cannot be fuzzed.
    while n % 2:
        n -= 2
    return n


def eat_memory(n: int) -> None:
    blocks = []
    while True:
        # bytes(n) is calloc'd: the address space fills at once, without
        # touching every page, so the memory limit (not the call timeout of
        # a busy machine) is what stops it.
        blocks.append(bytes(32 * 1024 * 1024))


def exit_process(code: int) -> None:
    os._exit(3)


def chatter(text: str) -> None:
    # Output on the child's stdout and stderr must not corrupt the protocol.
    print("Traceback (most recent call last):\n" * 50)
    sys.stderr.write("garbage \x00\xff" * 100)
    raise ValueError("after chatter")


def leave(code: int) -> None:
    raise SystemExit(code)


def fork_bomb(n: int) -> None:
    while True:
        os.fork()


def allocate_50_gb(n: int) -> None:
    block = bytearray(50 * 1024**3)
    block[-1] = 1
