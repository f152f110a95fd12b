"""A shard's heartbeat, beaten by a thread of the worker's process while the engine runs.

The engine's own progress reports are not enough: a differential program
can spend minutes in one compile (kotlinc, or a compiler near its time
limit), longer than the reaper waits before it decides the worker died. The
heartbeat means "this worker process is alive"; the engine's children have
their own time limits, so a live process is a working shard. A worker
killed outright stops beating with its threads, and the reaper takes over.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from campaigns.models import Shard, ShardStatus

log = logging.getLogger(__name__)
MAX_INTERVAL_SECONDS = 5.0


def interval() -> float:
    """Several beats within the time the reaper waits, and at least one every few seconds."""
    return min(MAX_INTERVAL_SECONDS, settings.FUZZWEB_SHARD_STALE_SECONDS / 4)


class Heartbeat:
    """``with Heartbeat(shard_id):`` keeps ``heartbeat_at`` fresh until the block ends."""

    def __init__(self, shard_id: int, every: float | None = None):
        self.shard_id = shard_id
        self.interval = every or interval()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"heartbeat-shard-{shard_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stopped.set()
        self.thread.join(timeout=self.interval + 5)

    def _beat(self) -> None:
        try:
            while not self.stopped.wait(self.interval):
                try:
                    Shard.objects.filter(pk=self.shard_id, status=ShardStatus.RUNNING).update(
                        heartbeat_at=timezone.now()
                    )
                except DatabaseError as error:
                    # The database is away: the next beat tries again on a new connection.
                    log.warning("shard %s: heartbeat not written (%s)", self.shard_id, error)
                    connection.close()
        finally:
            connection.close()  # this thread's own connection
