"""The reduce queue: reductions and culprit searches, queued after the commit that asked for them.

They are queued from inside a campaign's shard (a new bucket, a wrong-code
finding): a Redis restart at that moment must cost at most the queueing,
never the shard.
"""

from __future__ import annotations

import logging

import django_rq
from redis.exceptions import RedisError

# Workers take the engines' queues first: what waits here runs behind campaigns.
QUEUE = "reduce"

log = logging.getLogger(__name__)


def enqueue(job, *args, **options) -> bool:
    """Put ``job(*args)`` on the reduce queue; False, logged, when Redis cannot be reached."""
    try:
        django_rq.get_queue(QUEUE).enqueue(job, *args, **options)
    except RedisError as error:
        log.warning("%s%s not queued, Redis did not answer: %s", job.__name__, args, error)
        return False
    return True
