"""Example calls per function: cleaning what the engine reports, merging shards, filtering by line.

Pure functions. The engine chooses each shard's examples; a campaign with
several shards has several sets, which are merged here by the same greedy
cover the engine uses, over lines and ways out (returned, raised X).
"""

from __future__ import annotations

from triage.text import clean, clean_short

MAX_CALL = 4_000
MAX_RESULT = 1_000
MAX_SOURCE = 64 * 1024
MAX_EXAMPLES = 12


def _lines(value) -> list[int]:
    if not isinstance(value, list):
        return []
    return sorted({n for n in value if type(n) is int and n > 0})


def examples_from_engine(report: dict) -> dict:
    """Model fields from an engine's examples report, capped and typed.

    The report carries text from the target's process (its source, reprs of
    its return values): stored as text, escaped wherever it is shown.
    """
    examples = []
    for item in report.get("examples", [])[:MAX_EXAMPLES]:
        if not isinstance(item, dict):
            continue
        examples.append(
            {
                "call": clean(str(item.get("call", "")), MAX_CALL),
                "outcome": "raised" if item.get("outcome") == "raised" else "returned",
                "result": clean(str(item.get("result", "")), MAX_RESULT),
                "lines": _lines(item.get("lines")),
            }
        )
    first_line = report.get("first_line")
    return {
        "module": clean_short(str(report.get("module", ""))),
        "file": clean(str(report.get("file", "")), MAX_CALL),
        "first_line": first_line if type(first_line) is int and first_line > 0 else 1,
        "source": clean(str(report.get("source", "")), MAX_SOURCE),
        "executable_lines": _lines(report.get("executable_lines")),
        "examples": examples,
    }


def _features(example: dict) -> set:
    # What an example shows: each line it runs, and its way out (returning,
    # or raising a given type), as the engine counts them.
    way_out = example["result"].split(":", 1)[0] if example["outcome"] == "raised" else ""
    return {("line", n) for n in example["lines"]} | {("exit", example["outcome"], way_out)}


def merge(example_sets: list[list[dict]], limit: int = MAX_EXAMPLES) -> list[dict]:
    """One set of examples from several shards': greedy cover, largest gain first, shorter call on a tie."""
    candidates = {}
    for examples in example_sets:
        for example in examples:
            candidates.setdefault(example["call"], example)
    remaining = list(candidates.values())
    chosen, covered = [], set()
    while remaining and len(chosen) < limit:
        best = max(remaining, key=lambda e: (len(_features(e) - covered), -len(e["call"])))
        gain = _features(best) - covered
        if not gain:
            break
        chosen.append(best)
        covered |= gain
        remaining.remove(best)
    return chosen


def reaching(examples: list[dict], line: int) -> list[dict]:
    """The examples that run ``line``."""
    return [example for example in examples if line in example["lines"]]


def line_ranges(lines: list[int]) -> str:
    """``[3, 4, 5, 9]`` -> ``"3–5, 9"``: which lines an example runs, briefly."""
    ranges, start, previous = [], None, None
    for line in sorted(lines):
        if start is None:
            start = previous = line
        elif line == previous + 1:
            previous = line
        else:
            ranges.append((start, previous))
            start = previous = line
    if start is not None:
        ranges.append((start, previous))
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in ranges)
