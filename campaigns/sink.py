"""The engine's event sink for a campaign: findings to triage, stats to the row."""

from __future__ import annotations

import time

from django.db.models import F
from django.utils import timezone

from campaigns.models import Campaign, CampaignStatus
from engines import events
from triage.ingest import findings_ingest
from triage.submission import submission_from_engine

FLUSH_INTERVAL_SECONDS = 0.5
FLUSH_BATCH = 500
STOP_POLL_SECONDS = 0.5


class CampaignSink:
    """Buffers findings and writes them in batches; answers "should I stop?"."""

    def __init__(self, campaign_id: int, engine: str):
        self.campaign_id = campaign_id
        self.engine = engine
        self.buffer: list[events.Finding] = []
        self.last_flush = time.monotonic()
        self.last_poll = 0.0
        self.stop_requested = False

    def finding(self, finding: events.Finding) -> None:
        self.buffer.append(finding)
        if len(self.buffer) >= FLUSH_BATCH or time.monotonic() - self.last_flush >= FLUSH_INTERVAL_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Store buffered findings and count them on the campaign."""
        self.last_flush = time.monotonic()
        if not self.buffer:
            return
        batch, self.buffer = self.buffer, []
        submissions = [submission_from_engine(finding, self.engine) for finding in batch]
        result = findings_ingest(submissions=submissions, campaign_id=self.campaign_id)
        Campaign.objects.filter(pk=self.campaign_id).update(
            findings_count=F("findings_count") + len(batch),
            new_buckets=F("new_buckets") + len(result.new_buckets),
        )

    def stats(self, stats: events.Stats) -> None:
        self.flush()
        Campaign.objects.filter(pk=self.campaign_id).update(executions=stats.executions, heartbeat_at=timezone.now())

    def should_stop(self) -> bool:
        now = time.monotonic()
        if not self.stop_requested and now - self.last_poll >= STOP_POLL_SECONDS:
            self.last_poll = now
            self.stop_requested = Campaign.objects.filter(pk=self.campaign_id, status=CampaignStatus.STOPPING).exists()
        return self.stop_requested
