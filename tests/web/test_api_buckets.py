"""The bucket API: read with a read token, triage with a write token, every change audited."""

from __future__ import annotations

import json

import pytest

from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.models import Bucket, BucketEvent, Comment

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("default_labels")]


@pytest.fixture
def buckets():
    findings = findings_ingest(
        submissions=[make_finding(call=f"lookup({i})") for i in range(3)]
        + [make_finding(function="mean", error="ZeroDivisionError: division by zero", call="mean([])")]
    ).findings
    return Bucket.objects.get(pk=findings[0].bucket_id), Bucket.objects.get(pk=findings[-1].bucket_id)


def _auth(user, scope: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {api_token_create(user=user, name=scope, scope=scope)[1]}"}


def _patch(client, pk, body, auth):
    return client.patch(f"/api/v1/buckets/{pk}", json.dumps(body), content_type="application/json", **auth)


def test_a_read_token_lists_filters_and_reads_buckets(client, triager, buckets):
    lookup, mean = buckets
    auth = _auth(triager, "read")
    page = client.get("/api/v1/buckets?sort=hits", **auth).json()
    assert (page["count"], page["pages"]) == (2, 1)
    assert [(b["id"], b["hit_count"]) for b in page["results"]] == [(lookup.pk, 3), (mean.pk, 1)]
    assert [b["id"] for b in client.get("/api/v1/buckets?q=ZeroDivisionError", **auth).json()["results"]] == [mean.pk]
    one = client.get(f"/api/v1/buckets/{lookup.pk}", **auth).json()
    assert (one["crash_type"], one["status"], one["labels"], one["url"]) == (
        "KeyError",
        "new",
        [],
        f"/triage/buckets/{lookup.pk}/",
    )
    bad = client.get("/api/v1/buckets?status=nonsense&page=0", **auth)
    assert bad.status_code == 400 and set(bad.json()["fields"]) == {"status", "page"}
    assert client.get("/api/v1/buckets?page=9", **auth).status_code == 404
    # Reading is all it may do.
    response = _patch(client, lookup.pk, {"status": "confirmed"}, auth)
    assert response.status_code == 403 and "write" in response.json()["error"]
    assert client.get("/api/v1/buckets", **_auth(triager, "ingest")).status_code == 403


def test_a_write_token_triages_and_each_change_is_audited_as_its_owner(client, triager, buckets):
    lookup, _ = buckets
    auth = _auth(triager, "write")
    response = _patch(
        client,
        lookup.pk,
        {"status": "confirmed", "assignee": "ana", "priority": 3, "labels": ["invalid input"], "comment": "seen"},
        auth,
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["status"], body["assignee"], body["priority"], body["labels"]) == (
        "confirmed",
        "ana",
        3,
        ["invalid input"],
    )
    events = set(BucketEvent.objects.filter(bucket=lookup).values_list("field", "user__username"))
    assert events == {(f, "ana") for f in ("status", "assignee", "priority", "label", "comment")}
    assert Comment.objects.get(bucket=lookup).text == "seen"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"status": "duplicate"}, "status"),
        ({"priority": "high"}, "priority"),
        ({"labels": "invalid input"}, "labels"),
        ({"stauts": "fixed"}, "unknown"),
        ({}, "body"),
        ({"comment": ""}, "comment"),
    ],
)
def test_invalid_changes_name_the_field_and_change_nothing(client, triager, buckets, body, field):
    lookup, _ = buckets
    response = _patch(client, lookup.pk, body, _auth(triager, "write"))
    assert response.status_code == 400 and field in response.json()["fields"]
    assert not BucketEvent.objects.exists()


@pytest.mark.parametrize(
    ("body", "words"),
    [(b"[" * 20_000 + b"]" * 20_000, "nested"), (b"{not json", "malformed JSON"), (b"x" * (64 * 1024 + 1), "limit")],
    ids=["nested", "malformed", "oversized"],
)
def test_an_unreadable_change_is_a_400_saying_why(client, triager, buckets, body, words):
    response = client.patch(
        f"/api/v1/buckets/{buckets[0].pk}", body, content_type="application/json", **_auth(triager, "write")
    )
    assert response.status_code == 400 and words in response.json()["error"]
    assert not BucketEvent.objects.exists()


def test_an_unknown_user_or_label_changes_nothing_at_all(client, triager, buckets):
    lookup, _ = buckets
    auth = _auth(triager, "write")
    response = _patch(client, lookup.pk, {"status": "fixed", "labels": ["no such label"]}, auth)
    assert response.status_code == 400 and "no such label" in response.json()["error"]
    response = _patch(client, lookup.pk, {"status": "fixed", "assignee": "nobody-here"}, auth)
    assert response.status_code == 400 and "nobody-here" in response.json()["error"]
    lookup.refresh_from_db()
    assert lookup.status == "new" and not BucketEvent.objects.exists()


def test_a_viewers_write_token_cannot_change_anything(client, viewer, buckets):
    lookup, _ = buckets
    auth = _auth(viewer, "write")
    assert client.get(f"/api/v1/buckets/{lookup.pk}", **auth).status_code == 200
    assert _patch(client, lookup.pk, {"status": "fixed"}, auth).status_code == 403
    assert Bucket.objects.get(pk=lookup.pk).status == "new"


def test_methods_and_ids_outside_the_api_get_clear_errors(client, triager, buckets):
    auth = _auth(triager, "write")
    response = client.delete(f"/api/v1/buckets/{buckets[0].pk}", **auth)
    assert response.status_code == 405 and "DELETE" in response.json()["error"]
    assert client.get(f"/api/v1/buckets/{2**63}", **auth).status_code == 404
    assert client.get("/api/v1/buckets/999999", **auth).json()["error"] == "no bucket #999999"
