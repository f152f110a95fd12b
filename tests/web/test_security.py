"""Security headers, token scopes and rate limits on login and ingest."""

from __future__ import annotations

import django_rq
import pytest
from django.urls import reverse

from fuzzweb.tokens import api_token_create
from triage.models import Finding

pytestmark = pytest.mark.django_db

FINDING = {"kind": "crash", "target": "libpng", "crash_type": "SIGSEGV", "trace": "#0 0x1 in png_read_row png.c:10"}


@pytest.fixture(autouse=True)
def fresh_limits():
    """Rate-limit counters live in Redis for their window; each test starts and ends without any."""

    def clear():
        connection = django_rq.get_connection("default")
        for key in connection.scan_iter("fuzzweb:rate:*"):
            connection.delete(key)

    clear()
    yield
    clear()


def test_pages_carry_the_security_headers(logged_in):
    response = logged_in.get(reverse("triage:buckets"))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-eval" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"]
    # Every page: no inline script for the policy to block.
    for url in (reverse("triage:buckets"), reverse("triage:overview"), reverse("campaigns:list")):
        html = logged_in.get(url).content.decode()
        assert "<script>" not in html, url


def test_login_is_refused_after_too_many_failures(client, admin_user, settings):
    settings.FUZZWEB_LOGIN_FAILURES = 3
    for _ in range(3):
        response = client.post(reverse("login"), {"username": "maintainer", "password": "wrong"})
        assert response.status_code == 200 and "didn't match" in response.content.decode()
    # Now even the right password waits for the window to pass.
    response = client.post(reverse("login"), {"username": "maintainer", "password": "correct-horse-9"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0 and "Too many failed attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_token_scopes_limit_what_a_token_may_call(client, admin_user):
    tokens = {
        scope: api_token_create(user=admin_user, name=scope, scope=scope)[1] for scope in ("ingest", "read", "write")
    }

    def submit(scope):
        return client.post(
            "/api/v1/findings", FINDING, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {tokens[scope]}"
        )

    def read(scope):
        return client.get("/api/v1/openapi.json", HTTP_AUTHORIZATION=f"Bearer {tokens[scope]}")

    assert submit("ingest").status_code == 201 and submit("write").status_code == 200  # the same finding again
    refused = submit("read")
    assert refused.status_code == 403 and "needs 'ingest'" in refused.json()["error"]
    assert read("read").status_code == 200 and read("write").status_code == 200
    assert read("ingest").status_code == 403
    assert Finding.objects.get().hit_count == 2


def test_ingest_is_rate_limited_per_token(client, admin_user, settings):
    settings.FUZZWEB_INGEST_PER_MINUTE = 2
    busy = api_token_create(user=admin_user, name="busy", scope="ingest")[1]
    other = api_token_create(user=admin_user, name="other", scope="ingest")[1]

    def submit(token):
        return client.post(
            "/api/v1/findings", FINDING, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
        )

    assert [submit(busy).status_code for _ in range(2)] == [201, 200]
    limited = submit(busy)
    assert limited.status_code == 429 and 0 < int(limited["Retry-After"]) <= 60
    assert submit(other).status_code == 200  # another token has its own budget
    assert Finding.objects.get().hit_count == 3  # the refused one was not stored


def test_a_token_created_on_the_page_has_the_chosen_scope_and_is_shown_once(logged_in, admin_user):
    response = logged_in.post(reverse("account:tokens"), {"name": "nightly", "scope": "read"})
    assert response.status_code == 200
    token = admin_user.api_tokens.get()
    assert token.scope == "read"
    plain = response.context["created"]
    assert plain.startswith(token.prefix) and token.token_hash not in response.content.decode()
    assert plain not in logged_in.get(reverse("account:tokens")).content.decode()
