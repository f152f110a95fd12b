"""Reads for the function pages: a fuzzed function's source, coverage and examples."""

from __future__ import annotations

from collections import Counter

from campaigns.examples import line_ranges, merge, reaching
from campaigns.models import Campaign, FunctionExamples
from triage.highlight import highlighted, highlighted_lines


def function_coverage(campaign: Campaign) -> dict[str, dict]:
    """Per function name: lines reached of those that can run, and how many examples."""
    by_name: dict[str, list] = {}
    for name, executable, examples in FunctionExamples.objects.filter(campaign=campaign).values_list(
        "name", "executable_lines", "examples"
    ):
        by_name.setdefault(name, []).append((executable, examples))
    coverage = {}
    for name, rows in by_name.items():
        examples = merge([examples for _, examples in rows])
        executable = set(max((executable for executable, _ in rows), key=len))
        reached = {line for example in examples for line in example["lines"]}
        coverage[name] = {
            "reached": len(reached & executable) if executable else len(reached),
            "executable": len(executable),
            "examples": len(examples),
        }
    return coverage


def function_rows(campaign: Campaign, discovery: dict | None) -> list[dict]:
    """The campaign page's function list: each fuzzed function with its coverage, if known yet."""
    coverage = function_coverage(campaign)
    names = (discovery or {}).get("functions") or sorted(coverage)
    return [{"name": name, "coverage": coverage.get(name)} for name in names]


def function_page(campaign: Campaign, name: str, line: int | None = None) -> dict | None:
    """Everything the function page shows; None if no shard reported the function."""
    rows = list(FunctionExamples.objects.filter(campaign=campaign, name=name).order_by("-updated_at"))
    if not rows:
        return None
    latest = rows[0]
    examples = merge([row.examples for row in rows])
    executable = set(latest.executable_lines)
    counts = Counter(n for example in examples for n in example["lines"])
    lines = []
    for offset, html in enumerate(highlighted_lines(latest.source, "python")):
        number = latest.first_line + offset
        state = "reached" if counts[number] else "missed" if number in executable else ""
        lines.append({"number": number, "html": html, "state": state, "examples": counts[number]})
    shown = reaching(examples, line) if line is not None else examples
    # Lines of helpers in the same file count for the cover, but the page
    # shows this function: its ranges say which of its own lines ran.
    own = range(latest.first_line, latest.first_line + len(lines))
    return {
        "name": name,
        "module": latest.module,
        "file": latest.file,
        "updated_at": latest.updated_at,
        "lines": lines,
        "reached": len(set(counts) & executable),
        "executable": len(executable),
        "line": line,
        "total_examples": len(examples),
        "examples": [
            {
                **example,
                "call_html": highlighted(example["call"], "python"),
                "ranges": line_ranges([n for n in example["lines"] if n in own]),
            }
            for example in shown
        ],
    }
