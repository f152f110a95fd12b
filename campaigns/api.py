"""Targets and campaigns over the API, for scripts and CI (the same services as the pages).

Defining a target or launching a campaign makes workers run commands, so a
token needs, besides the write scope on a triager's account, the replay
right an admin grants (as for findings that may be re-run).
"""

from __future__ import annotations

from django.http import JsonResponse
from django.urls import reverse

from campaigns.launch import campaign_launch
from campaigns.models import Campaign, Target
from campaigns.selectors import campaign_outcome
from campaigns.targets import TargetInvalid, target_description, target_save, text_storable
from fuzzweb.api_auth import api_error, token_required
from fuzzweb.json_body import BadBody, json_body_read

BODY_LIMIT = 256 * 1024
MAX_SECONDS = 7 * 24 * 3600


def _runs_code_refusal(request) -> JsonResponse | None:
    token = getattr(request, "api_token", None)
    if token is None or not token.replay:
        return api_error(403, "this token may not make workers run code; an admin can give it the replay right")
    return None


@token_required(needs={"GET": "read", "POST": "write"})
def target_collection(request):
    if request.method == "GET":
        return JsonResponse({"targets": [target_description(t) for t in Target.objects.order_by("name")]})
    refusal = _runs_code_refusal(request)
    if refusal is not None:
        return refusal
    try:
        target, created = target_save(description=json_body_read(request, limit=BODY_LIMIT), user=request.user)
    except ValueError as error:  # TargetInvalid names each problem's field; BadBody says what is wrong with the body
        problems = error.problems if isinstance(error, TargetInvalid) else [str(error)]
        return api_error(400, "the target is not valid", problems=problems)
    return JsonResponse(target_description(target), status=201 if created else 200)


@token_required(needs={"GET": "read", "POST": "write"})
def campaign_collection(request):
    if request.method == "GET":
        recent = Campaign.objects.select_related("target").order_by("-pk")[:50]
        return JsonResponse({"campaigns": [_campaign_line(c) for c in recent]})
    refusal = _runs_code_refusal(request)
    if refusal is not None:
        return refusal
    try:
        data = json_body_read(request, limit=BODY_LIMIT)
    except BadBody as error:  # 400 even when oversized (not its 413): what this endpoint has always answered
        return api_error(400, str(error))
    problems = {}
    name = str(data.get("target", ""))
    # PostgreSQL refuses a NUL or a lone surrogate even as a query's parameter; no target's name has one.
    target = Target.objects.filter(name=name).first() if text_storable(name) else None
    if target is None:
        problems["target"] = "the name of an existing target"
    seconds, shards, seed = data.get("seconds"), data.get("shards", 1), data.get("seed")
    if not isinstance(seconds, int) or not 1 <= seconds <= MAX_SECONDS:
        problems["seconds"] = f"an integer from 1 to {MAX_SECONDS}"
    if not isinstance(shards, int) or not 1 <= shards <= 64:
        problems["shards"] = "an integer from 1 to 64"
    if seed is not None and (not isinstance(seed, int) or not 0 <= seed < 2**31):
        problems["seed"] = "an integer from 0 to 2**31-1"
    if problems:
        return api_error(400, "the campaign cannot be launched", fields=problems)
    campaign = campaign_launch(
        target=target, time_budget_seconds=seconds, shard_count=shards, seed=seed, user=request.user
    )
    body = campaign_outcome(campaign, user=request.user)
    body["api_url"] = reverse("api:campaign", args=[campaign.pk])
    return JsonResponse(body, status=201)


def _campaign_line(campaign: Campaign) -> dict:
    return {
        "id": campaign.pk,
        "target": campaign.target.name,
        "status": campaign.status,
        "created_at": campaign.created_at.isoformat(),
        "api_url": reverse("api:campaign", args=[campaign.pk]),
    }


@token_required(needs={"GET": "read"})
def campaign_item(request, pk: int):
    """A campaign's state and buckets; ``failing`` is true once it opened a bucket nobody muted."""
    campaign = Campaign.objects.select_related("target").filter(pk=pk).first()
    if campaign is None:  # in the API's error shape, not Django's HTML page, as for a missing bucket
        return api_error(404, f"no campaign #{pk}")
    return JsonResponse(campaign_outcome(campaign, user=request.user))
