"""A job planted in Redis as a pickle does not run: workers read JSON only."""

from __future__ import annotations

import os
from pathlib import Path

import django_rq
import pytest
from rq import Queue
from rq.serializers import DefaultSerializer

from tests.conftest import run_worker_burst

CANARY = Path(__file__).resolve().parents[2] / "pickle-ran"


class _Planted:
    """Unpickling this runs a shell command: what anyone able to write to Redis could queue."""

    def __reduce__(self):
        return (os.system, (f"touch {CANARY}",))


@pytest.mark.django_db(transaction=True)
def test_a_pickled_job_is_never_unpickled_by_a_worker():
    CANARY.unlink(missing_ok=True)
    connection = django_rq.get_connection("default")
    planted = Queue("default", connection=connection, serializer=DefaultSerializer)
    planted.empty()
    planted.enqueue(print, _Planted())
    try:
        result = run_worker_burst(timeout=120, queues=["default"])
        assert result.returncode == 0, result.stderr[-2000:]
        assert not CANARY.exists(), "a pickle from Redis ran on the worker"
        # Jobs of our own still run (JSON): the queue is not simply dead.
        assert django_rq.get_queue("default").serializer.__name__ == "JSONSerializer"
    finally:
        CANARY.unlink(missing_ok=True)
