"""Restricted (security-sensitive) buckets: only their group sees them, anywhere."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Group
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.models import Campaign, Target
from fuzzweb.roles import role_set
from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.merge import bucket_merge, bucket_split
from triage.models import Bucket, BucketEvent, BucketHits
from triage.restriction import bucket_restrict
from triage.workflow import TriageError

pytestmark = pytest.mark.django_db

SECRET = "SECRET_use_after_free_in_parse_header"


def security_team(django_user_model) -> tuple[Group, dict]:
    """The group "security" with sam (admin) and insider (triager) in it, and tina (triager) outside."""
    security = Group.objects.create(name="security")
    users = {}
    for name, role in (("sam", "admin"), ("tina", "triager"), ("insider", "triager")):
        users[name] = django_user_model.objects.create_user(name, password="correct-horse-9")
        role_set(user=users[name], role=role)
    users["sam"].groups.add(security)
    users["insider"].groups.add(security)
    return security, users


@pytest.fixture
def setup(django_user_model, default_labels):
    security, users = security_team(django_user_model)
    target = Target.objects.get(module="engines.demo.textkit")
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=10)
    secret = (
        findings_ingest(
            submissions=[make_finding(function=SECRET, call=f"{SECRET}({i})") for i in range(3)],
            campaign_id=campaign.pk,
        )
        .findings[0]
        .bucket
    )
    public = findings_ingest(submissions=[make_finding(function="mean")], campaign_id=campaign.pk).findings[0].bucket
    assert bucket_restrict(bucket_id=secret.pk, group_id=security.pk, user=users["sam"])
    return users, security, campaign, secret, public


def _bucket_urls(pk: int):
    """Every page and action under /triage/buckets/<pk>/, from the URL configuration itself."""

    def walk(resolver, prefix=""):
        for pattern in resolver.url_patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    for path in walk(get_resolver()):
        if "<int:pk>" in path and ("buckets/" in path):
            # Other ids: a number where the converter wants one (a move that need not exist), else an extension.
            yield "/" + re.sub(
                r"<(\w+:)?(\w+)>",
                lambda m: {"pk": str(pk)}.get(m.group(2), "1" if m.group(1) == "int:" else "md"),
                path,
            )


def test_restricting_is_audited_and_only_for_admins_of_their_own_groups(setup):
    users, security, _, secret, public = setup
    assert list(BucketEvent.objects.filter(bucket=secret).values_list("field", "new_value", "user__username")) == [
        ("restricted to", "security", "sam")
    ]
    with pytest.raises(TriageError, match="Only admins"):
        bucket_restrict(bucket_id=public.pk, group_id=security.pk, user=users["insider"])
    other = Group.objects.create(name="others")
    with pytest.raises(TriageError, match="group you belong to"):
        bucket_restrict(bucket_id=public.pk, group_id=other.pk, user=users["sam"])
    assert Bucket.objects.get(pk=public.pk).restricted_to is None


def test_outsiders_never_see_a_restricted_bucket(client, setup):
    users, _, campaign, secret, public = setup
    client.force_login(users["tina"])
    for url in _bucket_urls(secret.pk):
        codes = {client.get(url).status_code, client.post(url, {"text": "x", "status": "fixed"}).status_code}
        # Not there (404) for the method it serves, 405 for the other; restricting is for admins only (403).
        assert codes in ({404, 405}, {403, 405}), (url, codes)
    pages = [
        reverse("triage:buckets"),
        reverse("triage:findings"),
        reverse("triage:overview"),
        reverse("campaigns:detail", args=[campaign.pk]),
        reverse("campaigns:progress", args=[campaign.pk]),
        reverse("triage:bucket", args=[public.pk]),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200 and SECRET not in response.content.decode(), url
    # A search for it finds nothing (the page repeats the query, so look for the bucket's link).
    for url in (reverse("triage:buckets"), reverse("triage:findings")):
        page = client.get(url, {"q": SECRET}).content.decode()
        assert f"/triage/buckets/{secret.pk}/" not in page and f"/triage/buckets/{public.pk}/" not in page, url
    # Bulk actions skip what the user cannot see.
    client.post(reverse("triage:buckets_bulk"), {"buckets": [secret.pk], "action": "status", "value": "fixed"})
    # Marking a visible bucket a duplicate of a hidden one is refused as if it did not exist.
    response = client.post(reverse("triage:bucket_duplicate", args=[public.pk]), {"target": secret.pk}, follow=True)
    assert f"No bucket #{secret.pk}" in response.content.decode()
    assert Bucket.objects.get(pk=secret.pk).status == "new" and Bucket.objects.get(pk=public.pk).status == "new"
    # The API hides it too.
    token = api_token_create(user=users["tina"], name="t", scope="write")[1]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    assert client.get(f"/api/v1/buckets/{secret.pk}", **auth).status_code == 404
    listed = client.get("/api/v1/buckets", **auth).json()
    assert [b["id"] for b in listed["results"]] == [public.pk]
    patch = client.patch(
        f"/api/v1/buckets/{secret.pk}", json.dumps({"status": "fixed"}), content_type="application/json", **auth
    )
    assert patch.status_code == 404 and Bucket.objects.get(pk=secret.pk).status == "new"


def test_the_group_sees_and_works_on_it_everywhere(client, setup):
    users, _, campaign, secret, _ = setup
    client.force_login(users["insider"])
    page = client.get(reverse("triage:bucket", args=[secret.pk])).content.decode()
    assert SECRET in page and 'id="restricted-flag"' in page
    assert 'id="restrict-form"' not in page  # a triager, not an admin
    for url in (reverse("triage:buckets") + f"?q={SECRET}", reverse("campaigns:progress", args=[campaign.pk])):
        assert SECRET in client.get(url).content.decode(), url
    assert SECRET in json.dumps(client.get(reverse("triage:overview")).content.decode())
    response = client.post(reverse("triage:bucket_edit", args=[secret.pk]), {"status": "confirmed", "priority": "0"})
    assert response.status_code == 302 and Bucket.objects.get(pk=secret.pk).status == "confirmed"
    # Restricting is for admins: a triager of the group is refused.
    assert client.post(reverse("triage:bucket_restrict", args=[secret.pk]), {"group": ""}).status_code == 403


def test_an_admin_restricts_and_lifts_it_from_the_page(client, setup):
    users, security, _, secret, public = setup
    client.force_login(users["sam"])
    page = client.get(reverse("triage:bucket", args=[public.pk])).content.decode()
    assert 'id="restrict-form"' in page and ">security</option>" in page
    client.post(reverse("triage:bucket_restrict", args=[public.pk]), {"group": security.pk})
    assert Bucket.objects.get(pk=public.pk).restricted_to == security
    client.post(reverse("triage:bucket_restrict", args=[secret.pk]), {"group": ""})
    assert Bucket.objects.get(pk=secret.pk).restricted_to is None
    fields = BucketEvent.objects.filter(field="restricted to").values_list("bucket_id", "old_value", "new_value")
    assert set(fields) == {(secret.pk, "", "security"), (public.pk, "", "security"), (secret.pk, "security", "")}


def test_moving_findings_never_publishes_a_restricted_one(setup):
    users, security, _, secret, public = setup
    # A split keeps the findings restricted.
    chosen = list(secret.findings.values_list("pk", flat=True)[:1])
    split = bucket_split(source_id=secret.pk, finding_ids=chosen, user=users["insider"])
    assert split.restricted_to == security
    # A restricted bucket is not merged into a public one: that would hide the public one
    # (tests/attacks/test_restricted_leaks.py); within the group it merges as any other.
    with pytest.raises(TriageError, match="restricted"):
        bucket_merge(source_id=secret.pk, target_id=public.pk, user=users["insider"])
    public.refresh_from_db()
    assert public.restricted_to is None
    bucket_merge(source_id=split.pk, target_id=secret.pk, user=users["insider"])
    assert Bucket.objects.get(pk=secret.pk).findings.count() == 3


def test_the_top_buckets_leave_out_hidden_ones_rather_than_blank_them(setup):
    from triage.overview import overview_data

    users, _, _, secret, public = setup
    assert BucketHits.objects.filter(bucket=secret).exists()
    outside = [row["id"] for row in overview_data(user=users["tina"])["top_week"]]
    inside = [row["id"] for row in overview_data(user=users["insider"])["top_week"]]
    assert outside == [public.pk] and set(inside) == {secret.pk, public.pk}


def test_a_restricted_bucket_is_not_filed_to_a_tracker(setup):
    from triage.models import Tracker
    from triage.trackers import TrackerError, issue_file

    users, _, _, secret, _ = setup
    tracker = Tracker.objects.create(
        name="public", kind="github", api_url="http://127.0.0.1:9", repository="a/b", token="t"
    )
    with pytest.raises(TrackerError, match="restricted"):
        issue_file(bucket_id=secret.pk, tracker_id=tracker.pk, user=users["insider"])
    assert not Bucket.objects.get(pk=secret.pk).issue_url
