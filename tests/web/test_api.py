"""The ingest API: authentication, validation, and nothing valid lost."""

from __future__ import annotations

import base64
import json

import pytest

from fuzzweb.tokens import api_token_create, api_token_revoke
from triage import text
from triage.models import Bucket, Finding

pytestmark = pytest.mark.django_db

TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/fuzz/app/parse.py", line 10, in parse\n'
    "    return table[key]\n"
    "KeyError: 'x'\n"
)


@pytest.fixture
def token(admin_user):
    return api_token_create(user=admin_user, name="cluster")[1]


def post(client, path, body, token=None, raw=False):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = body if raw else json.dumps(body)
    return client.post(f"/api/v1/{path}", data=data, content_type="application/json", **headers)


def finding(**extra):
    return {"kind": "crash", "target": "app", "engine": "afl++", "trace": TRACE, "testcase": "x", **extra}


def test_requests_without_a_valid_token_are_refused(client, admin_user, token):
    assert post(client, "findings", finding()).status_code == 401
    response = post(client, "findings", finding(), token="fzw_not-a-real-token")
    assert response.status_code == 401
    assert response.json() == {"error": "invalid or revoked API token"}
    assert response["WWW-Authenticate"].startswith("Bearer")
    token_row = admin_user.api_tokens.get()
    assert api_token_revoke(token_id=token_row.pk, user=admin_user)
    assert post(client, "findings", finding(), token=token).status_code == 401
    assert not Finding.objects.exists()


def test_a_logged_in_session_cannot_post_without_a_token(logged_in):
    # Writes need the token: a cookie alone would let other sites post findings.
    assert post(logged_in, "findings", finding()).status_code == 401


def test_tokens_are_stored_hashed(admin_user, token):
    row = admin_user.api_tokens.get()
    assert token not in (row.token_hash, row.prefix) and row.token_hash != token
    assert token.startswith(row.prefix)


def test_single_finding_is_bucketed_and_a_repeat_is_counted(client, token):
    first = post(client, "findings", finding(), token=token)
    assert first.status_code == 201
    body = first.json()
    assert body["new_bucket"] is True and body["duplicate"] is False
    bucket = Bucket.objects.get(pk=body["bucket"])
    assert bucket.title == "KeyError in parse"
    assert body["bucket_url"] == f"/triage/buckets/{bucket.pk}/"

    again = post(client, "findings", finding(), token=token)
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert Finding.objects.get().hit_count == 2


def test_bulk_stores_the_valid_and_reports_the_invalid(client, token):
    batch = [finding(testcase="a"), {"kind": "explosion"}, finding(testcase="b"), "not an object"]
    response = post(client, "findings/bulk", {"findings": batch}, token=token)
    assert response.status_code == 422
    body = response.json()
    assert (body["stored"], body["rejected"]) == (2, 2)
    assert [r["index"] for r in body["results"]] == [0, 2]
    assert [e["index"] for e in body["errors"]] == [1, 3]
    assert "kind" in body["errors"][0]["fields"] and "target" in body["errors"][0]["fields"]
    assert Finding.objects.count() == 2


def test_bulk_accepts_a_bare_list(client, token):
    response = post(client, "findings/bulk", [finding(testcase=str(i)) for i in range(10)], token=token)
    assert response.status_code == 200
    assert response.json()["stored"] == 10
    assert Bucket.objects.get().hit_count == 10


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "malformed JSON"),
        (b"", "empty body"),
        (b'{"kind": "crash", "target": "\xff\xfe"}', "not UTF-8"),
    ],
)
def test_unreadable_bodies_get_a_clear_400(client, token, body, message):
    response = post(client, "findings", body, token=token, raw=True)
    assert response.status_code == 400
    assert message in response.json()["error"]


