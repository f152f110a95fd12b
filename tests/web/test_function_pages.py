"""Function pages: a fuzzed function's source, the lines its examples reach, and the examples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.launch import campaign_launch
from campaigns.models import Campaign, CampaignStatus, FunctionExamples, Shard, Target
from campaigns.sink import ShardSink
from tests.conftest import run_worker_burst

pytestmark = pytest.mark.django_db(transaction=True)

TARGETS = Path(__file__).resolve().parents[1] / "targets"
XSS = "<img src=x onerror=alert(1)>"


def branches_target() -> Target:
    return Target.objects.get_or_create(
        name="branches (tests)", defaults={"module": "branches", "search_path": str(TARGETS), "engine": "pyfunc"}
    )[0]


def _rows(html: str) -> dict[int, str]:
    """Source line number -> the row's class (reached, missed or nothing)."""
    return {
        int(n): cls
        for cls, n in re.findall(r'<tr id="L(?:\d+)" class="([^"]*)">\s*<td class="lineno">(?:<a[^>]*>)?(\d+)', html)
    }


@pytest.mark.worker
def test_a_campaign_stores_examples_and_the_pages_show_them(logged_in):
    with transaction.atomic():
        campaign = campaign_launch(target=branches_target(), time_budget_seconds=30, max_executions=3000, seed=3)
    result = run_worker_burst()
    assert result.returncode == 0, result.stderr[-3000:]
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FINISHED, campaign.error

    detail = logged_in.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    url = reverse("campaigns:function", args=[campaign.pk, "classify"])
    assert f'href="{url}"' in detail
    # Every line that can run was reached: 10 of 10 for classify.
    assert re.search(r"<code>classify</code></a></td>\s*<td class=\"num\">10 of 10</td>", detail)

    page = logged_in.get(url).content.decode()
    assert "10 of 10 lines reached" in page
    assert '<span class="k">def</span>' in page  # highlighted
    rows = _rows(page)
    assert set(rows.values()) <= {"reached", ""}
    assert sum(1 for cls in rows.values() if cls == "reached") == 10
    total = page.count('class="example example-')
    assert 3 <= total <= 6

    # Only the examples that run the line of `size = "big"`.
    source = FunctionExamples.objects.get(campaign=campaign, name="classify")
    big = source.first_line + source.source.splitlines().index('        size = "big"')
    filtered = logged_in.get(url, {"line": big}).content.decode()
    assert f"Examples that reach line {big}" in filtered
    shown = re.findall(r'<div class="example-lines muted">lines ([^<]*)</div>', filtered)
    assert len(shown) == 1 < total
    assert "&#x27;big&#x27;" in filtered or "BIG" in filtered


def test_first_word_example_shows_the_exception(logged_in):
    campaign, shard = _campaign()
    ShardSink(shard).examples(
        "first_word",
        {
            "module": "branches",
            "file": "/x/branches.py",
            "first_line": 20,
            "source": "def first_word(text: str) -> str:\n    return text.split()[0]\n",
            "executable_lines": [21],
            "examples": [
                {
                    "call": "first_word('')",
                    "outcome": "raised",
                    "result": "IndexError: list index out of range",
                    "lines": [21],
                },
                {"call": "first_word('a')", "outcome": "returned", "result": "'a'", "lines": [21]},
            ],
        },
    )
    page = logged_in.get(reverse("campaigns:function", args=[campaign.pk, "first_word"])).content.decode()
    assert "raises <code>IndexError: list index out of range</code>" in page
    assert "→ <code>&#x27;a&#x27;</code>" in page
    assert _rows(page) == {20: "", 21: "reached"}


def _campaign() -> tuple[Campaign, Shard]:
    campaign = Campaign.objects.create(target=branches_target(), engine="pyfunc", time_budget_seconds=10)
    return campaign, Shard.objects.create(campaign=campaign, index=0, seed=1)


def test_hostile_source_and_results_are_escaped(logged_in):
    campaign, shard = _campaign()
    ShardSink(shard).examples(
        XSS,
        {
            "module": XSS,
            "file": XSS,
            "first_line": "7; DROP",  # malformed: falls back to line 1
            "source": f"def f(x: str) -> str:\n    return '{XSS}'\n",
            "executable_lines": [2, "3", -1],
            "examples": [{"call": f"f('{XSS}')", "outcome": XSS, "result": XSS + "\x00\udcff", "lines": [2, None]}],
        },
    )
    Shard.objects.filter(pk=shard.pk).update(discovery={"functions": [XSS], "skipped": [{"name": XSS, "reason": XSS}]})
    stored = FunctionExamples.objects.get()
    assert stored.first_line == 1 and stored.executable_lines == [2]
    assert stored.examples[0]["outcome"] == "returned" and stored.examples[0]["lines"] == [2]
    for url in (
        reverse("campaigns:detail", args=[campaign.pk]),
        reverse("campaigns:function", args=[campaign.pk, XSS]),
    ):
        response = logged_in.get(url)
        assert response.status_code == 200
        assert XSS not in response.content.decode()
        assert "&lt;img src=x onerror=alert(1)&gt;" in response.content.decode()


def test_examples_of_two_shards_are_merged(logged_in):
    campaign, shard = _campaign()
    other = Shard.objects.create(campaign=campaign, index=1, seed=2)
    report = {
        "module": "m",
        "file": "m.py",
        "first_line": 1,
        "source": "def f(n: int) -> int:\n    if n:\n        return 1\n    return 0\n",
        "executable_lines": [2, 3, 4],
    }
    ShardSink(shard).examples(
        "f", {**report, "examples": [{"call": "f(0)", "outcome": "returned", "result": "0", "lines": [2, 4]}]}
    )
    ShardSink(other).examples(
        "f",
        {
            **report,
            "examples": [
                {"call": "f(1)", "outcome": "returned", "result": "1", "lines": [2, 3]},
                {"call": "f(0)", "outcome": "returned", "result": "0", "lines": [2, 4]},
            ],
        },
    )
    # A later report from the same shard replaces its earlier one.
    ShardSink(shard).examples(
        "f", {**report, "examples": [{"call": "f(0)", "outcome": "returned", "result": "0", "lines": [2, 4]}]}
    )
    assert FunctionExamples.objects.count() == 2
    page = logged_in.get(reverse("campaigns:function", args=[campaign.pk, "f"])).content.decode()
    assert "3 of 3 lines reached" in page
    assert page.count('class="example example-') == 2
    assert logged_in.get(reverse("campaigns:function", args=[campaign.pk, "g"])).status_code == 404
