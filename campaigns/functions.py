"""Reads for the function pages: a fuzzed function's source, coverage and examples."""

from __future__ import annotations

from collections import Counter

from campaigns.examples import line_ranges, merge, reaching
from campaigns.models import Campaign, FunctionExamples
from triage.highlight import highlighted, highlighted_lines
from triage.models import Finding
from triage.visibility import hidden_by_bucket


def _hidden_crashes(user, names) -> set[tuple[str, str]]:
    """(function, exception type) of the crashes in buckets ``user`` may not see.

    A raised example of such a function and type is the restricted bucket's
    crash shown by other means (its call, its message): it is left out, and
    so are the lines and counts it alone would add. Any campaign's finding
    counts, since the same testcase found again is stored once, under the
    campaign that found it first; a public crash of the same type in the same
    function is hidden with it rather than risk showing the restricted one.
    """
    rows = hidden_by_bucket(user, Finding.objects.filter(function__in=list(names)))
    return set(rows.values_list("function", "crash_type").distinct().order_by())


def _shown(examples: list[dict], name: str, hidden: set[tuple[str, str]]) -> list[dict]:
    if not hidden:
        return examples
    return [
        example
        for example in examples
        if not (example["outcome"] == "raised" and (name, example["result"].split(":", 1)[0]) in hidden)
    ]


def function_coverage(campaign: Campaign, *, user) -> dict[str, dict]:
    """Per function name: lines reached of those that can run, and how many examples (those ``user`` may see)."""
    by_name: dict[str, list] = {}
    for name, executable, examples in FunctionExamples.objects.filter(campaign=campaign).values_list(
        "name", "executable_lines", "examples"
    ):
        by_name.setdefault(name, []).append((executable, examples))
    hidden = _hidden_crashes(user, by_name)
    coverage = {}
    for name, rows in by_name.items():
        examples = merge([_shown(examples, name, hidden) for _, examples in rows])
        executable = set(max((executable for executable, _ in rows), key=len))
        reached = {line for example in examples for line in example["lines"]}
        coverage[name] = {
            "reached": len(reached & executable) if executable else len(reached),
            "executable": len(executable),
            "examples": len(examples),
        }
    return coverage


def function_rows(campaign: Campaign, discovery: dict | None, *, user) -> list[dict]:
    """The campaign page's function list: each fuzzed function with its coverage, if known yet."""
    coverage = function_coverage(campaign, user=user)
    names = (discovery or {}).get("functions") or sorted(coverage)
    return [{"name": name, "coverage": coverage.get(name)} for name in names]


def function_page(campaign: Campaign, name: str, line: int | None = None, *, user) -> dict | None:
    """Everything the function page shows ``user``; None if no shard reported the function."""
    rows = list(FunctionExamples.objects.filter(campaign=campaign, name=name).order_by("-updated_at"))
    if not rows:
        return None
    latest = rows[0]
    hidden = _hidden_crashes(user, [name])
    examples = merge([_shown(row.examples, name, hidden) for row in rows])
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
