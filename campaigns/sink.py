"""The engine's event sink for one shard: findings to triage, progress to the shard.

Database trouble (PostgreSQL restarting, a dropped connection) must not cost
findings: a batch that cannot be written stays in the buffer and is retried
with backoff, and the engine keeps running meanwhile.
"""

from __future__ import annotations

import logging
import socket
import time

from django.db import InterfaceError, OperationalError, close_old_connections, connection
from django.utils import timezone

from campaigns.examples import examples_from_engine
from campaigns.models import (
    Campaign,
    CampaignStatus,
    FunctionExamples,
    ProgramRun,
    Shard,
    ShardStatus,
    StatSample,
    Target,
)
from engines import events
from triage.receive import findings_receive
from triage.submission import submission_from_engine

log = logging.getLogger(__name__)

FLUSH_INTERVAL_SECONDS = 0.5
FLUSH_BATCH = 500
STOP_POLL_SECONDS = 1.0
SAMPLE_INTERVAL_SECONDS = 2.0
# How long to keep retrying a write before giving up on the shard. The
# buffer is bounded too: past it, the engine is told to stop.
WRITE_RETRY_SECONDS = 300
MAX_BUFFER = 50_000
_TRANSIENT = (OperationalError, InterfaceError)


class ShardSink:
    """Buffers findings and writes them in batches; reports progress; answers "stop?"."""

    def __init__(self, shard: Shard):
        self.shard_id = shard.pk
        self.campaign_id = shard.campaign_id
        self.engine = shard.campaign.engine
        self.target_id = shard.campaign.target_id
        self.base_elapsed = shard.elapsed_seconds
        self.buffer: list[events.Finding] = []
        self.programs: list[events.ProgramRecord] = []
        self.last_flush = time.monotonic()
        self.last_poll = 0.0
        self.last_sample = 0.0
        self.stop_requested = False
        self.failing_since: float | None = None

    # --- EventSink -------------------------------------------------------
    def finding(self, finding: events.Finding) -> None:
        self.buffer.append(finding)
        if len(self.buffer) >= FLUSH_BATCH or time.monotonic() - self.last_flush >= FLUSH_INTERVAL_SECONDS:
            self.flush()

    def stats(self, stats: events.Stats) -> None:
        self.flush()
        self.flush_programs()
        elapsed = self.base_elapsed + stats.elapsed_seconds
        now = timezone.now()

        def write():
            Shard.objects.filter(pk=self.shard_id).update(
                executions=stats.executions,
                findings=stats.findings,
                restarts=stats.restarts,
                elapsed_seconds=elapsed,
                heartbeat_at=now,
            )
            if time.monotonic() - self.last_sample >= SAMPLE_INTERVAL_SECONDS:
                self.last_sample = time.monotonic()
                buckets = Campaign.objects.filter(pk=self.campaign_id).values_list("new_buckets", flat=True).first()
                StatSample.objects.create(
                    campaign_id=self.campaign_id,
                    shard_id=self.shard_id,
                    at=now,
                    elapsed_seconds=elapsed,
                    executions=stats.executions,
                    executions_per_second=stats.executions_per_second,
                    findings=stats.findings,
                    campaign_buckets=buckets or 0,
                )

        self._attempt(write)

    def discovered(self, functions: list[str], skipped: list[dict]) -> None:
        """What the engine found to fuzz in the target, and what it could not."""
        discovery = {"functions": functions, "skipped": skipped}
        self._attempt(lambda: Shard.objects.filter(pk=self.shard_id).update(discovery=discovery))

    def installed(self, package: str, log: str, ok: bool) -> None:
        """A package target was installed on this worker (or failed to be): its log, for the target page."""
        target_id = self.target_id
        text = f"{package} on {socket.gethostname()}:\n{log}"[-64 * 1024 :]
        self._attempt(lambda: Target.objects.filter(pk=target_id).update(install_log=text, install_ok=ok))

    def examples(self, function: str, report: dict) -> None:
        """A function's source and examples, replacing what this shard reported before."""
        fields = examples_from_engine(report)

        def write():
            FunctionExamples.objects.update_or_create(
                shard_id=self.shard_id, name=function[:255], defaults={"campaign_id": self.campaign_id, **fields}
            )

        # Lost on a database outage: the next report (or the last) brings them back.
        self._attempt(write)

    def program(self, record: events.ProgramRecord) -> None:
        """A differential engine's program and its outcomes: written with the next progress report."""
        self.programs.append(record)

    def checkpoint(self, state: dict) -> None:
        self.flush_programs()
        self._attempt(lambda: Shard.objects.filter(pk=self.shard_id).update(checkpoint=state))

    def should_stop(self) -> bool:
        now = time.monotonic()
        if not self.stop_requested and now - self.last_poll >= STOP_POLL_SECONDS:
            self.last_poll = now

            def poll():
                self.stop_requested = (
                    Campaign.objects.filter(pk=self.campaign_id, status=CampaignStatus.STOPPING).exists()
                    or not Shard.objects.filter(pk=self.shard_id, status=ShardStatus.RUNNING).exists()
                )

            self._attempt(poll)
        if len(self.buffer) > MAX_BUFFER:
            # The database has been away for long: stop rather than grow
            # without bound. The shard resumes from its checkpoint later.
            return True
        return self.stop_requested

    # --- writing ---------------------------------------------------------
    def flush(self) -> bool:
        """Store buffered findings; False (and the buffer kept) if the database is away."""
        self.last_flush = time.monotonic()
        if not self.buffer:
            return True
        batch = list(self.buffer)

        def write():
            submissions = [submission_from_engine(finding, self.engine) for finding in batch]
            findings_receive(submissions=submissions, campaign_id=self.campaign_id)

        if self._attempt(write):
            del self.buffer[: len(batch)]
            return True
        return False

    def flush_programs(self) -> bool:
        """Store buffered program records; kept for the next try if the database is away."""
        if not self.programs:
            return True
        batch = list(self.programs)

        def write():
            rows = [
                ProgramRun(
                    campaign_id=self.campaign_id,
                    shard_id=self.shard_id,
                    number=r.number,
                    seed=r.seed,
                    generator=r.generator,
                    outcomes=r.outcomes,
                    seconds=r.seconds,
                    findings=r.findings,
                )
                for r in batch
            ]
            # A shard resumed from an older checkpoint numbers some programs again: the first record stays.
            ProgramRun.objects.bulk_create(rows, ignore_conflicts=True)

        if self._attempt(write):
            del self.programs[: len(batch)]
            return True
        return False

    def drain(self, timeout: float = WRITE_RETRY_SECONDS) -> None:
        """At the end of a run: keep trying until every buffered finding is stored."""
        deadline = time.monotonic() + timeout
        while not (self.flush() and self.flush_programs()):
            if time.monotonic() > deadline:
                raise OperationalError(f"could not store {len(self.buffer)} findings: database unavailable")
            time.sleep(2)

    def _attempt(self, write) -> bool:
        """Run one write; on a transient database error, reconnect next time and report False."""
        try:
            write()
        except _TRANSIENT as error:
            now = time.monotonic()
            self.failing_since = self.failing_since or now
            log.warning("shard %s: database unavailable (%s); will retry", self.shard_id, error)
            # Drop the broken connection so the next attempt opens a new one.
            close_old_connections()
            if connection.connection is not None:
                connection.close()
            if now - self.failing_since > WRITE_RETRY_SECONDS:
                raise
            return False
        self.failing_since = None
        return True
