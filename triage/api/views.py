"""The ingest API: token-authenticated JSON endpoints for external fuzzers."""

from __future__ import annotations

import json
from dataclasses import replace

from django.http import JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from fuzzweb.api_auth import api_error, token_required
from triage.api.openapi import openapi_document
from triage.api.payload import InvalidPayload, bulk_items, parse_submission
from triage.ingest import Stored, findings_ingest
from triage.reduction import reductions_for_new_buckets
from triage.submission import Submission

# Large enough for a 50 MB trace plus its JSON escaping; the trace itself is
# stored truncated (with a note), the request is not refused.
MAX_BODY_BYTES = 128 * 1024 * 1024


class BadBody(Exception):
    """The body is not JSON we can read; the message says why."""


def _json_body(request):
    length = request.META.get("CONTENT_LENGTH")
    if length and length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise BadBody(f"request body of {int(length)} bytes exceeds the {MAX_BODY_BYTES} byte limit")
    # Read the stream directly: Django's DATA_UPLOAD_MAX_MEMORY_SIZE is sized
    # for forms, not for crash logs.
    body = request.read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        raise BadBody(f"request body exceeds the {MAX_BODY_BYTES} byte limit")
    if not body:
        raise BadBody("empty body: send a JSON object")
    try:
        return json.loads(body)
    except UnicodeDecodeError:
        raise BadBody("the body is not UTF-8; encode text as UTF-8 and binary testcases as testcase_base64") from None
    except json.JSONDecodeError as error:
        raise BadBody(f"malformed JSON: {error.msg} at line {error.lineno} column {error.colno}") from None


def _with_replay_right(request, submission: Submission) -> Submission:
    """A finding from the API may be re-run here only if an admin gave its token the replay right."""
    token = getattr(request, "api_token", None)
    return replace(submission, replay_allowed=bool(token is not None and token.replay))


def _describe(item: Stored) -> dict:
    return {
        "finding": item.finding.pk,
        "bucket": item.finding.bucket_id,
        "new_bucket": item.new_bucket,
        "duplicate": item.duplicate,
        "bucket_url": reverse("triage:bucket", args=[item.finding.bucket_id]),
    }


@token_required(needs="ingest")
@require_POST
def finding_create(request):
    try:
        submission = _with_replay_right(request, parse_submission(_json_body(request)))
    except BadBody as error:
        return api_error(400, str(error))
    except InvalidPayload as error:
        return api_error(400, "invalid finding", fields=error.errors)
    result = findings_ingest(submissions=[submission])
    reductions_for_new_buckets(result.new_buckets)
    stored = result.stored[0]
    return JsonResponse(_describe(stored), status=200 if stored.duplicate else 201)


@token_required(needs="ingest")
@require_POST
def findings_bulk(request):
    try:
        items = bulk_items(_json_body(request))
    except BadBody as error:
        return api_error(400, str(error))
    except InvalidPayload as error:
        return api_error(400, "invalid bulk request", fields=error.errors)
    valid, rejected = [], []
    for index, item in enumerate(items):
        try:
            valid.append((index, _with_replay_right(request, parse_submission(item))))
        except InvalidPayload as error:
            rejected.append({"index": index, "error": "invalid finding", "fields": error.errors})
    # Valid findings are stored even when others in the batch are not.
    result = findings_ingest(submissions=[s for _, s in valid]) if valid else None
    stored = result.stored if result else []
    if result:
        reductions_for_new_buckets(result.new_buckets)
    results = [{"index": index, **_describe(item)} for (index, _), item in zip(valid, stored, strict=True)]
    body = {"stored": len(results), "rejected": len(rejected), "results": results, "errors": rejected}
    if rejected:
        body["error"] = f"{len(rejected)} of {len(items)} findings were rejected; the others were stored"
    return JsonResponse(body, status=422 if rejected else 200)


@token_required
@require_GET
def openapi(request):
    return JsonResponse(openapi_document(request.build_absolute_uri("/")))
