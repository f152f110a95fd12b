"""The JSON body of an API request, read within a size limit, with an error that says what is wrong."""

from __future__ import annotations

import json
import math
import sys


class BadBody(ValueError):
    """The body is not JSON we can read; the message says why.

    A ValueError, so a view that answers every invalid input alike can catch
    that; ``status`` is for views that answer an oversized body with 413.
    """

    status = 400


class BodyTooLarge(BadBody):
    status = 413


def _refuse_constant(name: str):
    # Python reads NaN and Infinity, which are not JSON: PostgreSQL's json
    # columns refuse them at write time, long after the request was accepted.
    raise BadBody(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 reads as inf, which nothing can store either
        raise BadBody(f"the number {text[:40]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    # Past this Python refuses to convert (a guard against quadratic-time
    # parsing) with a plain ValueError that would otherwise reach the client as a 500.
    digits, most = len(text.lstrip("-")), sys.get_int_max_str_digits()
    if most and digits > most:
        raise BadBody(f"an integer of {digits} digits: at most {most}")
    return int(text)


def json_body_read(request, *, limit: int, object_required: bool = True):
    """The decoded JSON body of ``request``, of at most ``limit`` bytes; raises BadBody saying what is wrong.

    With ``object_required`` anything but a JSON object is refused; without it
    the caller checks the shape and names the problem its own way.
    """
    length = request.META.get("CONTENT_LENGTH")
    if length and length.isdigit() and int(length) > limit:
        # Refused from the header alone: nothing of it is read or parsed.
        raise BodyTooLarge(f"request body of {int(length)} bytes exceeds the {limit} byte limit")
    # Read the stream directly: Django's DATA_UPLOAD_MAX_MEMORY_SIZE is sized
    # for forms, not for crash logs. One byte over the limit is enough to know.
    body = request.read(limit + 1)
    if len(body) > limit:
        raise BodyTooLarge(f"request body exceeds the {limit} byte limit")
    if not body:
        raise BadBody("empty body: send a JSON object")
    try:
        data = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_bounded_int)
    except UnicodeDecodeError:
        raise BadBody("the body is not UTF-8: send text as UTF-8 and bytes base64-encoded in a string") from None
    except json.JSONDecodeError as error:
        raise BadBody(f"malformed JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except RecursionError:
        raise BadBody("JSON nested too deeply") from None
    if object_required and not isinstance(data, dict):
        raise BadBody("send a JSON object")
    return data
