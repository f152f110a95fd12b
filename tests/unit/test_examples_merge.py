"""Merging the shards' examples and describing their lines: pure functions."""

from __future__ import annotations

from campaigns.examples import line_ranges, merge, reaching


def _example(call, lines, outcome="returned", result="None"):
    return {"call": call, "outcome": outcome, "result": result, "lines": lines}


def test_merge_keeps_one_example_per_new_line_or_way_out():
    a = _example("f(0)", [2, 4])
    b = _example("f(1)", [2, 3])
    c = _example("f(10)", [2, 3])  # adds nothing b does not
    d = _example("f(-1)", [2, 3], "raised", "ValueError: negative")  # same lines, another way out
    merged = merge([[a, c], [b, d, a]])
    # f(0) adds lines 2 and 4 and returning; f(-1) adds line 3 and raising;
    # then f(1) and f(10) add nothing.
    assert [e["call"] for e in merged] == ["f(0)", "f(-1)"]
    assert [e["call"] for e in merge([[a, b, c]])] == ["f(0)", "f(1)"]


def test_reaching_and_ranges():
    examples = [_example("f(0)", [2, 4]), _example("f(1)", [2, 3])]
    assert [e["call"] for e in reaching(examples, 3)] == ["f(1)"]
    assert reaching(examples, 9) == []
    assert line_ranges([9, 3, 4, 5, 11, 12]) == "3–5, 9, 11–12"
    assert line_ranges([]) == ""
