"""A bucket's pytest reproducer fails the way the finding did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from engines.pyfunc.engine import Config, run
from tests.engines.test_pyfunc import RecordingSink
from triage.ingest import findings_ingest
from triage.models import Bucket
from triage.submission import submission_from_engine

pytestmark = pytest.mark.django_db
BASE_DIR = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def engine_findings():
    sink = RecordingSink()
    run(Config(target="tests.targets.shapes", seconds=60, seed=1, max_executions=2000, exclude=["scale"]), sink)
    return sink.findings


def _download(client, bucket, tmp_path) -> Path:
    response = client.get(reverse("triage:bucket_test", args=[bucket.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="test_fuzzweb_bucket_{bucket.pk}.py"'
    path = tmp_path / f"test_fuzzweb_bucket_{bucket.pk}.py"
    path.write_bytes(response.content)
    return path


def _pytest(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:django", "-p", "no:cacheprovider", str(path)],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_pytest_reproducer_fails_with_the_same_exception(logged_in, engine_findings, tmp_path):
    findings_ingest(submissions=[submission_from_engine(f, "pyfunc") for f in engine_findings])
    bucket = Bucket.objects.get(title="ZeroDivisionError in area")
    html = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert 'id="export-pytest"' in html
    result = _pytest(_download(logged_in, bucket, tmp_path))
    assert result.returncode == 1
    assert "ZeroDivisionError" in result.stdout


def test_pytest_reproducer_of_a_return_type_violation_checks_the_type(logged_in, engine_findings, tmp_path):
    findings_ingest(submissions=[submission_from_engine(f, "pyfunc") for f in engine_findings])
    bucket = Bucket.objects.get(title="ReturnTypeViolation in find_index")
    path = _download(logged_in, bucket, tmp_path)
    assert "assert isinstance(result, int)" in path.read_text()
    result = _pytest(path)
    assert result.returncode == 1 and "AssertionError" in result.stdout


def test_findings_without_a_recorded_call_have_no_pytest_reproducer(logged_in):
    from tests.integration.test_ingest import make_finding
    from triage.ingest import finding_ingest

    bucket = finding_ingest(submission=make_finding()).bucket
    assert logged_in.get(reverse("triage:bucket_test", args=[bucket.pk])).status_code == 404
    assert 'id="export-pytest"' not in logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
