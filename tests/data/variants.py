"""Realistic variants of a real trace: the same bug, hit again elsewhere.

Two hits of one bug differ in where the code was built (paths), which
revision it was (line numbers), where things sat in memory (addresses),
which input triggered it (numbers in messages) and how deep the stack went
below the crash. Each function applies one such difference; ``variant``
applies several, seeded, so the corpus is reproducible.
"""

from __future__ import annotations

import random
import re

# Only the directory a checkout or build sits in moves; the tree below it
# (glibc-2.31/, compiler-rt/lib/, site-packages/) is the same software.
_ABSOLUTE = re.compile(r"(?<![\w.])(/(?:home|Users|src|build|work|tmp|data|opt|root|var|srv|mnt)/[\w.+@-]+)/")
_WINDOWS = re.compile(r"\b([A-Z]):\\\\(?:Users|src|build|a)\\\\[\w.-]+")
_LINE_NUMBERS = re.compile(r"((?:\.(?:py|java|kt|cs|c|cc|cpp|h|rs|go)|line)[: ])(\d+)")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,16}")
_ELIDED = re.compile(r"^\s*\.\.\. \d+ more")  # a JVM frame count, not part of a message
_MESSAGE_NUMBER = re.compile(r"(?<=[\s\[(=:])\d{1,6}(?=[\s\]),.;]|$)", re.MULTILINE)


def relocate(text: str, rng: random.Random) -> str:
    """Move the checkout: /home/alice/proj/... -> /build/ci-1234/proj/..."""
    root = rng.choice(["/build/ci-" + str(rng.randrange(10_000)), "/home/fuzzer" + str(rng.randrange(100)), "/tmp/w"])
    text = _ABSOLUTE.sub(lambda m: root + "/", text)
    return _WINDOWS.sub(lambda m: f"{m.group(1)}:\\\\ci\\\\agent{rng.randrange(9)}", text)


def shift_lines(text: str, rng: random.Random) -> str:
    """An edit elsewhere in the files moved every line a little."""
    delta = rng.randint(1, 40)
    return _LINE_NUMBERS.sub(lambda m: m.group(1) + str(int(m.group(2)) + delta), text)


def move_addresses(text: str, rng: random.Random) -> str:
    """ASLR and another build: every address differs."""
    return _ADDRESS.sub(lambda m: "0x" + "".join(rng.choice("0123456789abcdef") for _ in m.group(0)[2:]), text)


def other_input(text: str, rng: random.Random) -> str:
    """Another failing input: the numbers in messages (sizes, indexes, values) change."""
    lines = text.splitlines(keepends=True)
    return "".join(
        line if _ELIDED.match(line) else _MESSAGE_NUMBER.sub(lambda m: str(int(m.group(0)) + rng.randint(1, 9)), line)
        for line in lines
    )


def deeper(text: str, rng: random.Random) -> str:
    """The crash happened with a deeper call chain below it (more recursion)."""
    lines = text.splitlines()
    python_repeat = [i for i, line in enumerate(lines) if "[Previous line repeated" in line]
    if python_repeat:
        i = python_repeat[0]
        return "\n".join(lines[:i] + [re.sub(r"\d+", str(rng.randint(100, 990)), lines[i])] + lines[i + 1 :]) + "\n"
    # JVM: repeat a frame of a recursive method, in the last exception of the
    # chain (frames of the ones before it are counted by "... N more").
    start = max((i for i, line in enumerate(lines) if line.lstrip().startswith("Caused by:")), default=0)
    for i in range(start, len(lines) - 1):
        if lines[i].strip().startswith("at ") and lines[i] == lines[i + 1]:
            return "\n".join(lines[: i + 1] + [lines[i]] * rng.randint(1, 6) + lines[i + 1 :]) + "\n"
    return text


STEPS = (relocate, shift_lines, move_addresses, other_input, deeper)


def variant(text: str, seed: int) -> str:
    """A variant of ``text`` with a seeded choice of the differences above."""
    rng = random.Random(seed)
    steps = [step for step in STEPS if rng.random() < 0.7] or [relocate, shift_lines]
    for step in steps:
        text = step(text, rng)
    return text
