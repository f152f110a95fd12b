"""Viewers read everything and change nothing; triagers change what their forms offer."""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign, Target
from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.models import Bucket, BucketEvent, Comment, Finding, Label

pytestmark = pytest.mark.django_db


def _patterns(resolver=None, prefix=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _patterns(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


def _fill(path: str, ids: dict) -> str | None:
    """A concrete URL for a pattern with <int:pk>/<str:name> parts; None for regex patterns."""
    if any(c in path for c in "^$("):
        return None
    return "/" + re.sub(r"<(\w+:)?(\w+)>", lambda m: str(ids.get(m.group(2), 1)), path)


@pytest.fixture
def world(default_labels):
    target = Target.objects.get(module="engines.demo.textkit")
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=10)
    findings = findings_ingest(submissions=[make_finding(call=f"lookup({i})") for i in range(3)]).findings
    other = findings_ingest(submissions=[make_finding(function="mean", error="ZeroDivisionError: x")]).findings[0]
    return campaign, findings[0].bucket, other.bucket


def test_a_viewer_can_read_every_page_but_change_nothing(client, viewer, world):
    campaign, bucket, other = world
    client.force_login(viewer)
    ids = {"pk": bucket.pk, "name": "mean"}
    for page in ["campaigns:list", "triage:buckets", "triage:findings", "triage:overview"]:
        assert client.get(reverse(page)).status_code == 200, page
    page = client.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    # No form that changes something is even shown.
    for form in ("triage-form", "comment-form", "duplicate-form", "upload-form", "reduce-again", "split"):
        assert f'id="{form}"' not in page, form

    before = (Bucket.objects.values_list("pk", "status", "assignee", "muted", "hit_count").order_by("pk"),)
    before = [list(q) for q in before]
    posted = 0
    for path in _patterns():
        url = _fill(path, ids)
        if url is None or url.startswith(("/admin/", "/rq/", "/login/", "/logout/", "/api/")):
            continue
        response = client.post(url, {"status": "fixed", "text": "x", "target": other.pk, "buckets": [bucket.pk]})
        assert response.status_code in (403, 404, 405), (url, response.status_code)
        posted += response.status_code == 403
    assert posted >= 15  # every triage action, upload, reduce, campaign actions, tokens
    after = [list(Bucket.objects.values_list("pk", "status", "assignee", "muted", "hit_count").order_by("pk"))]
    assert after == before
    assert not BucketEvent.objects.exists() and not Comment.objects.exists()
    assert Campaign.objects.count() == 1 and not viewer.api_tokens.exists()


def test_a_viewers_token_reads_the_api_but_cannot_ingest(client, viewer, world):
    token = api_token_create(user=viewer, name="read only")[1]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    assert client.get("/api/v1/openapi.json", **auth).status_code == 200
    before = Finding.objects.count()
    response = client.post(
        "/api/v1/findings", {"kind": "crash", "target": "t"}, content_type="application/json", **auth
    )
    assert response.status_code == 403 and "read" in response.json()["error"]
    assert Finding.objects.count() == before


def test_a_triager_edits_a_bucket_and_every_change_is_audited(client, triager, world):
    _, bucket, other = world
    client.force_login(triager)
    label = Label.objects.get(name="invalid input")
    response = client.post(
        reverse("triage:bucket_edit", args=[bucket.pk]),
        {"status": "confirmed", "assignee": triager.pk, "priority": "2", "labels": [label.pk], "muted": "on"},
    )
    assert response.status_code == 302
    bucket.refresh_from_db()
    assert (bucket.status, bucket.assignee, bucket.priority, bucket.muted) == ("confirmed", triager, 2, True)
    fields = sorted(BucketEvent.objects.filter(bucket=bucket).values_list("field", flat=True))
    assert fields == ["assignee", "label", "muted", "priority", "status"]

    client.post(reverse("triage:bucket_comment", args=[bucket.pk]), {"text": "<script>alert(1)</script>"})
    page = client.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page

    client.post(reverse("triage:bucket_duplicate", args=[other.pk]), {"target": bucket.pk})
    other.refresh_from_db()
    assert other.duplicate_of_id == bucket.pk
    client.post(reverse("triage:bucket_duplicate_undo", args=[other.pk]))
    other.refresh_from_db()
    assert other.duplicate_of_id is None and other.status == "new"
    # A duplicate of a bucket that does not exist is refused with a message, and nothing moves.
    response = client.post(reverse("triage:bucket_duplicate", args=[other.pk]), {"target": 999_999}, follow=True)
    assert "No bucket #999999" in response.content.decode()

    chosen = list(bucket.findings.values_list("pk", flat=True)[:2])
    response = client.post(reverse("triage:bucket_split", args=[bucket.pk]), {"findings": chosen})
    new = Bucket.objects.get(pk=int(response["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert sorted(new.findings.values_list("pk", flat=True)) == sorted(chosen)


def test_bulk_actions_change_only_the_selected_buckets(client, triager, world):
    _, bucket, other = world
    client.force_login(triager)
    response = client.post(
        reverse("triage:buckets_bulk"),
        {"buckets": [bucket.pk], "action": "status", "status": "wontfix", "next": "/triage/buckets/?kind=crash"},
    )
    assert response["Location"] == "/triage/buckets/?kind=crash"
    assert Bucket.objects.get(pk=bucket.pk).status == "wontfix" and Bucket.objects.get(pk=other.pk).status == "new"
    response = client.post(
        reverse("triage:buckets_bulk"),
        {"buckets": [bucket.pk, other.pk], "action": "mute", "next": "https://evil.example/"},
    )
    assert response["Location"] == "/triage/buckets/"
    assert Bucket.objects.filter(muted=True).count() == 2


def test_the_lists_filter_search_and_sort(client, triager, world):
    campaign, bucket, other = world
    client.force_login(triager)
    findings_ingest(submissions=[make_finding(function="mean", error="ZeroDivisionError: x", call="mean(7)")] * 4)

    def titles(**params):
        content = client.get(reverse("triage:buckets"), params).content.decode()
        return re.findall(r'<a href="/triage/buckets/(\d+)/">', content)

    assert titles(sort="hits") == [str(other.pk), str(bucket.pk)]
    assert titles(q="ZeroDivisionError") == [str(other.pk)]
    assert titles(q="TABLE lookup") == [str(bucket.pk)]  # every word, anywhere in trace or program
    assert titles(q="nowhere-to-be-found") == []
    assert titles(kind="timeout") == []
    assert sorted(titles(assignee="none")) == sorted([str(other.pk), str(bucket.pk)])
    assert titles(assignee=str(triager.pk)) == []
    assert titles(target="app.units", sort="first_seen") == [str(other.pk), str(bucket.pk)]
    assert titles(engine="no-such-engine") == []
    findings = client.get(reverse("triage:findings"), {"q": "mean", "sort": "hits"}).content.decode()
    assert findings.count("<tr><td>") == 2 and "mean(7)" not in findings  # a list of rows, not of testcases

    # The finding list filters by its buckets' status, assignee and label too.
    label = Label.objects.get(name="invalid input")
    client.post(
        reverse("triage:bucket_edit", args=[bucket.pk]),
        {"status": "confirmed", "assignee": triager.pk, "priority": "0", "labels": [label.pk]},
    )

    def finding_buckets(**params):
        content = client.get(reverse("triage:findings"), params).content.decode()
        return set(re.findall(r'href="/triage/buckets/(\d+)/"', content))

    mine = {str(bucket.pk)}
    assert finding_buckets(assignee=str(triager.pk)) == mine
    assert finding_buckets(status="confirmed") == mine and finding_buckets(label=label.pk) == mine
    assert finding_buckets(assignee="none") == {str(other.pk)} and finding_buckets(status="fixed") == set()


def test_every_page_answers_each_role_as_its_permissions_say(client, viewer, triager, admin_user, world):
    """GET: every role reads every page. POST: viewers are refused everywhere, triagers nowhere, admins too."""
    _, bucket, other = world
    ids = {"pk": bucket.pk, "name": "mean"}
    urls = [
        url
        for url in (_fill(path, ids) for path in _patterns())
        if url and not url.startswith(("/admin/", "/rq/", "/login/", "/logout/", "/api/"))
    ]
    for user, may_change in ((viewer, False), (triager, True), (admin_user, True)):
        client.force_login(user)
        for url in urls:
            response = client.get(url)
            # Reports download, POST-only actions answer 405, a page of a missing function 404.
            assert response.status_code in (200, 302, 404, 405), (user, url, response.status_code)
            assert response.status_code != 403, (user, url)
        posted = client.post(reverse("triage:bucket_comment", args=[other.pk]), {"text": f"by {user}"})
        assert (posted.status_code == 403) is not may_change, user
    assert other.comments.count() == 2
