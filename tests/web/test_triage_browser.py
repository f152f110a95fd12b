"""A maintainer's triage in a real browser: from the list to a labelled, assigned, commented bucket; regressions."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from tests.web.conftest import log_in
from triage.ingest import findings_ingest
from triage.labels import labels_ensure_defaults

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


@pytest.fixture
def two_buckets(maintainer) -> tuple[int, int]:
    labels_ensure_defaults()
    lookup = findings_ingest(submissions=[make_finding(call=f"lookup({i})") for i in range(3)]).findings[0]
    mean = findings_ingest(
        submissions=[make_finding(function="mean", error="ZeroDivisionError: division by zero", call="mean([])")]
    ).findings[0]
    return lookup.bucket_id, mean.bucket_id


def test_triage_a_new_bucket_from_the_list(two_buckets, browser_page, live_server, tmp_path):
    page = browser_page
    lookup, mean = two_buckets
    log_in(page, f"{live_server.url}/triage/buckets/")
    expect(page.locator("#bucket-table tbody tr")).to_have_count(2)

    # Filter: full-text search over the traces, then open the one bucket left.
    page.fill("#bucket-filters input[name=q]", "ZeroDivisionError")
    page.click("#filter")
    expect(page.locator("#bucket-table tbody tr")).to_have_count(1)
    page.click("#bucket-table a:has-text('ZeroDivisionError in mean')")
    expect(page.locator("#bucket-title")).to_have_text("ZeroDivisionError in mean")

    # Label and assign in one save.
    page.check("#label-choices label:has-text('generator bug') input")
    page.select_option("#triage-form select[name=assignee]", label="maintainer")
    page.select_option("#triage-form select[name=priority]", label="High")
    page.click("#triage-form button[type=submit]")
    expect(page.locator("#bucket-labels")).to_contain_text("generator bug")
    expect(page.locator("#bucket-assignee")).to_have_text("maintainer")
    expect(page.locator("#bucket-priority")).to_have_text("High")

    # A comment is shown as written, markup and all, never interpreted.
    page.fill("#comment-form textarea", f"<b>same as</b> #{lookup}?")
    page.click("#comment-form button")
    expect(page.locator("#comments")).to_contain_text(f"<b>same as</b> #{lookup}?")

    # Mark duplicate, then undo.
    page.fill("#duplicate-target", str(lookup))
    page.click("#duplicate-form button")
    expect(page.locator("#bucket-status")).to_have_text("Duplicate")
    expect(page.locator("#duplicate-of")).to_contain_text(f"#{lookup}")
    expect(page.locator("#bucket-hits")).to_have_text("0")
    page.click(f"#duplicate-of a:has-text('#{lookup}')")
    expect(page.locator("#bucket-hits")).to_have_text("4")
    expect(page.locator("#duplicates")).to_contain_text(f"#{mean}")
    page.go_back()
    page.click("#undo-duplicate-form button")
    expect(page.locator("#bucket-status")).to_have_text("New")
    expect(page.locator("#duplicate-of")).to_have_count(0)
    expect(page.locator("#bucket-hits")).to_have_text("1")

    # Every change is in the history, with who made it.
    history = page.locator(".events")
    for entry in ("label to generator bug", "assignee to maintainer", "priority from — to High", "comment"):
        expect(history).to_contain_text(entry)
    expect(history).to_contain_text("status from new to duplicate")
    expect(history).to_contain_text("status from duplicate to new")

    # Export the issue report as Markdown.
    page.click("#report summary")
    with page.expect_download() as download_info:
        page.click("#export-md")
    download = download_info.value
    assert download.suggested_filename == f"fuzzweb-bucket-{mean}.md"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    report = path.read_text()
    assert report.startswith("# ZeroDivisionError in mean\n")
    assert "mean([])" in report and "**Status:** New" in report


@pytest.fixture
def fixed_bucket(maintainer) -> tuple[int, str]:
    bucket = findings_ingest(submissions=[make_finding(call="lookup('ms')", versions={"python": "3.11.7"})]).findings[0]
    return bucket.bucket_id, api_token_create(user=maintainer, name="nightly fuzzer")[1]


def _submit(url: str, token: str, payload: dict) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the live test server
        return response.status


def test_a_fixed_bucket_hit_again_shows_up_as_a_regression(fixed_bucket, browser_page, live_server):
    page = browser_page
    bucket, token = fixed_bucket
    log_in(page, f"{live_server.url}/triage/buckets/{bucket}/")
    page.select_option("#triage-form select[name=status]", "fixed")
    page.click("#triage-form button[type=submit]")
    expect(page.locator("#bucket-status")).to_have_text("Fixed")
    expect(page.locator("#regression-flag")).to_have_count(0)

    # The nightly fuzzer finds it again, on a newer Python.
    submission = make_finding(call="lookup('again')", versions={"python": "3.12.1"})
    payload = {
        key: getattr(submission, key)
        for key in ("kind", "target", "engine", "function", "crash_type", "message", "trace", "testcase", "versions")
    }
    assert _submit(f"{live_server.url}/api/v1/findings", token, payload) == 201

    page.goto(f"{live_server.url}/triage/buckets/?regression=on")
    expect(page.locator("#bucket-table tbody tr")).to_have_count(1)
    expect(page.locator("#bucket-table tbody tr")).to_contain_text("regression")
    page.click("#bucket-table a:has-text('KeyError in lookup')")
    expect(page.locator("#bucket-status")).to_have_text("New")
    expect(page.locator("#regression-flag")).to_be_visible()
    expect(page.locator("#regression")).to_have_text(
        re.compile(r"fixed on python 3\.11\.7; hit again on python 3\.12\.1")
    )
    expect(page.locator(".events")).to_contain_text("status from fixed to new (regression: fixed on python 3.11.7")


@pytest.fixture
def hostile_overview(maintainer) -> None:
    title_trap = "<img src=x onerror=alert(1)>"
    findings_ingest(submissions=[make_finding(function="mean", error=f"ZeroDivisionError: {title_trap}")] * 3)
    findings_ingest(submissions=[make_finding(engine="<b>engine</b>", call="lookup(1)")])


def test_the_overview_draws_its_charts_and_shows_fuzzer_names_as_text(hostile_overview, browser_page, live_server):
    page = browser_page
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page, f"{live_server.url}/triage/overview/")
    for chart in ("findings-kind", "findings-engine", "new-buckets", "new-buckets-engine", "funnel", "durations"):
        expect(page.locator(f"#chart-{chart} .main-svg").first).to_be_visible()
    # The engine's name is a legend entry, drawn as the text it is.
    expect(page.locator("#chart-findings-engine .legendtext", has_text="<b>engine</b>")).to_have_count(1)
    expect(page.locator("#chart-new-buckets-engine .legendtext", has_text="<b>engine</b>")).to_have_count(1)
    expect(page.locator("#top-day tbody tr")).to_have_count(2)
    expect(page.locator("#top-day tbody tr").first).to_contain_text("ZeroDivisionError in mean")
    assert dialogs == []
    # Counts of a day or two are small: their axes are labelled in whole numbers (no 0.5 between 0 and 1).
    for chart in ("findings-kind", "findings-engine", "new-buckets", "new-buckets-engine"):
        labels = page.locator(f"#chart-{chart} .ytick text").all_text_contents()
        assert labels and all(re.fullmatch(r"\d+", label) for label in labels), (chart, labels)
        assert labels[:2] == ["0", "1"], (chart, labels)
    labels = page.locator("#chart-funnel .xtick text").all_text_contents()
    assert all(re.fullmatch(r"\d+", label) for label in labels), labels
