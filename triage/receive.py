"""The one door findings come in by: a campaign's shard on our workers, or the ingest API.

Storing, the campaign's counters and the automatic reductions that follow
happen here, so the rule of who may make this server run code lives in one
place: findings of this installation's own campaigns are re-run (reduced,
verified); findings from the API only when an admin gave the token the
replay right. Everything else about them (parsing, bucketing) is the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from django.db.models import F

from triage.culprits import culprits_for_new_findings
from triage.ingest import IngestResult, findings_ingest
from triage.reduction import reductions_for_new_buckets
from triage.submission import Submission


def findings_receive(*, submissions: Sequence[Submission], campaign_id: int | None = None, token=None) -> IngestResult:
    """Store ``submissions`` from a campaign (``campaign_id``) or through the API (``token``) and act on them."""
    if (campaign_id is None) == (token is None):
        raise ValueError("findings come from a campaign or through a token, exactly one of the two")
    replay = campaign_id is not None or bool(token.replay)
    result = findings_ingest(
        submissions=[replace(s, replay_allowed=replay) for s in submissions], campaign_id=campaign_id
    )
    if campaign_id is not None:
        from campaigns.models import Campaign

        Campaign.objects.filter(pk=campaign_id).update(
            findings_count=F("findings_count") + sum(s.hits for s in submissions),
            new_buckets=F("new_buckets") + len(result.new_buckets),
        )
    reductions_for_new_buckets(result.new_buckets)
    if replay:
        culprits_for_new_findings([item.finding for item in result.stored if not item.duplicate])
    return result
