"""MSVC's internal compiler errors (C1001), keyed by the place in the compiler that gave up.

``x.cpp(670) : fatal error C1001: Internal compiler error.``
``(compiler file 'd:\\a01\\_work\\20\\s\\src\\vctools\\Compiler\\Utc\\src\\p2\\main.c', line 217)``

Older compilers say "An internal error has occurred in the compiler." and
name the file bare (``'msc1.cpp', line 1518``). The compiler's file and line
are what Microsoft's engineers read an ICE by (the back end's p2\\main.c and
the front end's p1\\… are different phases, so the file keeps its folder).
But a few of those places are the compiler's catch-all (msc1.cpp's line
1518, p2\\main.c's 2xx): many bugs report them. So the user's file that
crashed the compiler (its name, not its line) is part of the key too, and
the key is the target's: the same catch-all reached from two projects'
code is two bugs as often as one.
"""

from __future__ import annotations

import re

from crashes.model import INPUT, ParsedTrace
from crashes.traces.text import lines_of

FORMAT = "msvc-ice"
_C1001 = re.compile(r"\berror C1001:")
# The user's file the C1001 line names: "D:\\…\\opennurbs_lookup.cpp(670) : fatal error C1001: …".
_INPUT = re.compile(r"(?P<file>[^\s\\/()]{1,200})\(\d{1,9}(?:,\d{1,9})?\)\s?: (?:fatal )?error C1001:")
_COMPILER_FILE = re.compile(r"\(compiler file '(?P<file>[^'\n]{1,500})', line (?P<line>\d{1,9})\)")
# How many lines below the C1001 line its compiler file may be.
_FILE_WITHIN = 3


def recognize(text: str) -> bool:
    return "C1001" in text and bool(_C1001.search(text))


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at = next(index for index, line in enumerate(lines) if "C1001" in line and _C1001.search(line))
    site, site_line = "", None
    for line in lines[at : at + _FILE_WITHIN + 1]:
        found = _COMPILER_FILE.search(line)
        if found:
            parts = found["file"].replace("\\", "/").split("/")
            site, site_line = "/".join(parts[-2:]), int(found["line"])
            break
    source = _INPUT.search(lines[at])
    # The site keeps its line: one compiler file holds many checks.
    return ParsedTrace(
        format=FORMAT,
        crash_type="internal compiler error C1001",
        language="native",
        site=f"{site}:{site_line}" if site else "",
        context=(INPUT + source["file"],) if source else (),
    )
