"""Every page and endpoint needs a login, except the login page."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign, Target
from tests.integration.test_ingest import make_finding
from triage.ingest import finding_ingest

pytestmark = pytest.mark.django_db


def _all_paths(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _all_paths(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


@pytest.fixture
def objects():
    target = Target.objects.get(module="engines.demo.textkit")
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=10)
    finding = finding_ingest(submission=make_finding())
    return campaign, finding.bucket


def test_anonymous_requests_are_sent_to_login(client, objects):
    campaign, bucket = objects
    urls = [
        reverse("campaigns:list"),
        reverse("campaigns:new"),
        reverse("campaigns:detail", args=[campaign.pk]),
        reverse("campaigns:progress", args=[campaign.pk]),
        reverse("campaigns:function", args=[campaign.pk, "mean"]),
        reverse("triage:buckets"),
        reverse("triage:bucket", args=[bucket.pk]),
        reverse("triage:bucket_report", args=[bucket.pk]),
        "/rq/",
        "/",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302, url
        # The RQ dashboard is staff-only and sends to the admin's login.
        assert response["Location"].startswith((reverse("login"), reverse("admin:login"))), url
    for url in [reverse("campaigns:stop", args=[campaign.pk]), reverse("triage:bucket_edit", args=[bucket.pk])]:
        response = client.post(url, {"status": "fixed"})
        assert response.status_code == 302 and response["Location"].startswith(reverse("login")), url
    bucket.refresh_from_db()
    assert bucket.status == "new"


def test_every_url_pattern_is_covered_by_the_login_rule(client):
    # The admin has its own login page; every other page goes to ours.
    for path in _all_paths():
        if path.startswith(("admin/", "login/")) or any(c in path for c in "<^$("):
            continue
        response = client.get("/" + path)
        if path.startswith("api/"):
            # API calls answer 401 (with a JSON error), not a redirect.
            assert response.status_code == 401, path
            continue
        assert response.status_code in (302, 405), path
        if response.status_code == 302:
            assert "login" in response["Location"], path


def test_login_page_is_public(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b'name="password"' in response.content


def test_logging_in_reaches_the_dashboard(client, admin_user):
    response = client.post(reverse("login"), {"username": "maintainer", "password": "correct-horse-9"}, follow=True)
    assert response.status_code == 200
    assert response.request["PATH_INFO"] == reverse("campaigns:list")
