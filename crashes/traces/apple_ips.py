"""macOS's and iOS's crash reports since macOS 12: the JSON ``.ips`` form.

``{"app_name":"SameBoy","bug_type":"309",…}`` (a header line), then the report:
``"exception" : {"type":"EXC_BAD_ACCESS","signal":"SIGSEGV","subtype":"KERN_INVALID_ADDRESS at 0x0"},``
``"faultingThread" : 3,``
``"threads" : [{"id":314508,"frames":[{"imageOffset":25631,"symbol":"start","symbolLocation":1903,"imageIndex":1}]},…]``
``"usedImages" : [{"name":"libsystem_kernel.dylib",…},…]``

It is the text report's content in another dress, and is read as that
report is (crashes.traces.apple, whose format it shares, so that one crash
reported from two releases of macOS is one bucket): the faulting thread's
frames (``symbol``; a frame without one names nothing), each with its
image's name, so that the system's own libraries are skipped; the signal,
else the Mach exception; an uncaught Objective-C exception's last backtrace.
A paste is often cut, so the report is read from its JSON when it parses
and otherwise from its fields one by one.
"""

from __future__ import annotations

import json
import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces import apple

FORMAT = apple.FORMAT
_MARKERS = ('"threads"', '"imageOffset"')
_TRIGGERED = re.compile(r'"triggered"\s*:\s*true')
_FAULTING = re.compile(r'"faultingThread"\s*:\s*(?P<index>\d{1,6})')
_EXCEPTION = re.compile(r'"exception"\s*:\s*(?P<object>\{[^{}]{0,2000}\})')
# The lists read field by field: each item an object (a frame's symbol may hold brackets and braces:
# "-[Document run]", "{{closure}}", so each is decoded as JSON, not matched).
_FRAMES = re.compile(r'"frames"\s*:\s*\[')
_IMAGES = re.compile(r'"usedImages"\s*:\s*\[')
_LAST_EXCEPTION = re.compile(r'"lastExceptionBacktrace"\s*:\s*\[')
_STRING_FIELD = r'"{}"\s*:\s*"(?P<value>(?:[^"\\]|\\.){{0,1000}})"'
_SEPARATORS = " \t\r\n,"
_DECODER = json.JSONDecoder()


def recognize(text: str) -> bool:
    """True for a report's threads of frames in the JSON form (``"imageOffset"`` in a ``"frames"`` list)."""
    return all(marker in text for marker in _MARKERS) and _FRAMES.search(text) is not None


def _field(source: str, name: str) -> str:
    found = re.search(_STRING_FIELD.format(name), source)
    return found["value"] if found else ""


def _items(text: str, start: int, limit: int) -> list[dict]:
    """The objects of the JSON list opening at ``start`` (after its "["), up to where it ends or was cut."""
    items: list[dict] = []
    position = start
    while len(items) < limit:
        while position < len(text) and text[position] in _SEPARATORS:
            position += 1
        if position >= len(text) or text[position] != "{":
            break
        try:
            item, position = _DECODER.raw_decode(text, position)
        except (ValueError, RecursionError):
            break  # cut inside it (or nested past what the decoder follows)
        if isinstance(item, dict):
            items.append(item)
    return items


def _report(text: str) -> dict | None:
    """The report's JSON object (the one with threads), when the paste kept it whole."""
    position = text.find("{")
    for _ in range(4):  # the header line's object, then the report's
        if position == -1:
            return None
        try:
            found, end = _DECODER.raw_decode(text, position)
        except (ValueError, RecursionError):
            return None
        if isinstance(found, dict) and isinstance(found.get("threads"), list):
            return found
        position = text.find("{", end)
    return None


def _from_json(report: dict) -> tuple[dict, list[dict], list[dict], list[dict]]:
    threads = report.get("threads") or []
    index = report.get("faultingThread")
    faulting = next((thread for thread in threads if isinstance(thread, dict) and thread.get("triggered")), None)
    if faulting is None and isinstance(index, int) and 0 <= index < len(threads):
        faulting = threads[index]
    frames = faulting.get("frames", []) if isinstance(faulting, dict) else []
    return (
        report.get("exception") or {},
        [frame for frame in frames if isinstance(frame, dict)],
        [image for image in report.get("usedImages") or [] if isinstance(image, dict)],
        [frame for frame in report.get("lastExceptionBacktrace") or [] if isinstance(frame, dict)],
    )


def _from_fields(text: str) -> tuple[dict, list[dict], list[dict], list[dict]]:
    exception_found = _EXCEPTION.search(text)
    exception = {}
    if exception_found:
        found = exception_found["object"]
        exception = {"type": _field(found, "type"), "signal": _field(found, "signal")}
    # The faulting thread is marked "triggered" (its registers come between the mark and its frames), else
    # counted by "faultingThread" among the threads' frame lists.
    triggered = _TRIGGERED.search(text)
    chosen = _FRAMES.search(text, triggered.end()) if triggered else None
    if chosen is None:
        faulting = _FAULTING.search(text)
        index = int(faulting["index"]) if faulting else -1
        chosen = next((found for at, found in enumerate(_FRAMES.finditer(text)) if at == index), None)
    frames = _items(text, chosen.end(), 4 * MAX_FRAMES) if chosen else []
    images = _IMAGES.search(text)
    last = _LAST_EXCEPTION.search(text)
    return (
        exception,
        frames,
        _items(text, images.end(), 4096) if images else [],
        _items(text, last.end(), 4 * MAX_FRAMES) if last else [],
    )


def _frame(frame: dict, images: list[dict]) -> Frame:
    index = frame.get("imageIndex")
    image = images[index] if isinstance(index, int) and 0 <= index < len(images) else {}
    module = str(image.get("name") or str(image.get("path") or "").rsplit("/", 1)[-1])
    return Frame(
        function=str(frame.get("symbol") or ""),
        file=str(frame.get("sourceFile") or ""),
        line=frame.get("sourceLine") if isinstance(frame.get("sourceLine"), int) else None,
        module=module,
    )


def parse(text: str) -> ParsedTrace:
    """The faulting thread's frames (an uncaught exception's backtrace first) and the signal or exception."""
    report = _report(text)
    exception, frames, images, last = _from_json(report) if report is not None else _from_fields(text)
    chosen = (last or frames)[:MAX_FRAMES]
    signal, kind = str(exception.get("signal") or ""), str(exception.get("type") or "")
    crash_type = signal if signal.startswith("SIG") else kind
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        frames=tuple(_frame(frame, images) for frame in chosen),
        language="native",
    )
