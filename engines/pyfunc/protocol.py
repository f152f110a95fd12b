"""Length-prefixed framing between the engine and its child process.

Requests go parent -> child as pickle (the parent trusts its own data).
Responses go child -> parent as JSON: the child runs fuzzed code, and
unpickling anything it wrote would hand it the worker.
"""

from __future__ import annotations

import json
import os
import pickle
import select
import struct
import time

_HEADER = struct.Struct(">I")
MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class ChannelClosed(Exception):
    """The other side exited or closed its end."""


class ChannelTimeout(Exception):
    """No complete message arrived before the deadline."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def send_request(fd: int, message) -> None:
    """Send a pickled request (parent side)."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(fd, _HEADER.pack(len(body)) + body)


def send_response(fd: int, message: dict) -> None:
    """Send a JSON response (child side)."""
    body = json.dumps(message).encode("utf-8")
    _write_all(fd, _HEADER.pack(len(body)) + body)


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    chunks = []
    remaining = size
    while remaining:
        if deadline is not None:
            timeout = deadline - time.monotonic()
            if timeout <= 0 or not select.select([fd], [], [], timeout)[0]:
                raise ChannelTimeout()
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise ChannelClosed()
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def receive_request(fd: int):
    """Block for the next request (child side); raise ChannelClosed at EOF."""
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, None))
    return pickle.loads(_read_exact(fd, size, None))  # noqa: S301 - written by the parent, which we trust


def receive_response(fd: int, timeout: float) -> dict:
    """Wait up to ``timeout`` seconds for a JSON response (parent side)."""
    deadline = time.monotonic() + timeout
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size, deadline))
    if size > MAX_RESPONSE_BYTES:
        raise ChannelClosed(f"response of {size} bytes exceeds the limit")
    message = json.loads(_read_exact(fd, size, deadline))
    if not isinstance(message, dict):
        raise ChannelClosed("malformed response")
    return message
