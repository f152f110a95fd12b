"""The main path in a real browser: log in, launch, watch, triage, export.

Headless Chromium (Debian's, driven by Playwright) against a live server,
with a real RQ worker running the campaign.
"""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from playwright.sync_api import expect

from campaigns.launch import campaign_launch
from campaigns.models import Campaign, CampaignStatus, Target
from tests.conftest import wait_for
from tests.integration.test_differential_campaign import miscompile_into
from tests.web.conftest import log_in as _log_in
from tests.web.test_function_pages import branches_target
from triage.models import Bucket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.worker]


@pytest.fixture
def page(maintainer, live_server, rq_worker, browser_page):
    return browser_page


def test_launch_watch_triage_and_export(page, live_server, tmp_path):
    page.set_default_timeout(30_000)

    page.goto(live_server.url + "/campaigns/")
    expect(page).to_have_url(re.compile(r"/login/\?next="))
    page.fill("input[name=username]", "maintainer")
    page.fill("input[name=password]", "correct-horse-9")
    page.click("button[type=submit]")
    expect(page.get_by_role("heading", name="Campaigns")).to_be_visible()

    page.click("text=Launch a campaign")
    page.select_option("select[name=target]", label="textkit (demo)")
    page.fill("input[name=time_budget_seconds]", "20")
    page.fill("input[name=shard_count]", "1")
    page.click("#launch")

    # The page refreshes itself: no reload, and the rows appear as found.
    expect(page.locator("#status")).to_have_text(re.compile("Running|Finished"), timeout=30_000)
    expect(page.locator("#buckets tr")).to_have_count(5, timeout=30_000)
    expect(page.locator("#executions")).not_to_have_text("0")

    page.locator("#buckets a", has_text="ZeroDivisionError in mean").click()
    expect(page.locator("#reproducer .highlight")).to_contain_text("from engines.demo.textkit import mean")
    expect(page.locator("#input .highlight")).to_contain_text("mean([])")
    expect(page.locator("#trace .highlight .gr")).to_have_text("ZeroDivisionError")

    page.select_option("#triage-form select[name=status]", "confirmed")
    page.click("#triage-form button[type=submit]")
    expect(page.locator("#bucket-status")).to_have_text("Confirmed")
    page.reload()
    expect(page.locator("#bucket-status")).to_have_text("Confirmed")

    with page.expect_download() as download_info:
        page.click("#export-markdown")
    download = download_info.value
    assert re.fullmatch(r"fuzzweb-bucket-\d+\.md", download.suggested_filename)
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    report = path.read_text()
    assert report.startswith("# ZeroDivisionError in mean")
    assert "mean([])" in report
    assert "**Status:** Confirmed" in report


POINTS_JS = """id => {
  const chart = document.getElementById(id);
  return chart && chart.data ? chart.data.reduce((n, trace) => n + trace.x.length, 0) : 0;
}"""


def _points(page, chart_id: str) -> int:
    return page.evaluate(POINTS_JS, chart_id)


def test_campaign_chart_updates_while_it_runs(page, live_server, rq_workers):
    rq_workers(1)  # a second worker: this campaign has two shards
    _log_in(page, live_server.url + "/login/")
    page.goto(live_server.url + "/campaigns/new/")
    # The demo target by name: the engines' default targets come first in the list otherwise.
    page.select_option("select[name=target]", label="textkit (demo)")
    page.fill("input[name=time_budget_seconds]", "15")
    page.fill("input[name=shard_count]", "2")
    page.click("#launch")
    url = page.url

    # The rate chart gets points while the campaign runs, without a reload.
    page.wait_for_function(
        "() => document.getElementById('chart-rate').data && document.getElementById('chart-rate').data.length === 2",
        timeout=30_000,
    )
    first = _points(page, "chart-rate")
    page.wait_for_function(
        f"() => document.getElementById('chart-rate').data.reduce((n, t) => n + t.x.length, 0) > {first + 2}",
        timeout=20_000,
    )
    assert page.url == url
    legend = page.locator("#chart-rate .legendtext").all_text_contents()
    assert legend == ["shard 0", "shard 1"]
    assert _points(page, "chart-findings") > 0
    expect(page.locator("#shards tr")).to_have_count(2)
    # Findings and buckets are counted: whole-number ticks on both axes, however few there are.
    for axis in ("ytick", "y2tick"):
        labels = page.locator(f"#chart-findings .{axis} text").all_text_contents()
        assert labels and all(re.fullmatch(r"\d+", label) for label in labels), (axis, labels)
    assert page.evaluate("() => document.getElementById('chart-findings').layout.yaxis2.tickformat") == "d"


