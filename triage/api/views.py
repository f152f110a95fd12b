"""The ingest API: token-authenticated JSON endpoints for external fuzzers."""

from __future__ import annotations

from django.http import JsonResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from fuzzweb.api_auth import api_error, token_required
from fuzzweb.json_body import BadBody, json_body_read
from triage.api.openapi import openapi_document
from triage.api.payload import InvalidPayload, bulk_items, parse_submission
from triage.ingest import Stored
from triage.receive import findings_receive
from triage.visibility import bucket_visible

# Room for a trace of several MiB with its JSON escaping, or a bulk batch of
# ordinary findings; a longer trace inside it is stored truncated with a note.
MAX_BODY_BYTES = 32 * 1024 * 1024


def _describe(item: Stored, *, user) -> dict:
    """What the submitter learns of a stored finding: its bucket only if the token's user may see it.

    A finding can land in a restricted bucket (its signature's, or one its
    bucket was merged into). The fuzzer is told the finding was stored and
    counted, as for any other, but not which bucket holds it: no number, no
    link, nothing to look up. Whether it joined an existing bucket or repeated
    a stored testcase is about its own submission and stays.
    """
    if not bucket_visible(user, item.finding.bucket_id):
        return {
            "finding": item.finding.pk,
            "new_bucket": item.new_bucket,
            "duplicate": item.duplicate,
            "note": "stored and counted; its bucket is restricted to a group this token's account is not in",
        }
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
        # Any JSON value: the payload parsers name a wrong shape by its field.
        submission = parse_submission(json_body_read(request, limit=MAX_BODY_BYTES, object_required=False))
    except BadBody as error:
        return api_error(error.status, str(error))
    except InvalidPayload as error:
        return api_error(400, "invalid finding", fields=error.errors)
    stored = findings_receive(submissions=[submission], token=request.api_token).stored[0]
    return JsonResponse(_describe(stored, user=request.user), status=200 if stored.duplicate else 201)


@token_required(needs="ingest")
@require_POST
def findings_bulk(request):
    try:
        items = bulk_items(json_body_read(request, limit=MAX_BODY_BYTES, object_required=False))
    except BadBody as error:
        return api_error(error.status, str(error))
    except InvalidPayload as error:
        return api_error(400, "invalid bulk request", fields=error.errors)
    valid, rejected = [], []
    for index, item in enumerate(items):
        try:
            valid.append((index, parse_submission(item)))
        except InvalidPayload as error:
            rejected.append({"index": index, "error": "invalid finding", "fields": error.errors})
    # Valid findings are stored even when others in the batch are not.
    stored = findings_receive(submissions=[s for _, s in valid], token=request.api_token).stored if valid else []
    results = [
        {"index": index, **_describe(item, user=request.user)} for (index, _), item in zip(valid, stored, strict=True)
    ]
    body = {"stored": len(results), "rejected": len(rejected), "results": results, "errors": rejected}
    if rejected:
        body["error"] = f"{len(rejected)} of {len(items)} findings were rejected; the others were stored"
    return JsonResponse(body, status=422 if rejected else 200)


@token_required
@require_GET
def openapi(request):
    return JsonResponse(openapi_document(request.build_absolute_uri("/")))