@pytest.mark.parametrize(
    ("payload", "field", "words"),
    [
        ({"target": "app", "trace": TRACE}, "kind", "one of crash"),
        (finding(target=""), "target", "required"),
        (finding(testcase_base64="%%%not base64", testcase=None), "testcase_base64", "not both"),
        ({**finding(), "stacktrace": "x"}, "unknown", "stacktrace"),
        (finding(trace=42), "trace", "must be a string"),
        ({"kind": "crash", "target": "app"}, "trace", "needs its trace"),
        ({"kind": "miscompilation", "target": "c", "backends": [{"name": "gcc", "outcome": "ok"}]}, "backends", "two"),
        (
            {"kind": "miscompilation", "target": "c", "backends": [{"name": "gcc", "outcome": "meh"}]},
            "backends[0].outcome",
            "one of",
        ),
    ],
)
def test_invalid_findings_name_the_field_and_the_problem(client, token, payload, field, words):
    response = post(client, "findings", payload, token=token)
    assert response.status_code == 400
    assert words in response.json()["fields"][field]
    assert not Finding.objects.exists()


def test_invalid_base64_is_refused(client, token):
    payload = {"kind": "crash", "target": "app", "trace": TRACE, "testcase_base64": "%%%"}
    response = post(client, "findings", payload, token=token)
    assert response.status_code == 400
    assert "not valid base64" in response.json()["fields"]["testcase_base64"]


def test_binary_testcase_is_kept_byte_for_byte(client, token):
    data = bytes(range(256)) * 4
    payload = {"kind": "crash", "target": "png", "trace": TRACE, "testcase_base64": base64.b64encode(data).decode()}
    response = post(client, "findings", payload, token=token)
    assert response.status_code == 201
    stored = Finding.objects.get()
    assert bytes(stored.testcase_bytes) == data
    assert stored.testcase.startswith("00000000  00 01 02 03")
    assert stored.testcase_size == 1024


def test_a_25_megabyte_trace_is_stored_truncated_not_refused(client, token):
    # Under the 32 MiB body cap (tests/attacks/test_hostile_ingest.py refuses what is over it).
    huge = TRACE + ("  frame noise\n" * (25 * 1024 * 1024 // 14))
    response = post(client, "findings", finding(trace=huge), token=token)
    assert response.status_code == 201
    stored = Finding.objects.get()
    assert len(stored.trace) < text.TRACE_LIMIT + 200
    assert "[truncated: " in stored.trace
    assert stored.bucket.title == "KeyError in parse"


def test_non_utf8_text_inside_json_is_stored_safely(client, token):
    response = post(client, "findings", finding(testcase="\udcff\x00 bad", message="\ud800"), token=token)
    assert response.status_code == 201
    stored = Finding.objects.get()
    assert "\x00" not in stored.testcase and "\ufffd" in stored.testcase


def test_differential_findings_share_a_bucket_per_disagreement(client, token):
    def mis(program, bad="gcc-O2"):
        outcomes = [{"name": "gcc-O0", "outcome": "ok"}, {"name": "clang-O2", "outcome": "ok"}]
        outcomes.append({"name": bad, "outcome": "wrong_output", "output": "checksum = 1"})
        return {
            "kind": "miscompilation",
            "target": "csmith",
            "reference": "gcc-O0",
            "testcase": program,
            "testcase_language": "c",
            "backends": outcomes,
        }

    response = post(client, "findings/bulk", [mis("int a;"), mis("int b;"), mis("int c;", bad="tcc")], token=token)
    assert response.status_code == 200
    assert sorted(Bucket.objects.values_list("hit_count", flat=True)) == [1, 2]
    assert Bucket.objects.get(hit_count=2).title == "wrong code: gcc-O2=wrong_output"


def test_openapi_schema_is_served_to_token_holders(client, token):
    assert client.get("/api/v1/openapi.json").status_code == 401
    response = client.get("/api/v1/openapi.json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.1")
    assert {"/api/v1/findings", "/api/v1/findings/bulk"} <= set(schema["paths"])
    assert "kind" in schema["components"]["schemas"]["Finding"]["required"]
    # Only an operation that takes a body can answer that its body is too big.
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if "413" in operation["responses"]:
                assert "requestBody" in operation, f"{method.upper()} {path}"
            if method == "get":
                assert "401" in operation["responses"] and "requestBody" not in operation


def test_token_page_shows_a_new_token_once(logged_in, admin_user):
    response = logged_in.post("/account/tokens/", {"name": "afl box"})
    token = admin_user.api_tokens.get()
    assert response.status_code == 200
    assert token.prefix in response.content.decode()
    shown = response.context["created"]
    assert shown.startswith(token.prefix)
    assert shown not in logged_in.get("/account/tokens/").content.decode()
