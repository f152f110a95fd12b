"""Filing to GitHub and GitLab, and syncing issue state, against a local HTTP server playing the tracker.

The server checks what a real tracker would (path, token header, JSON body)
and answers in the shape of the real APIs' responses.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse

from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.models import Bucket, BucketEvent, FiledIssue, Tracker
from triage.trackers import TrackerError, issue_file, issues_sync

pytestmark = pytest.mark.django_db


class FakeTracker(ThreadingHTTPServer):
    """GitHub (/repos/...) and GitLab (/api/v4/...) issue endpoints, recording every request."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict] = []
        self.state = {"github": "open", "gitlab": "opened"}
        self.fail_with: int | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeTracker

    def log_message(self, *args):  # quiet
        pass

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        request = {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        self.server.requests.append(request)
        return request

    def do_POST(self):  # noqa: N802 - http.server's naming
        request = self._record()
        if self.server.fail_with:
            return self._answer(self.server.fail_with, {"message": "Server Error"})
        if self.path == "/repos/acme/widget/issues":
            if request["headers"].get("Authorization") != "Bearer gh-secret":
                return self._answer(401, {"message": "Bad credentials"})
            return self._answer(
                201,
                {
                    "number": 7,
                    "html_url": "https://github.example/acme/widget/issues/7",
                    "url": f"{self.server.base}/repos/acme/widget/issues/7",
                    "state": "open",
                },
            )
        if self.path == "/api/v4/projects/compilers%2Fcc/issues":
            if request["headers"].get("Private-Token") != "gl-secret":
                return self._answer(401, {"message": "401 Unauthorized"})
            return self._answer(
                201, {"iid": 3, "project_id": 42, "web_url": "https://gitlab.example/compilers/cc/-/issues/3"}
            )
        return self._answer(404, {"message": "Not Found"})

    def do_GET(self):  # noqa: N802
        self._record()
        if self.path == "/repos/acme/widget/issues/7":
            return self._answer(200, {"number": 7, "state": self.server.state["github"]})
        if self.path == "/api/v4/projects/42/issues/3":
            return self._answer(200, {"iid": 3, "state": self.server.state["gitlab"]})
        return self._answer(404, {"message": "Not Found"})


@pytest.fixture
def fake_tracker():
    server = FakeTracker()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def github(fake_tracker):
    return Tracker.objects.create(
        name="widget on GitHub",
        kind=Tracker.Kind.GITHUB,
        api_url=fake_tracker.base,
        allow_http=True,  # the local server speaks plain HTTP
        repository="acme/widget",
        token="gh-secret",
        labels="fuzzing, bug",
    )


@pytest.fixture
def gitlab(fake_tracker):
    return Tracker.objects.create(
        name="cc on GitLab",
        kind=Tracker.Kind.GITLAB,
        api_url=f"{fake_tracker.base}/api/v4",
        allow_http=True,
        repository="compilers/cc",
        token="gl-secret",
    )


def _bucket(function="mean", error="ZeroDivisionError: division by zero") -> Bucket:
    finding = findings_ingest(submissions=[make_finding(function=function, error=error, call=f"{function}([])")])
    return Bucket.objects.get(pk=finding.findings[0].bucket_id)


def test_filing_to_github_sends_the_report_and_keeps_the_issue_url(fake_tracker, github, triager):
    bucket = _bucket()
    filed = issue_file(bucket_id=bucket.pk, tracker_id=github.pk, user=triager)

    [request] = fake_tracker.requests
    assert (request["method"], request["path"]) == ("POST", "/repos/acme/widget/issues")
    assert request["headers"]["Authorization"] == "Bearer gh-secret"
    assert request["headers"]["Accept"] == "application/vnd.github+json"
    body = request["body"]
    assert body["title"] == "ZeroDivisionError in mean"
    assert body["labels"] == ["fuzzing", "bug"]
    assert body["body"].startswith("# ZeroDivisionError in mean\n")
    for part in ("## Reproduce", "mean([])", "## Traceback", "## Versions"):
        assert part in body["body"]

    bucket.refresh_from_db()
    assert filed.url == bucket.issue_url == "https://github.example/acme/widget/issues/7"
    assert (bucket.status, bucket.issue_state, bucket.tracker) == ("reported", "open", github)
    assert bucket.reported_at is not None
    fields = list(BucketEvent.objects.filter(bucket=bucket).order_by("pk").values_list("field", "new_value"))
    assert fields == [("issue", filed.url), ("status", "reported")]
    with pytest.raises(TrackerError, match="already reported"):
        issue_file(bucket_id=bucket.pk, tracker_id=github.pk, user=triager)


def test_filing_to_gitlab_uses_its_token_header_and_project_path(fake_tracker, gitlab, triager):
    bucket = _bucket(function="lookup", error="KeyError: 'ms'")
    filed = issue_file(bucket_id=bucket.pk, tracker_id=gitlab.pk, user=triager)
    [request] = fake_tracker.requests
    assert request["path"] == "/api/v4/projects/compilers%2Fcc/issues"
    assert request["headers"]["Private-Token"] == "gl-secret" and "Authorization" not in request["headers"]
    assert request["body"]["title"] == "KeyError in lookup"
    assert "lookup([])" in request["body"]["description"] and "labels" not in request["body"]
    assert filed.url == "https://gitlab.example/compilers/cc/-/issues/3"
    assert filed.api_url == f"{fake_tracker.base}/api/v4/projects/42/issues/3"


def test_the_sync_job_reads_closed_and_reopened_issues_back(fake_tracker, github, gitlab, triager):
    first, second = _bucket(), _bucket(function="lookup", error="KeyError: 'ms'")
    issue_file(bucket_id=first.pk, tracker_id=github.pk, user=triager)
    issue_file(bucket_id=second.pk, tracker_id=gitlab.pk, user=triager)
    fake_tracker.requests.clear()

    assert issues_sync() == {"checked": 2, "changed": 0, "errors": 0}
    assert {(r["method"], r["path"]) for r in fake_tracker.requests} == {
        ("GET", "/repos/acme/widget/issues/7"),
        ("GET", "/api/v4/projects/42/issues/3"),
    }
    assert all(
        r["headers"].get("Authorization") == "Bearer gh-secret" for r in fake_tracker.requests if "repos" in r["path"]
    )

    fake_tracker.state = {"github": "closed", "gitlab": "closed"}
    assert issues_sync()["changed"] == 2
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.issue_state) == ("fixed", "closed") == (second.status, second.issue_state)
    event = first.events.order_by("pk").last()
    assert (event.field, event.old_value, event.new_value, event.user) == ("status", "reported", "fixed", None)
    assert event.note == "issue closed: https://github.example/acme/widget/issues/7"

    fake_tracker.state["github"] = "open"
    assert issues_sync()["changed"] == 1
    first.refresh_from_db()
    assert (first.status, first.issue_state) == ("reported", "open")


