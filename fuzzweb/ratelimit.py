"""Fixed-window rate limits kept in Redis, shared by every web process.

Used for failed logins (per client address and per user name) and for
ingest (per token). Redis down means no limit rather than no service: the
dashboard and ingest keep working, and the failure is logged.
"""

from __future__ import annotations

import logging
import time

import django_rq
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def _key(name: str, window_seconds: int) -> str:
    return f"fuzzweb:rate:{name}:{int(time.time() // window_seconds)}"


def rate_add(name: str, *, window_seconds: int) -> int:
    """Count one event of ``name`` in the current window; return the window's count (0 if Redis is down)."""
    key = _key(name, window_seconds)
    try:
        pipe = django_rq.get_connection("default").pipeline()
        pipe.incr(key)
        pipe.expire(key, window_seconds * 2)
        count, _ = pipe.execute()
    except RedisError as error:
        log.warning("rate limit %s not counted: %s", name, error)
        return 0
    return int(count)


def rate_count(name: str, *, window_seconds: int) -> int:
    """Events of ``name`` so far in the current window."""
    try:
        value = django_rq.get_connection("default").get(_key(name, window_seconds))
    except RedisError as error:
        log.warning("rate limit %s not read: %s", name, error)
        return 0
    return int(value or 0)


def retry_after(window_seconds: int) -> int:
    """Seconds until the current window ends."""
    return window_seconds - int(time.time()) % window_seconds
