"""GCC internal compiler errors.

``file.c:3:1: internal compiler error: in fold_convert_loc, at fold-const.cc:2567``
followed by a backtrace of ``0x8f2a3b fold_convert_loc(...)`` lines, each
with its source on the next line. The ICE location becomes the crash type
without its line number (which moves between GCC versions): ``internal
compiler error: in fold_convert_loc, at fold-const.cc``.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace

FORMAT = "gcc-ice"
_ICE = re.compile(r"internal compiler error: (?P<error>.+?)\s*$", re.MULTILINE)
_FRAME = re.compile(r"^\s*0x[0-9a-fA-F]+\s+(?P<function>\S.*?)\s*$")
_SOURCE = re.compile(r"^\s+(?P<file>\S+?):(?P<line>\d+)\s*$")
_PASS = re.compile(r"^during (?P<pass>.+ pass: \S+)", re.MULTILINE)


def recognize(text: str) -> bool:
    """True for a GCC internal compiler error."""
    if "internal compiler error" not in text:
        return False
    return bool(_ICE.search(text))


def parse(text: str) -> ParsedTrace:
    """Parse the ICE line and the backtrace after it."""
    ice = _ICE.search(text)
    location = re.sub(r"(\.\w+):\d+$", r"\1", ice["error"])
    frames: list[Frame] = []
    lines = text[ice.end() :].splitlines()
    for index, line in enumerate(lines):
        match = _FRAME.match(line)
        if not match:
            continue
        source = _SOURCE.match(lines[index + 1]) if index + 1 < len(lines) else None
        frames.append(
            Frame(
                function=match["function"],
                file=source["file"] if source else "",
                line=int(source["line"]) if source else None,
            )
        )
    stage = _PASS.search(text)
    message = ice["error"] + (f" (during {stage['pass']})" if stage else "")
    return ParsedTrace(
        format=FORMAT,
        crash_type=f"internal compiler error: {location}",
        message=message,
        frames=tuple(frames),
        language="native",
    )
