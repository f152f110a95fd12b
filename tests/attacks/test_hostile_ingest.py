"""Hostile ingest gets a clear answer naming what is wrong, never a 500, and loses nothing it was given."""

from __future__ import annotations

import base64
import json

import pytest

from engines import events
from fuzzweb.models import Scope
from fuzzweb.tokens import api_token_create
from triage.api.views import MAX_BODY_BYTES
from triage.ingest import findings_ingest
from triage.models import Finding
from triage.submission import MAX_TESTCASE_BYTES, SHORT_FIELDS, submission_from_engine

pytestmark = pytest.mark.django_db


@pytest.fixture
def token(admin_user):
    return api_token_create(user=admin_user, name="fuzz box", scope=Scope.INGEST)[1]


def _post(client, token: str, body, path: str = "/api/v1/findings"):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post(path, data=data, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def _crash(**extra) -> dict:
    return {"kind": "crash", "target": "lib", "trace": "ValueError: boom", **extra}


def test_a_body_over_the_cap_is_refused_with_413_before_it_is_parsed(client, token):
    # Not JSON at all: a parser would have said "malformed"; the size is refused first.
    response = _post(client, token, b"x" * (MAX_BODY_BYTES + 1))
    assert response.status_code == 413
    assert str(MAX_BODY_BYTES) in response.json()["error"]
    assert not Finding.objects.exists()


def test_json_nested_past_reason_is_a_400_not_a_500(client, token):
    response = _post(client, token, "[" * 100_000 + "]" * 100_000)
    assert response.status_code == 400
    assert "nested" in response.json()["error"]


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (b"1" * 5000, "5000 digits"),
        (b"NaN", "NaN is not a JSON number"),
        (b"-Infinity", "-Infinity is not a JSON number"),
        (b"1e400", "out of range"),
    ],
    ids=["long-integer", "nan", "infinity", "overflowing-float"],
)
def test_numbers_json_cannot_hold_are_a_400_not_a_500(client, token, number, words):
    # Python reads NaN, Infinity and 1e400 (as inf), which PostgreSQL's JSON refuses at write time,
    # and fails on a long integer with a bare ValueError.
    response = _post(
        client,
        token,
        b'{"kind": "crash", "target": "lib", "trace": "ValueError: boom", "metadata": {"n": ' + number + b"}}",
    )
    assert response.status_code == 400, response.content
    assert words in response.json()["error"]
    assert not Finding.objects.exists()


@pytest.mark.parametrize("field", sorted(SHORT_FIELDS))
def test_a_one_line_field_longer_than_its_column_is_a_400_naming_it(client, token, field):
    value = "a" * (SHORT_FIELDS[field] + 1)
    response = _post(client, token, _crash(**{field: value}))
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]
    assert not Finding.objects.exists()


def test_one_line_fields_at_their_column_size_are_stored(client, token):
    # testcase_language has its own pattern; the others at full length must fit.
    values = {name: "a" * size for name, size in SHORT_FIELDS.items() if name != "testcase_language"}
    response = _post(client, token, _crash(**values))
    assert response.status_code == 201, response.content
    finding = Finding.objects.get()
    assert finding.engine == "a" * SHORT_FIELDS["engine"]
    assert finding.reference == "a" * SHORT_FIELDS["reference"]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"testcase": "x" * (MAX_TESTCASE_BYTES + 1)}, "testcase"),
        ({"testcase_base64": base64.b64encode(b"\0" * (MAX_TESTCASE_BYTES + 1)).decode()}, "testcase_base64"),
        ({"metadata": {"blob": "x" * 300_000}}, "metadata"),
        ({"versions": {f"tool{i}": "1" for i in range(100)}}, "versions"),
        ({"backends": [{"name": f"b{i}", "outcome": "ok"} for i in range(100)]}, "backends"),
        ({"backends": [{"name": "gcc", "outcome": "ok", "exit_code": 2**40}]}, "backends[0].exit_code"),
        ({"hits": 10**12}, "hits"),
    ],
    ids=["testcase", "binary", "metadata", "versions", "backends", "exit_code", "hits"],
)
def test_oversized_parts_are_a_400_naming_them(client, token, extra, field):
    response = _post(client, token, _crash(**extra))
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]


def test_hits_that_add_up_past_32_bits_are_counted_not_a_500(client, token):
    for _ in range(3):
        response = _post(client, token, _crash(testcase="same input", hits=10**9))
        assert response.status_code in (200, 201), response.content
    finding = Finding.objects.get()
    assert finding.hit_count == 3 * 10**9
    assert finding.bucket.hit_count == 3 * 10**9


def test_a_bad_finding_in_a_batch_costs_only_itself(client, token):
    batch = [_crash(testcase="one"), _crash(testcase="two", engine="e" * 500), _crash(testcase="three")]
    response = _post(client, token, {"findings": batch}, path="/api/v1/findings/bulk")
    assert response.status_code == 422
    body = response.json()
    assert body["stored"] == 2
    assert body["errors"][0]["index"] == 1 and "engine" in body["errors"][0]["fields"]
    assert sorted(Finding.objects.values_list("testcase", flat=True)) == ["one", "three"]


def test_a_campaign_finding_with_overlong_fields_is_cut_to_fit_and_kept():
    # A hostile target names its exception class and function as it likes.
    finding = events.Finding(
        kind="crash",
        target="t" * 1000,
        function="f" * 5000,
        crash_type="E" * 5000 + "\r`|@all",
        message="m",
        trace="Traceback (most recent call last):\nValueError: x",
        input_text="x",
        reproducer="",
        language="python",
        reference="r" * 1000,
    )
    result = findings_ingest(submissions=[submission_from_engine(finding, engine="pyfunc" * 50)])
    stored = Finding.objects.get(pk=result.findings[0].pk)
    for name, size in SHORT_FIELDS.items():
        assert len(getattr(stored, name)) <= size, name
    assert stored.function.startswith("f" * 100)
    assert "\r" not in stored.crash_type


def test_the_limits_table_is_the_columns_sizes():
    for name, size in SHORT_FIELDS.items():
        assert Finding._meta.get_field(name).max_length == size, name