@pytest.fixture
def branches_campaign(maintainer, rq_worker) -> int:
    """A finished campaign on tests/targets/branches.py, run by the real worker."""
    with transaction.atomic():
        campaign = campaign_launch(target=branches_target(), time_budget_seconds=30, max_executions=3000, seed=3)
    wait_for(lambda: Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.FINISHED, timeout=90)
    return campaign.pk


def test_function_page_filters_examples_by_line(branches_campaign, page, live_server):
    _log_in(page, f"{live_server.url}/campaigns/{branches_campaign}/")

    page.locator("#functions a", has_text="classify").click()
    expect(page.locator("#line-summary")).to_have_text("10 of 10 lines reached")
    expect(page.locator("#source .k").first).to_have_text("def")
    examples = page.locator("#example-list li")
    total = examples.count()
    assert total >= 3

    # The line that makes a word shout: only the examples with a "!" reach it.
    shout = page.locator("#source tr", has_text="return size.upper()")
    shout.locator(".lineno a").click()
    expect(page.locator("#example-filter")).to_contain_text(f"of {total}")
    expect(page.locator("#source tr.selected")).to_have_count(1)
    expect(page.locator("#source tr.selected")).to_contain_text("return size.upper()")
    calls = page.locator("#example-list .example-call").all_text_contents()
    assert calls and len(calls) < total
    assert all("'!" in call for call in calls), calls

    page.click("#show-all")
    expect(examples).to_have_count(total)


@pytest.fixture
def miscompiled_bucket(maintainer) -> int:
    """A bucket of a real harness run in which one backend corrupts the program's output."""
    target = Target.objects.get_or_create(name="C compilers (Csmith)", defaults={"engine": "diff-c"})[0]
    campaign = Campaign.objects.create(target=target, engine="diff-c", time_budget_seconds=10)
    miscompile_into(campaign)
    return Bucket.objects.get().pk


def test_differential_finding_shows_its_grid_and_diverging_line(miscompiled_bucket, page, live_server):
    _log_in(page, f"{live_server.url}/triage/buckets/{miscompiled_bucket}/")

    grid = page.locator("#outcome-grid tbody tr")
    expect(grid).to_have_count(3)
    expect(page.locator("#outcome-grid tr.reference")).to_contain_text("gcc-O0")
    expect(page.locator("#outcome-grid tr.outcome-wrong_output")).to_contain_text("gcc-corrupt")
    # The outputs side by side: the reference's line and the diverging one, marked.
    columns = page.locator("#outputs .output-column")
    expect(columns).to_have_count(2)
    expect(columns.nth(0).locator("li").first).to_have_text("checksum = 1234")
    expect(columns.nth(1).locator("li.diverges")).to_have_text("checksum = 1235")
    expect(page.locator("#generator")).to_contain_text("csmith --seed 77")
    # The program, highlighted as C, its hostile comment inert.
    expect(page.locator("#input .highlight .cp").first).to_contain_text("#include")
    assert page.evaluate("() => document.querySelectorAll('#input script').length") == 0


@pytest.fixture
def differential_targets(maintainer) -> None:
    for name, engine in (("C compilers (Csmith)", "diff-c"), ("Kotlin compiler (K1 against K2)", "diff-kotlin")):
        Target.objects.get_or_create(name=name, defaults={"engine": engine})


