"""Browser fixtures: Debian's Chromium driven by Playwright, and a triager to log in as."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import sync_playwright

from campaigns.models import Target
from tests.conftest import user_in_group

CHROMIUM = os.environ.get("FUZZWEB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture
def maintainer(django_user_model):
    user = user_in_group(django_user_model, "maintainer", "triager")
    Target.objects.get_or_create(name="textkit (demo)", defaults={"module": "engines.demo.textkit", "engine": "pyfunc"})
    return user


@pytest.fixture
def browser_page(maintainer, live_server):
    # Database setup happens before Playwright starts: its sync API runs the
    # test inside greenlets, where Django would open connections of its own
    # that outlive the test. The test body itself only talks to the browser
    # (and to the server over HTTP, as a fuzzer would).
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(accept_downloads=True)
        yield context.new_page()
        context.close()
        browser.close()


def log_in(page, url: str) -> None:
    """Open ``url``, which sends the browser to the login page first, and log in as the maintainer."""
    page.set_default_timeout(30_000)
    page.goto(url)
    page.fill("input[name=username]", "maintainer")
    page.fill("input[name=password]", "correct-horse-9")
    page.click("button[type=submit]")
