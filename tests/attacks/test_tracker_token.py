"""A tracker's token goes only over HTTPS (unless an admin allowed HTTP), only to its host, never along a redirect."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ValidationError

from tests.integration.test_trackers import FakeTracker, _bucket
from triage.admin import TrackerForm
from triage.models import Bucket, FiledIssue, Tracker
from triage.trackers import TrackerError, issue_file, issues_sync

pytestmark = pytest.mark.django_db


def _serve(server):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.fixture
def elsewhere():
    """Another host's server: it must never see a request carrying the token."""
    server = _serve(FakeTracker())
    yield server
    server.shutdown()
    server.server_close()


class _Redirector(ThreadingHTTPServer):
    def __init__(self, to: str):
        super().__init__(("127.0.0.1", 0), _RedirectHandler)
        self.to = to
        self.seen: list[str] = []


class _RedirectHandler(BaseHTTPRequestHandler):
    server: _Redirector

    def log_message(self, *args):
        pass

    def _redirect(self):
        self.server.seen.append(self.path)
        self.send_response(307)
        self.send_header("Location", self.server.to + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _redirect  # noqa: N815 - http.server's naming


def _github(api_url: str, **extra) -> Tracker:
    return Tracker.objects.create(
        name="widget", kind="github", api_url=api_url, repository="acme/widget", token="gh-secret", **extra
    )


def test_plain_http_is_refused_unless_an_admin_allowed_it(elsewhere, triager):
    tracker = _github(elsewhere.base)
    bucket = _bucket()
    with pytest.raises(TrackerError, match="HTTPS only"):
        issue_file(bucket_id=bucket.pk, tracker_id=tracker.pk, user=triager)
    assert elsewhere.requests == []
    assert not Bucket.objects.get(pk=bucket.pk).issue_url
    with pytest.raises(ValidationError, match="https"):
        tracker.full_clean()
    tracker.allow_http = True
    tracker.full_clean()


def test_the_token_is_not_sent_along_a_redirect(elsewhere, triager):
    redirector = _serve(_Redirector(to=elsewhere.base))
    try:
        tracker = _github(f"http://127.0.0.1:{redirector.server_address[1]}", allow_http=True)
        bucket = _bucket()
        with pytest.raises(TrackerError, match="redirected"):
            issue_file(bucket_id=bucket.pk, tracker_id=tracker.pk, user=triager)
        assert redirector.seen == ["/repos/acme/widget/issues"]
        assert elsewhere.requests == []
        assert not FiledIssue.objects.exists()
    finally:
        redirector.shutdown()
        redirector.server_close()


def test_the_sync_job_follows_only_urls_on_the_trackers_host(elsewhere, triager):
    home = _serve(FakeTracker())
    try:
        tracker = _github(home.base, allow_http=True)
        bucket = _bucket()
        # An answer (or a tampered row) naming another host for the issue's API address.
        FiledIssue.objects.create(
            tracker=tracker, bucket=bucket, url="https://x/1", api_url=f"{elsewhere.base}/repos/acme/widget/issues/7"
        )
        counts = issues_sync()
        assert counts == {"checked": 1, "changed": 0, "errors": 1}
        assert elsewhere.requests == []
    finally:
        home.shutdown()
        home.server_close()


def test_moving_a_tracker_to_another_host_asks_for_the_token_again():
    tracker = _github("https://api.github.com")
    data = {
        "name": "widget",
        "kind": "github",
        "api_url": "https://collector.example",
        "repository": "acme/widget",
        "token": "",
        "title_template": "{{ title }}",
        "labels": "",
        "daily_limit": 10,
    }
    form = TrackerForm(data, instance=tracker)
    assert not form.is_valid()
    assert "token" in form.errors
    # A fresh instance: the first form wrote its values onto the one it was given.
    same_host = TrackerForm({**data, "api_url": "https://api.github.com/"}, instance=Tracker.objects.get(pk=tracker.pk))
    assert same_host.is_valid(), same_host.errors
    assert same_host.cleaned_data["token"] == "gh-secret"
