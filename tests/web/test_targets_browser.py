"""A user-defined target through the browser: define backends, Try it, save, launch, and the planted bug's bucket.

The compiler under test is tests/data/planted/buggy_cc.py: gcc with a
planted miscompilation (a left shift by 3 compiled as a shift by 2). It is
defined on the Targets page as one backend against plain gcc, with the test
generator tests/data/planted/gen_c.py as a command generator.
"""

from __future__ import annotations

import re

import django_rq
import pytest
from playwright.sync_api import expect

from tests.conftest import BASE_DIR
from tests.web.conftest import log_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser, pytest.mark.worker]

PLANTED = BASE_DIR / "tests" / "data" / "planted"


def test_a_planted_bug_compiler_defined_in_the_browser_becomes_a_reduced_bucket(
    maintainer, live_server, rq_workers, browser_page, settings
):
    # A short reduction budget: the test wants a reduced program, not the smallest one.
    settings.FUZZWEB_REDUCTION_SECONDS = 20
    django_rq.get_queue("reduce").empty()
    rq_workers(
        1,
        queues=["engine-differential", "reduce"],
        env={"FUZZWEB_REDUCTION_SECONDS": "20", "FUZZWEB_SHAPE_SECONDS": "20"},
    )
    page = browser_page
    log_in(page, live_server.url + "/campaigns/targets/")
    page.click("#new-target")
    page.fill("#id_name", "planted shift (browser)")
    page.fill("#id_language", "c")
    page.select_option("#id_generator", "command")
    page.fill("#id_generator_command", f"python3 {PLANTED}/gen_c.py {{seed}} {{out}}")
    page.fill("#id_reference", "gcc-O1")
    page.fill("#id_backend-0-name", "gcc-O1")
    page.fill("#id_backend-0-compile", "gcc -O1 -w -o {binary} {source}")
    page.fill("#id_backend-0-run", "{binary}")
    page.fill("#id_backend-1-name", "buggy-O1")
    # A broken template first: Try it shows the compiler's complaint at once.
    page.fill("#id_backend-1-compile", f"python3 {PLANTED}/buggy_cc.py -O1 -w --no-such-flag -o {{binary}} {{source}}")
    page.fill("#id_backend-1-run", "{binary}")
    page.click("#try-it")
    expect(page.locator("#trial-state")).to_have_text("Done.", timeout=90_000)
    grid = page.locator("#trial-grid")
    expect(grid).to_contain_text("compile: rejected")
    grid.locator("details summary", has_text="stderr").first.click()
    expect(grid).to_contain_text("--no-such-flag")

    # Fixed, and saved.
    page.fill("#id_backend-1-compile", f"python3 {PLANTED}/buggy_cc.py -O1 -w -o {{binary}} {{source}}")
    page.click("#save-target")
    expect(page.locator("body")).to_contain_text("Target planted shift (browser) created.")
    expect(page.locator("table")).to_contain_text("gcc-O1, buggy-O1")

    page.goto(live_server.url + "/campaigns/new/")
    page.select_option("#id_target", label="planted shift (browser)")
    page.fill("input[name=time_budget_seconds]", "10")
    page.fill("input[name=shard_count]", "1")
    page.click("#launch")
    expect(page.locator(".status")).to_have_text(re.compile("Finished"), timeout=90_000)

    page.goto(live_server.url + "/triage/buckets/")
    page.locator("table a", has_text="buggy-O1").first.click()
    expect(page.locator("#outcome-grid")).to_contain_text("wrong_output")
    # Reduced in the background. The planted compiler is neither gcc nor clang, so each finding is also
    # reduced for its culprit and moved on to the bucket of its reduced program's shape: whichever bucket
    # ends up with the reduction, one shows the smallest program that still shows the planted shift.
    for _ in range(120):  # the pages are not live: a triager reloads them (a slow machine reduces slowly)
        page.goto(live_server.url + "/triage/buckets/")
        links = [link.get_attribute("href") for link in page.locator("table a", has_text="buggy-O1").all()]
        for href in links:
            page.goto(live_server.url + href)
            if page.locator("#reduction-reduced").count():
                break
        else:
            page.wait_for_timeout(3000)
            continue
        break
    reduced = page.locator("#reduction-reduced").inner_text()
    original = page.locator("#reduction-original").inner_text()
    assert "<< 3" in reduced
    assert len(reduced) < len(original)
