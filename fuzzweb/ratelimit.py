"""Rate limits counted in fixed windows kept in Redis, shared by every web process.

Used for ingest (per token: requests in the current minute, :func:`rate_add`)
and for failed logins (per client address and per user name). Failed logins
are read over the current window and the one before it (:func:`rate_count`):
read over the current window alone, a count would drop to nothing at each
window's start, handing a guesser a fresh allowance just after the limit
stopped them. Redis down means no limit rather than no service: the
dashboard and ingest keep working, and the failure is logged.
"""

from __future__ import annotations

import logging
import time

import django_rq
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def _window(window_seconds: int, now: float | None = None) -> int:
    return int((time.time() if now is None else now) // window_seconds)


def _key(name: str, window: int) -> str:
    return f"fuzzweb:rate:{name}:{window}"


def rate_add(name: str, *, window_seconds: int) -> int:
    """Count one event of ``name`` in the current window; return the window's count (0 if Redis is down)."""
    key = _key(name, _window(window_seconds))
    try:
        pipe = django_rq.get_connection("default").pipeline()
        pipe.incr(key)
        # Read for two windows: this one and, as the one before, the next.
        pipe.expire(key, window_seconds * 3)
        count, _ = pipe.execute()
    except RedisError as error:
        log.warning("rate limit %s not counted: %s", name, error)
        return 0
    return int(count)


def _counts(name: str, window_seconds: int, now: float) -> tuple[int, int]:
    """Events of ``name`` in the window before the current one, and in the current one."""
    current = _window(window_seconds, now)
    try:
        before, this = django_rq.get_connection("default").mget([_key(name, current - 1), _key(name, current)])
    except RedisError as error:
        log.warning("rate limit %s not read: %s", name, error)
        return 0, 0
    return int(before or 0), int(this or 0)


def rate_count(name: str, *, window_seconds: int) -> int:
    """Events of ``name`` in the current window and the one before it.

    So an event counts for at least one whole window and at most two.
    """
    return sum(_counts(name, window_seconds, time.time()))


def window_remaining(window_seconds: int, now: float | None = None) -> int:
    """Seconds until the current window ends (when :func:`rate_add`'s count starts again)."""
    return window_seconds - int(time.time() if now is None else now) % window_seconds


def retry_after(name: str, *, window_seconds: int, limit: int) -> int:
    """Seconds until :func:`rate_count` of ``name`` is below ``limit`` again (1 at least)."""
    now = time.time()
    before, this = _counts(name, window_seconds, now)
    to_next = window_remaining(window_seconds, now)
    # Once this window ends, the one before it is no longer read.
    if this >= limit:
        return to_next + window_seconds  # this window's events are still read during the next
    return to_next if before + this >= limit else 1
