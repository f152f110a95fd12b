"""Windows Error Reporting's problem signature and the event log's Application Error, as users copy them.

``Problem Event Name:	APPCRASH`` / ``Fault Module Name:	notepad++.exe`` / ``Fault Module Version:	7.4.1.0`` /
``Exception Code:	c0000005`` / ``Exception Offset:	00063b8a`` (the problem details dialog), and the event
log's ``Faulting module name: ntdll.dll, version: 10.0.19041.1, time stamp: 0x…`` / ``Exception code:
0xc0000005`` / ``Fault offset: 0x000000000004c3b2`` (in German: ``Name des fehlerhaften Moduls``,
``Ausnahmecode``, ``Fehleroffset``).

No stack is printed: the place is the application, the faulting module, its version and the offset
into it (the fields Windows Error Reporting reports a crash by). An offset means something only within
one build of its module, so the version is part of the place; the application's version, the time
stamps and the "Additional Information" hashes are one machine's. A .NET or C++ exception
(0xe0434352, 0xe06d7363) faults where the system raises every such exception (KernelBase's
RaiseException): its place names no bug.
"""

from __future__ import annotations

import re

from crashes.model import ParsedTrace
from crashes.traces.debugger_stack import exception_type
from crashes.traces.text import find_lines

FORMAT = "windows-error-report"
_MODULE = re.compile(
    r"^[\s*]{0,8}(?:Fault Module Name|Faulting module name|Name des fehlerhaften Moduls)\s{0,8}:\s{0,8}"
    r"(?P<name>[^,\s][^,\t\n]{0,200}?)(?:,\s{0,8}[Vv]ersion\s{0,8}:\s{0,8}(?P<version>[\d.]{1,40}))?\s*(?:,|$)"
)
_APPLICATION = re.compile(
    r"^[\s*]{0,8}(?:Application Name|Faulting application name|Name der fehlerhaften Anwendung)\s{0,8}:\s{0,8}"
    r"(?P<name>[^,\s][^,\t\n]{0,200}?)\s*(?:,|$)"
)
# Exceptions every program of their kind raises through the same system function.
_RAISED = frozenset({"e0434352", "e06d7363"})
_MODULE_VERSION = re.compile(r"^[\s*]{0,8}Fault Module Version\s{0,8}:\s{0,8}(?P<version>[\d.]{1,40})")
_CODE = re.compile(r"^[\s*]{0,8}(?:Exception [Cc]ode|Ausnahmecode)\s{0,8}:\s{0,8}(?:0x)?(?P<code>[0-9a-fA-F]{8})\b")
# ("Exception: Offset 000427fb" too, as one copy of the dialog laid it out.)
_OFFSET = re.compile(
    r"^[\s*]{0,8}(?:Exception:? Offset|Fault offset|Fehleroffset)\s{0,8}:?\s{0,8}(?:0x)?(?P<offset>[0-9a-fA-F]{1,16})\b"
)


def recognize(text: str) -> bool:
    """True for a problem signature or event naming a faulting module and an exception code."""
    if "odul" not in text:
        return False
    return bool(_module(text)) and bool(find_lines(text, _CODE, 1, "ode"))


def _module(text: str) -> list[re.Match]:
    return find_lines(text, _MODULE, 1, "odul")


def parse(text: str) -> ParsedTrace:
    """The exception's code, and the faulting module, its version and the offset into it as the place."""
    module = _module(text)[0]
    version = module["version"] or next(
        (found["version"] for found in find_lines(text, _MODULE_VERSION, 1, "Fault Module Version")), ""
    )
    code = find_lines(text, _CODE, 1, "ode")[0]["code"]
    if code.lower() in _RAISED:
        return ParsedTrace(format=FORMAT, crash_type=exception_type(code), language="native")
    offset = find_lines(text, _OFFSET, 1, "ffset")
    application = find_lines(text, _APPLICATION, 1, "pplication") or find_lines(text, _APPLICATION, 1, "Anwendung")
    place = f"{module['name'].strip().lower()} {version}".strip()
    if offset:
        # "0x000000000004c3b2" (the event log's) and "0004c3b2" (the dialog's) are one offset.
        place += f" +0x{offset[0]['offset'].lower().lstrip('0') or '0'}"
    if application:
        place = f"{application[0]['name'].strip().lower()}: {place}"
    return ParsedTrace(format=FORMAT, crash_type=exception_type(code), language="native", context=(place,))