def test_the_daily_limit_stops_a_campaign_from_flooding_the_tracker(fake_tracker, github, triager):
    github.daily_limit = 1
    github.save()
    first, second = _bucket(), _bucket(function="lookup", error="KeyError: 'ms'")
    issue_file(bucket_id=first.pk, tracker_id=github.pk, user=triager)
    with pytest.raises(TrackerError, match="daily limit"):
        issue_file(bucket_id=second.pk, tracker_id=github.pk, user=triager)
    assert len(fake_tracker.requests) == 1 and FiledIssue.objects.count() == 1
    second.refresh_from_db()
    assert (second.status, second.issue_url) == ("new", "")


def test_a_tracker_that_fails_records_nothing(fake_tracker, github, triager, client):
    fake_tracker.fail_with = 500
    bucket = _bucket()
    with pytest.raises(TrackerError, match="answered 500"):
        issue_file(bucket_id=bucket.pk, tracker_id=github.pk, user=triager)
    github.token = "wrong"
    github.save()
    fake_tracker.fail_with = None
    client.force_login(triager)
    response = client.post(reverse("triage:bucket_file", args=[bucket.pk]), {"tracker": github.pk}, follow=True)
    assert "answered 401" in response.content.decode()
    bucket.refresh_from_db()
    assert (bucket.status, bucket.issue_url) == ("new", "") and not FiledIssue.objects.exists()
    assert not BucketEvent.objects.exists()


def test_a_trackers_own_template_shapes_the_issue(fake_tracker, github, triager):
    github.title_template = "[fuzz] {{ crash_type }} in {{ function }}"
    github.body_template = (
        "Hits: {{ hits }}\n{{ fenced.program }}\nVersions: {% for k, v in versions.items %}{{ k }}={{ v }}{% endfor %}"
    )
    github.save()
    bucket = _bucket()
    issue_file(bucket_id=bucket.pk, tracker_id=github.pk, user=triager)
    body = fake_tracker.requests[0]["body"]
    assert body["title"] == "[fuzz] ZeroDivisionError in mean"
    assert body["body"] == "Hits: 1\n```text\nmean([])\n```\nVersions: python=3.11.7"


def test_a_title_template_cannot_reach_the_trackers_token(fake_tracker, github, triager):
    # The token sits on the tracker the bucket links to once filed: a template must not walk there.
    github.title_template = "{{ bucket.title }} {{ bucket.tracker.token }}{{ bucket.filed_issues.all }}"
    github.save()
    bucket = _bucket()
    Bucket.objects.filter(pk=bucket.pk).update(tracker=github)
    issue_file(bucket_id=bucket.pk, tracker_id=github.pk, user=triager)
    title = fake_tracker.requests[0]["body"]["title"]
    assert title == bucket.title and "gh-secret" not in title


def test_reports_export_as_markdown_text_and_json(client, triager):
    bucket = _bucket()
    client.force_login(triager)
    text = client.get(reverse("triage:bucket_report_as", args=[bucket.pk, "txt"]))
    assert text["Content-Type"].startswith("text/plain")
    assert "Steps to reproduce:" in text.content.decode() and "    mean([])" in text.content.decode()
    data = json.loads(client.get(reverse("triage:bucket_report_as", args=[bucket.pk, "json"])).content)
    assert (data["title"], data["program"], data["versions"]) == (
        "ZeroDivisionError in mean",
        "mean([])",
        {"python": "3.11.7"},
    )
    assert client.get(reverse("triage:bucket_report_as", args=[bucket.pk, "exe"])).status_code == 404
