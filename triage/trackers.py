"""Filing issue reports to GitHub or GitLab through their REST APIs, and reading their state back.

Only the standard library speaks HTTP here: two endpoints per tracker do
not earn a client library. Every call has a timeout; a tracker that is down
or refuses is a :class:`TrackerError` with its answer, and nothing is
recorded as filed.
"""

from __future__ import annotations

import datetime
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from triage import selectors
from triage.audit import audit
from triage.models import Bucket, FiledIssue, Status, Tracker
from triage.reports import render_markdown, render_with_template, report_data, unlinked
from triage.status import bucket_transition

TIMEOUT_SECONDS = 15
TITLE_LIMIT = 250


class TrackerError(RuntimeError):
    """Filing or syncing failed; the message says what the tracker answered."""


@dataclass(frozen=True)
class Request:
    """One HTTP call to a tracker, as plain data (what the tests' local server checks)."""

    method: str
    url: str
    headers: dict
    body: dict | None = None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """urllib would repeat the request, token header included, wherever a redirect points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise TrackerError(
            f"{req.get_method()} {req.full_url} was redirected ({code}) to {newurl}; the token is not sent on. "
            "Update the tracker's API URL if it moved."
        )


_OPENER = urllib.request.build_opener(_NoRedirects)


def url_allowed(tracker: Tracker, url: str) -> str | None:
    """Why the tracker's token may not be sent to ``url``, or None when it may.

    Only to the host (and port) of the tracker's own API URL, and over HTTPS
    unless an admin allowed plain HTTP for this tracker: an address a
    tracker's answer names (the sync job's issue URLs) is checked too.
    """
    own, target = urllib.parse.urlsplit(tracker.api_url), urllib.parse.urlsplit(url)
    schemes = ("https", "http") if tracker.allow_http else ("https",)
    if target.scheme not in schemes:
        return f"{tracker.name} is HTTPS only (an admin can allow plain HTTP for a trusted network): {url}"
    if (target.hostname, target.port) != (own.hostname, own.port) or not target.hostname:
        return f"{url} is not on {tracker.name}'s host ({own.netloc})"
    return None


def _call(tracker: Tracker, request: Request) -> dict:
    refusal = url_allowed(tracker, request.url)
    if refusal:
        raise TrackerError(refusal)
    data = json.dumps(request.body).encode() if request.body is not None else None
    http = urllib.request.Request(  # noqa: S310 - scheme checked above
        request.url, data=data, method=request.method, headers=request.headers
    )
    if data is not None:
        http.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(http, timeout=TIMEOUT_SECONDS) as response:
            return json.loads(response.read().decode() or "{}")
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")[:300]
        raise TrackerError(f"{request.method} {request.url} answered {error.code}: {detail}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise TrackerError(f"{request.method} {request.url} failed: {error}") from None
    except json.JSONDecodeError:
        raise TrackerError(f"{request.method} {request.url} did not answer JSON") from None


def _headers(tracker: Tracker) -> dict:
    if tracker.kind == Tracker.Kind.GITHUB:
        return {
            "Authorization": f"Bearer {tracker.token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "fuzzweb",
        }
    return {"PRIVATE-TOKEN": tracker.token, "User-Agent": "fuzzweb"}


def create_request(tracker: Tracker, title: str, body: str) -> Request:
    """The API call that opens an issue on ``tracker``."""
    base = tracker.api_url.rstrip("/")
    labels = [label.strip() for label in tracker.labels.split(",") if label.strip()]
    if tracker.kind == Tracker.Kind.GITHUB:
        owner_repo = "/".join(urllib.parse.quote(part, safe="") for part in tracker.repository.split("/", 1))
        payload = {"title": title, "body": body, **({"labels": labels} if labels else {})}
        return Request("POST", f"{base}/repos/{owner_repo}/issues", _headers(tracker), payload)
    project = urllib.parse.quote(tracker.repository, safe="")
    payload = {"title": title, "description": body, **({"labels": ",".join(labels)} if labels else {})}
    return Request("POST", f"{base}/projects/{project}/issues", _headers(tracker), payload)


def issue_text(tracker: Tracker, bucket: Bucket) -> tuple[str, str]:
    """Title and body of the report for ``bucket``, from the tracker's templates or the built-in Markdown."""
    data = report_data(bucket=bucket, finding=selectors.bucket_example(bucket))
    # Plain values, never the model: a template must not reach bucket.tracker.token.
    plain = {field: getattr(bucket, field) for field in ("pk", "id", "title", "kind", "status", "crash_type")}
    title = render_with_template(tracker.title_template or "{{ title }}", {**data, "bucket": plain})
    title = unlinked(" ".join(title.split()) or bucket.title)[:TITLE_LIMIT]
    body = render_with_template(tracker.body_template, data) if tracker.body_template else render_markdown(data)
    return title, body


def filed_today(tracker: Tracker) -> int:
    since = timezone.now() - datetime.timedelta(days=1)
    return FiledIssue.objects.filter(tracker=tracker, created_at__gte=since).count()


