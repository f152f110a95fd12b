"""Schemathesis against the served OpenAPI schema: no request it can make gets a server error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import django_rq
import pytest

from engines import registry
from fuzzweb.models import ApiToken
from fuzzweb.roles import role_set
from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest

# live_server serves from another thread: the data must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


def test_schemathesis_finds_no_server_error(live_server, django_user_model, tmp_path):
    from triage.labels import labels_ensure_defaults

    labels_ensure_defaults()
    user = django_user_model.objects.create_user("fuzzbot", password="correct-horse-9")
    role_set(user=user, role="triager")
    api_token, token = api_token_create(user=user, name="schemathesis", scope="write")
    # The replay right, so target and campaign bodies are fuzzed rather than all refused with a 403.
    ApiToken.objects.filter(pk=api_token.pk).update(replay=True)
    # Buckets 1..n exist, so generated ids reach real rows as well as missing ones.
    findings_ingest(submissions=[make_finding(call=f"lookup({i})") for i in range(3)])

    from django.test import Client

    schema = Client().get("/api/v1/openapi.json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert schema.status_code == 200
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(schema.json()))
    report = tmp_path / "report.json"
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "schemathesis"), "run", str(path),
            "--url", live_server.url,
            "--header", f"Authorization: Bearer {token}",
            "--checks", "not_a_server_error",
            "--max-examples", "12",
            "--seed", "20261124",
            "--phases", "examples,coverage,fuzzing",
            "--request-timeout", "20",
            "--report", "ndjson", "--report-ndjson-path", str(report),
            "--no-color",
        ],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    # A campaign it launched on a target it defined must not reach a later test's worker.
    for queue in registry.queues():
        django_rq.get_queue(queue).empty()
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-6000:]
    # It did test every operation of the schema, with many cases, not an empty run.
    operations = sum(len(methods) for methods in schema.json()["paths"].values())
    assert operations == 10 and f"Tested: {operations}" in output, output[-3000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", output)
    assert cases and int(cases.group(1)) >= 100 and cases.group(1) == cases.group(2), output[-3000:]
