"""Every URL of the site, for each role (anonymous, viewer, triager, admin), read and write.

Each URL pattern is classified below; a pattern added later without a
class fails the first test, so no view escapes this matrix.
"""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from campaigns.models import Campaign, Target
from fuzzweb.roles import role_set
from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest

pytestmark = pytest.mark.django_db

# page: a page to read (GET); action: a form post that changes something;
# admin_action: a post only admins may make; api: token-authenticated;
# open: the login and logout pages; site_admin: Django's admin and the RQ dashboard;
# home: a redirect to the campaigns.
CLASSES = {
    "": "home",
    "login/": "open",
    "logout/": "open",
    "campaigns/": "page",
    "campaigns/new/": "page+action",
    "campaigns/<int:pk>/": "page",
    "campaigns/<int:pk>/functions/<str:name>/": "page",
    "campaigns/<int:pk>/progress/": "page",
    "campaigns/<int:pk>/stop/": "action",
    "campaigns/<int:pk>/clone/": "action",
    "campaigns/<int:pk>/resume/": "action",
    "campaigns/targets/": "page",
    "campaigns/targets/new/": "page+action",
    "campaigns/targets/package/": "action",
    "campaigns/targets/<int:pk>/": "page+action",
    "campaigns/targets/<int:pk>/file.json": "page",
    "campaigns/targets/trials/<str:job_id>/": "page",
    "triage/buckets/": "page",
    "triage/buckets/<int:pk>/": "page",
    "triage/buckets/<int:pk>/report.md": "page",
    "triage/buckets/<int:pk>/report.<str:extension>": "page",
    "triage/buckets/<int:pk>/file/": "action",
    "triage/buckets/<int:pk>/test.py": "page",
    "triage/buckets/<int:pk>/reduction/": "page",
    "triage/buckets/<int:pk>/reduce/": "action",
    "triage/buckets/<int:pk>/upload/": "action",
    "triage/buckets/<int:pk>/edit/": "action",
    "triage/buckets/<int:pk>/comment/": "action",
    "triage/buckets/<int:pk>/watch/": "action",
    "triage/buckets/<int:pk>/duplicate/": "action",
    "triage/buckets/<int:pk>/duplicate/undo/": "action",
    "triage/buckets/<int:pk>/culprit/<int:move_id>/undo/": "action",
    "triage/buckets/<int:pk>/split/": "action",
    "triage/buckets/<int:pk>/restrict/": "admin_action",
    "triage/buckets/bulk/": "action",
    "triage/findings/": "page",
    "triage/overview/": "page",
    "api/v1/findings": "api",
    "api/v1/findings/bulk": "api",
    "api/v1/buckets": "api",
    "api/v1/buckets/<int:pk>": "api",
    "api/v1/targets": "api",
    "api/v1/campaigns": "api",
    "api/v1/campaigns/<int:pk>": "api",
    "api/v1/openapi.json": "api",
    "account/tokens/": "page+action",
    "account/tokens/<int:pk>/revoke/": "action",
    "admin/": "site_admin",
    "rq/": "site_admin",
}
ROLES = ("anonymous", "viewer", "triager", "admin")


def _patterns(resolver=None, prefix=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern) in ("admin/", "rq/"):
                yield str(pattern.pattern)
            else:
                yield from _patterns(pattern, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern)


def test_every_url_pattern_has_a_role_class():
    assert set(_patterns()) == set(CLASSES)


@pytest.fixture
def world(django_user_model, default_labels):
    target = Target.objects.get(module="engines.demo.textkit")
    campaign = Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=10, status="stopped")
    findings = findings_ingest(submissions=[make_finding(call=f"lookup({i})") for i in range(3)]).findings
    users = {"anonymous": None}
    for role in ROLES[1:]:
        users[role] = django_user_model.objects.create_user(f"{role}-1", password="correct-horse-9")
        role_set(user=users[role], role=role)
    token = api_token_create(user=users["admin"], name="t")[0]
    differential = Target.objects.create(
        name="own compilers",
        engine="differential",
        differential={"language": "c", "generator": {"kind": "csmith"}, "backends": []},
    )
    # move_id: a culprit move that does not exist (a 404 once allowed); job_id: a trial nobody started.
    ids = {"pk": findings[0].bucket_id, "name": "mean", "extension": "json", "move_id": 1, "job_id": "none"}
    ids["target"] = differential.pk
    return users, ids, campaign, token


def _url(pattern: str, ids: dict, campaign: Campaign, token) -> str:
    if pattern.startswith(("campaigns/", "api/v1/campaigns/")):
        ids = {**ids, "pk": campaign.pk}
    if pattern.startswith("campaigns/targets/<int:pk>"):
        ids = {**ids, "pk": ids["target"]}
    if pattern.startswith("account/tokens/<int:pk>"):
        ids = {**ids, "pk": token.pk}
    return "/" + re.sub(r"<(\w+:)?(\w+)>", lambda m: str(ids[m.group(2)]), pattern)


def _refused(response, role: str) -> bool:
    if role == "anonymous":
        return response.status_code == 302 and response["Location"].startswith(("/login/", "/admin/login/"))
    return response.status_code == 403


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_what_its_role_allows_on_every_url(client, world, role):
    users, ids, campaign, token = world
    if users[role] is not None:
        client.force_login(users[role])
    checked = 0
    for pattern, kind in CLASSES.items():
        if kind == "open":
            continue
        checked += 1
        url = _url(pattern, ids, campaign, token)
        if kind == "home":
            expected = "/login/" if role == "anonymous" else "/campaigns/"
            assert client.get(url)["Location"].startswith(expected), role
            continue
        if kind == "site_admin":
            page = client.get(url)
            if role == "admin":
                assert page.status_code == 200, (role, url)
            else:
                assert page.status_code == 302 and "/login/" in page["Location"], (role, url)
            continue
        get = client.get(url)
        post = client.post(url, {"text": "x", "status": "fixed", "buckets": [ids["pk"]], "target": ids["pk"]})
        if kind == "api":
            # The API takes tokens, never a session for writes; a session may only read.
            assert post.status_code in (401, 405), (role, url, post.status_code)
            if role == "anonymous":
                assert get.status_code == 401, (role, url)
            else:
                assert get.status_code in (200, 405), (role, url, get.status_code)
        else:
            readable = "page" in kind
            if role == "anonymous":
                assert _refused(get, role) and _refused(post, role), (role, url)
                continue
            if readable:
                # 404 only where the page needs what this world lacks: a pytest file, a fuzzed function.
                allowed = (200, 404) if pattern.endswith(("test.py", "<str:name>/", "<str:job_id>/")) else (200,)
                assert get.status_code in allowed, (role, url, get.status_code)
            else:
                assert get.status_code == 405, (role, url, get.status_code)
            writable = "action" in kind
            may_write = {"viewer": False, "triager": kind != "admin_action", "admin": True}[role]
            if writable:
                assert _refused(post, role) == (not may_write), (role, url, post.status_code)
            else:
                assert post.status_code in (403, 405) if role == "viewer" else post.status_code == 405, (role, url)
    assert checked == len(CLASSES) - 2
