"""Typed values as JSON, for checkpoints (the corpus must survive a worker's death).

Tagged, so that a tuple comes back a tuple and bytes come back bytes:
``{"b": "aGk="}`` is ``b"hi"``. Only the types the value generator makes
are supported; JSON from the database is decoded without eval or pickle.
"""

from __future__ import annotations

import base64
import math

from engines.pyfunc.refs import Build, Generated, Member


def encode(value):
    """A JSON-compatible form of ``value``."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        # PostgreSQL's jsonb refuses NUL and lone surrogates, both of which
        # fuzzing produces on purpose: those strings travel as bytes.
        if "\x00" in value or any("\ud800" <= c <= "\udfff" for c in value):
            return {"u": base64.b64encode(value.encode("utf-8", "surrogatepass")).decode("ascii")}
        return value
    if isinstance(value, int):
        return {"i": str(value)}  # beyond 2**53 JSON numbers lose digits
    if isinstance(value, float):
        return {"f": repr(value) if math.isfinite(value) else str(value)}
    if isinstance(value, bytes):
        return {"b": base64.b64encode(value).decode("ascii")}
    if isinstance(value, list):
        return {"l": [encode(v) for v in value]}
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"fs": [encode(v) for v in value]}
    if isinstance(value, set):
        return {"s": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"d": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, Member):
        return {"M": [value.cls, value.name]}
    if isinstance(value, Build):
        return {"B": [value.cls, encode(value.args), encode(value.kwargs)]}
    if isinstance(value, Generated):
        return {"G": [value.generator, str(value.seed)]}
    raise TypeError(f"cannot checkpoint a {type(value).__name__}")


def decode(data):
    """The value ``encode`` was given."""
    if data is None or isinstance(data, (bool, str)):
        return data
    ((tag, payload),) = data.items()
    if tag == "i":
        return int(payload)
    if tag == "f":
        return float(payload)
    if tag == "b":
        return base64.b64decode(payload)
    if tag == "u":
        return base64.b64decode(payload).decode("utf-8", "surrogatepass")
    if tag == "l":
        return [decode(v) for v in payload]
    if tag == "t":
        return tuple(decode(v) for v in payload)
    if tag == "fs":
        return frozenset(decode(v) for v in payload)
    if tag == "s":
        return {decode(v) for v in payload}
    if tag == "d":
        return {decode(k): decode(v) for k, v in payload}
    if tag == "M":
        return Member(*payload)
    if tag == "B":
        return Build(payload[0], decode(payload[1]), decode(payload[2]))
    if tag == "G":
        return Generated(payload[0], int(payload[1]))
    raise ValueError(f"unknown tag {tag!r}")