VISIBLE_BACKENDS_JS = """() => [...document.querySelectorAll('#id_backends input')]
  .filter(input => input.offsetParent !== null && !input.disabled).map(input => input.value)"""


def test_the_launch_form_offers_the_backends_of_the_chosen_targets_language(differential_targets, page, live_server):
    _log_in(page, f"{live_server.url}/campaigns/new/")
    page.wait_for_selector("#launch-form[data-ready]", state="attached")

    page.select_option("select[name=target]", label="Kotlin compiler (K1 against K2)")
    assert page.evaluate(VISIBLE_BACKENDS_JS) == ["kotlin-k1", "kotlin-k2"]
    page.select_option("select[name=target]", label="C compilers (Csmith)")
    c_backends = page.evaluate(VISIBLE_BACKENDS_JS)
    assert {"gcc-O0", "clang-O2", "tcc"} <= set(c_backends) and "kotlin-k1" not in c_backends
    assert "kotlin-k2" not in page.locator("#id_reference option:not([hidden])").all_text_contents()
    page.select_option("select[name=target]", label="textkit (demo)")
    expect(page.locator("#id_backends")).to_be_hidden()
    expect(page.locator("#id_reference")).to_be_hidden()

    # Launched with two C compilers after looking at Kotlin's: the hidden choices are not sent along
    # (the server would refuse kotlin-k1 for a C target).
    page.select_option("select[name=target]", label="Kotlin compiler (K1 against K2)")
    page.check("#id_backends input[value=kotlin-k1]")
    page.select_option("select[name=target]", label="C compilers (Csmith)")
    page.check("#id_backends input[value=gcc-O0]")
    page.check("#id_backends input[value=gcc-O2]")
    page.fill("input[name=time_budget_seconds]", "30")
    page.fill("input[name=shard_count]", "1")
    page.fill("input[name=max_executions]", "1")
    page.click("#launch")
    expect(page.locator("h1")).to_contain_text("C compilers (Csmith)")
    expect(page.locator("#status")).to_have_text("Finished", timeout=60_000)


@pytest.fixture
def differential_bucket(db):
    from tests.integration.test_reduction import TWO_DIFFERENCES, _program_finding

    return _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython").bucket


def test_an_uploaded_reduction_is_verified_and_shown_beside_the_original(
    differential_bucket, page, live_server, rq_workers
):
    import django_rq

    django_rq.get_queue("reduce").empty()
    rq_workers(1, queues=["reduce"])
    _log_in(page, f"{live_server.url}/triage/buckets/{differential_bucket.pk}/")
    expect(page.locator("#reduction")).to_contain_text("Not reduced yet.")

    # A version that does not reproduce is refused, and the page says why without a reload.
    page.click("#upload summary")
    page.fill("#id_text", 'print("the same everywhere")')
    page.click("#upload-form button[type=submit]")
    expect(page.locator("#reduction-latest-state")).to_have_text("Refused", timeout=60_000)
    expect(page.locator("#reduction-message")).to_contain_text("refused: it does not reproduce")

    smaller = "import sys\ntry:\n    assert 0\n    print(1)\nexcept AssertionError:\n    print(2)\n"
    smaller += "print(sys.implementation.name)"
    page.click("#upload summary")
    page.fill("#id_text", smaller)
    page.click("#upload-form button[type=submit]")
    expect(page.locator("#reduction-reliability")).to_have_text("5 of 5 runs", timeout=60_000)
    expect(page.locator("#reduction-reduced")).to_contain_text("sys.implementation.name")
    expect(page.locator("#reduction-original")).to_contain_text("class Box")
    expect(page.locator("#reduction-reducer")).to_contain_text("uploaded (maintainer)")
    page.click("#reduction-diff summary")
    expect(page.locator("#reduction-diff")).to_contain_text("-class Box:")
