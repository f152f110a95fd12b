"""An ingest-only token must not make a worker run code; a trusted one runs it only in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fuzzweb.models import ApiToken, Scope
from fuzzweb.tokens import api_token_create
from triage.models import Bucket, Finding, Reduction, ReductionState
from triage.reduction import reduction_request, reduction_run

pytestmark = pytest.mark.django_db
PROJECT = Path(__file__).resolve().parents[2]
CANARY = PROJECT / "ran-outside-the-sandbox"
# Prints differently under -O (a "miscompilation" between cpython and cpython -O),
# and tries to leave a file in the project on the way.
PROGRAM = f"""
try:
    open({str(CANARY)!r}, "w").write("pwned")
except OSError:
    pass
assert False, "only without -O"
"""


def _post(client, token: str, body: dict):
    return client.post(
        "/api/v1/findings", data=json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def _finding(**extra) -> dict:
    return {
        "kind": "miscompilation",
        "target": "python compilers",
        "testcase": PROGRAM,
        "testcase_language": "python",
        "reference": "cpython",
        "backends": [{"name": "cpython", "outcome": "ok"}, {"name": "cpython-O", "outcome": "wrong_output"}],
        **extra,
    }


@pytest.fixture
def clean():
    CANARY.unlink(missing_ok=True)
    yield
    CANARY.unlink(missing_ok=True)


def test_an_ingest_token_gets_a_stored_finding_and_no_execution(client, admin_user, clean):
    token = api_token_create(user=admin_user, name="fuzz box", scope=Scope.INGEST)[1]
    response = _post(client, token, _finding())
    assert response.status_code == 201, response.content
    finding = Finding.objects.get()
    assert not finding.replay_allowed
    bucket = Bucket.objects.get()
    assert not bucket.reductions.exists()  # nothing queued
    # Even asked for by hand, the reduction refuses to run it.
    reduction = reduction_request(bucket=bucket, source=Reduction.Source.AGAIN, user=admin_user)
    reduction_run(reduction_id=reduction.pk)
    reduction.refresh_from_db()
    assert reduction.state == ReductionState.UNSUPPORTED and "replay right" in reduction.message
    assert not CANARY.exists()
    # And no runnable pytest file is offered for it.
    client.force_login(admin_user)
    assert client.get(f"/triage/buckets/{bucket.pk}/test.py").status_code == 404


def test_a_replay_token_runs_the_finding_only_inside_the_sandbox(client, admin_user, clean, settings):
    settings.FUZZWEB_REDUCTION_SECONDS = 20
    row, token = api_token_create(user=admin_user, name="trusted cluster", scope=Scope.INGEST)
    ApiToken.objects.filter(pk=row.pk).update(replay=True)
    assert _post(client, token, _finding()).status_code == 201
    bucket = Bucket.objects.get()
    reduction = bucket.reductions.get()  # queued for a worker
    reduction_run(reduction_id=reduction.pk)
    reduction.refresh_from_db()
    assert reduction.state in (ReductionState.DONE, ReductionState.FLAKY, ReductionState.NOT_REPRODUCED), reduction
    assert reduction.original_runs >= 1
    assert not CANARY.exists(), "the submitted program wrote outside its sandbox"


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"values": [{"B": ["os:system", [{"u": "dG91Y2ggL3RtcC9wd25lZA=="}], []]}]}, "metadata.values"),
        ({"values": [{"l": [{"G": ["evil:generator", 1]}]}]}, "metadata.values"),
        ({"values": [{"M": ["subprocess:Popen", "x"]}]}, "metadata.values"),
        ({"search_path": ["/tmp/evil"]}, "metadata.search_path"),
        ({"setup_modules": ["evil_setup"]}, "metadata.setup_modules"),
        ({"setup": "import os", "call": "os.system('id')"}, "metadata.setup"),
    ],
)
def test_values_that_name_code_and_fields_that_choose_imports_are_refused(client, admin_user, metadata, field):
    token = api_token_create(user=admin_user, name="fuzz box", scope=Scope.INGEST)[1]
    body = {"kind": "crash", "target": "textkit", "engine": "pyfunc", "trace": "ValueError: x", "metadata": metadata}
    response = _post(client, token, body)
    assert response.status_code == 400
    assert field in response.json()["fields"]
    assert not Finding.objects.exists()
