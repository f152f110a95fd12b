"""Crashes whose innermost frame is not the function a maintainer would name (tests/crashes/test_titles.py)."""

import json


def spread(values: list[int]) -> float:
    # The division fails in the generator expression's own frame, inside spread.
    return max(abs(value) / (value - value) for value in values)


def depth(n: int) -> int:
    # Recursion runs out inside the engine's coverage tracer, called for every line of this frame.
    return depth(n + 1) + 1


def parse(text: str) -> dict:
    # Fails inside the standard library's json decoder.
    return json.loads(text)