def issue_file(*, bucket_id: int, tracker_id: int, user) -> FiledIssue:
    """Open an issue for the bucket, store its URL on the bucket and mark the bucket reported."""
    tracker = Tracker.objects.get(pk=tracker_id)
    if not tracker.can_file:
        raise TrackerError(f"{tracker.name} has no API URL, repository and token: export the report instead.")
    bucket = Bucket.objects.get(pk=bucket_id)
    if bucket.issue_url:
        raise TrackerError(f"#{bucket.pk} is already reported: {bucket.issue_url}")
    # Counted before the call, under a lock on the tracker row, so that two
    # maintainers filing at once cannot both take the last issue of the day.
    with transaction.atomic():
        Tracker.objects.select_for_update().get(pk=tracker.pk)
        # Again under the lock: two maintainers pressing File at once open one issue, not two.
        bucket = Bucket.objects.select_for_update().get(pk=bucket_id)
        if bucket.issue_url:
            raise TrackerError(f"#{bucket.pk} is already reported: {bucket.issue_url}")
        # A security-sensitive bug must not land in a public issue by one click.
        if bucket.restricted_to_id is not None:
            raise TrackerError(
                f"#{bucket.pk} is restricted: it is not filed through a tracker's API. Report it privately, "
                "or lift the restriction first."
            )
        if filed_today(tracker) >= tracker.daily_limit:
            raise TrackerError(
                f"{tracker.name} already has {tracker.daily_limit} issues from fuzzweb in the last 24 hours "
                "(its daily limit); file this one tomorrow or raise the limit in the admin."
            )
        title, body = issue_text(tracker, bucket)
        answer = _call(tracker, create_request(tracker, title, body))
        url, api_url = _issue_urls(tracker, answer)
        filed = FiledIssue.objects.create(tracker=tracker, bucket=bucket, url=url, api_url=api_url, user=user)
        Bucket.objects.filter(pk=bucket.pk).update(tracker=tracker, issue_url=url, issue_state="open")
        audit(bucket_id=bucket.pk, user=user, field="issue", new=url, note=f"filed to {tracker.name}")
        if bucket.status in (Status.NEW, Status.CONFIRMED):
            bucket_transition(bucket_id=bucket.pk, status=Status.REPORTED, user=user, reason=f"filed as {url}")
    return filed


def _issue_urls(tracker: Tracker, answer: dict) -> tuple[str, str]:
    if tracker.kind == Tracker.Kind.GITHUB:
        url, api_url = answer.get("html_url"), answer.get("url")
    else:
        url = answer.get("web_url")
        project, iid = answer.get("project_id"), answer.get("iid")
        api_url = f"{tracker.api_url.rstrip('/')}/projects/{project}/issues/{iid}" if project and iid else None
    if not url or not api_url:
        raise TrackerError(f"{tracker.name} answered without the new issue's address: {str(answer)[:200]}")
    return url, api_url


def _state(tracker: Tracker, answer: dict) -> str:
    state = answer.get("state", "")
    # GitHub says open/closed, GitLab opened/closed.
    return {"opened": "open", "open": "open", "closed": "closed"}.get(state, "")


def issues_sync() -> dict:
    """Read every filed issue's state back: closed marks a reported bucket fixed, reopened marks it reported."""
    counts = {"checked": 0, "changed": 0, "errors": 0}
    seen: set[int] = set()
    for filed in FiledIssue.objects.select_related("tracker").order_by("bucket_id", "-created_at").iterator():
        tracker = filed.tracker
        # Only the latest issue of each bucket speaks for it.
        if filed.bucket_id in seen or not tracker.can_file:
            continue
        seen.add(filed.bucket_id)
        counts["checked"] += 1
        try:
            answer = _call(tracker, Request("GET", filed.api_url, _headers(tracker)))
        except TrackerError:
            counts["errors"] += 1
            continue
        state = _state(tracker, answer)
        if state:
            counts["changed"] += issue_state_apply(bucket_id=filed.bucket_id, state=state, url=filed.url)
    return counts


def issue_state_apply(*, bucket_id: int, state: str, url: str) -> bool:
    """Record the tracker's state of the bucket's issue; return whether anything changed."""
    with transaction.atomic():
        bucket = Bucket.objects.select_for_update().get(pk=bucket_id)
        if bucket.issue_state == state:
            return False
        Bucket.objects.filter(pk=bucket_id).update(issue_state=state)
        audit(bucket_id=bucket_id, user=None, field="issue_state", old=bucket.issue_state, new=state, note=url)
        if state == "closed" and bucket.status == Status.REPORTED:
            bucket_transition(bucket_id=bucket_id, status=Status.FIXED, user=None, reason=f"issue closed: {url}")
        elif state == "open" and bucket.status == Status.FIXED:
            bucket_transition(bucket_id=bucket_id, status=Status.REPORTED, user=None, reason=f"issue reopened: {url}")
    return True
