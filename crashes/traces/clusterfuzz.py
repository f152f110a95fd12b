"""ClusterFuzz's crash summary (OSS-Fuzz's issues, its testcase pages): the sanitizer report it stands for.

``Crash Type: Heap-buffer-overflow READ 4``
``Crash Address: 0x602000000f94``
``Crash State:``
``  yaml_emitter_emit_flow_mapping_key``
``  yaml_emitter_emit``
``  yaml_emitter_dump_node``

The state is ClusterFuzz's own grouping: the top three frames of the
program's code below the sanitizer's. It is read as that sanitizer report
(format ``sanitizer``), its type as the sanitizer names it
("heap-buffer-overflow READ", without the access's size), so that the
summary an issue quotes and the report a maintainer pastes below it are
one crash.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, lines_of

FORMAT = "sanitizer"
_TYPE = re.compile(r"^\s{0,8}Crash Type: (?P<type>\S.{0,200}?)\s*$")
_STATE = re.compile(r"^\s{0,8}Crash State:\s*$")
# A state line is a function's name (or ClusterFuzz's "NULL" for an unknown one).
_STATE_LINE = re.compile(r"^\s{0,8}(?P<function>[^\s:][^\n]{0,500}?)\s*$")
_FIELD = re.compile(r"^\s{0,8}[A-Z][\w ]{0,40}:(?:\s|$)")
_STATE_LINES = 3
# "Heap-buffer-overflow READ 4" -> the kind and the access; ClusterFuzz's names for what ASan calls SEGV.
_ACCESS = re.compile(r"^(?P<kind>\S+)(?: (?P<access>READ|WRITE)\b)?")
_SEGV = re.compile(r"(?i)^(?:null-dereference|segv on unknown address)")


def recognize(text: str) -> bool:
    if "Crash State:" not in text or "Crash Type: " not in text:
        return False
    return _state_at(list(lines_of(text))) != -1


def _state_at(lines: list[str]) -> int:
    """The index of the "Crash State:" line a "Crash Type:" line stands a few lines above, or -1."""
    for index, line in enumerate(lines):
        stated = "Crash State:" in line and _STATE.match(line[:MAX_LINE])
        if stated and any(_TYPE.match(above[:MAX_LINE]) for above in lines[max(0, index - 4) : index]):
            return index
    return -1


def crash_type(summary: str) -> str:
    """``Heap-buffer-overflow READ 4`` -> ``heap-buffer-overflow READ``; ``Null-dereference READ`` -> ``SEGV``."""
    if _SEGV.match(summary):
        return "SEGV"
    found = _ACCESS.match(summary)
    kind = found["kind"].lower()
    return f"{kind} {found['access']}" if found["access"] else kind


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at = _state_at(lines)
    summary = next(m["type"] for above in lines[max(0, at - 4) : at] if (m := _TYPE.match(above[:MAX_LINE])))
    frames = []
    for line in lines[at + 1 : at + 1 + _STATE_LINES]:
        clipped = line[:MAX_LINE]
        if not clipped.strip() or _FIELD.match(clipped):
            break
        found = _STATE_LINE.match(clipped)
        if found and found["function"] != "NULL":
            frames.append(Frame(function=found["function"]))
    return ParsedTrace(format=FORMAT, crash_type=crash_type(summary), frames=tuple(frames), language="native")
