"""Bun's crash reports as bun.report renders them for a GitHub issue: a Zig program's stack, symbolized.

``Bun v1.2.5 ([`013fddd`](<https://github.com/oven-sh/bun/tree/…>)) on windows x86_64 [InstallCommand]``
``Segmentation fault at address 0x00000058`` (or ``panic: Internal assertion failure``)
``- [`lockfile.zig:5655`](<https://github.com/…/lockfile.zig#L5655>): `parseWithJSON` ``
``- ??? at `0x8a046` in ntdll.dll``, ``- `??` ``, ``- *2 unknown/js code*``

Bun's crash handler uploads the raw addresses; bun.report maps them to
functions and writes this list, which its "report this crash" link puts in
the issue, so thousands of Bun's issues carry one. The crash is the line
after the header (a signal at an address, masked, or a panic's message)
and the first frames that name a function: an address in a system DLL
and JavaScript code name nothing, and JavaScriptCore's signal handler
(``WTF::jscSignalHandler``, above the unnamed signal trampoline on Linux)
is where every segfault is caught, not where it happened.

A Zig function is named by its last component: Linux builds print the
qualified name (``install.yarn.migrateYarnLockfile``, older ones from
``src.``), Windows builds the bare one (``migrateYarnLockfile``), and the
file in the link is the inlined callee's as often as the function's own.
A generic instance's build number (``__anon_368641``) is dropped; C++
frames (``JSC::CodeBlock::destroy``) keep their qualified names.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines, mask_message

FORMAT = "bun-report"
# "Bun v1.3.2 ([`b131639`](<url>)) on linux x86_64_baseline [RunCommand]"; older reports link without <>.
_HEADER = re.compile(r"^Bun v\d{1,4}\.\d{1,4}\.\d{1,4}\S{0,40} \(\[`[0-9a-f]{4,40}`\]\([^)\s]{1,300}\)\) on \S{1,40} ")
# "- [`file.zig:12`](<url>): `function`", "- `function`", "- ??? at `0x8a046` in ntdll.dll",
# "- *2 unknown/js code*" (read after "- ", one line each); a function outside Bun's binary is
# followed by its module: "- `RtlUserThreadStart` in ntdll.dll".
_LINKED = re.compile(
    r"^\[`(?P<file>[^`\n]{1,300}?):(?P<line>\d{1,9})`\]\(<?[^)\s>]{0,500}>?\): `(?P<function>[^`\n]{1,1000})`"
    r"(?: in (?P<module>\S{1,300}))?$"
)
_BARE = re.compile(r"^`(?P<function>[^`\n]{1,1000})`(?: in (?P<module>\S{1,300}))?$")
_MARKER = "- "
# A generic function's instance and a comptime struct are numbered per build.
_INSTANCE = re.compile(r"__(?:anon|struct)_\d+")
# Where a crash is caught or reported, not where it happened (read on the name as printed).
_HANDLER = re.compile(r"(?i)signal_?handler|^(?:bun\.)?crash_handler\.")
_REPORTERS = frozenset({"panic", "panicImpl", "assert", "debugAssert", "unreachable", "outOfMemory"})
_PANIC_PREFIX = re.compile(r"^panic(?:\([^)\n]{1,40}\))?: ")
# Lines after the header a report's frame list is looked for in.
_LOOKAHEAD = 60


def _after_header(text: str) -> list[str] | None:
    """The lines after the first bun.report header line, or None without one."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("Bun v") and _HEADER.match(line[:MAX_LINE]):
            return lines[index + 1 :]
    return None


def recognize(text: str) -> bool:
    """True for bun.report's header followed by at least one of its frame lines."""
    if "Bun v" not in text or "- " not in text or not find_lines(text, _HEADER, 1, "Bun v"):
        return False
    after = _after_header(text) or []
    return any(_frame_line(line) is not None for line in after[:_LOOKAHEAD])


def _frame_line(line: str) -> Frame | None:
    """One frame line as a frame (function "" when it names none); None for any other line."""
    if not line.startswith(_MARKER):
        return None
    rest = line[len(_MARKER) : MAX_LINE].rstrip()
    linked = _LINKED.match(rest)
    if linked:
        return _named(linked["function"], linked["module"], file=linked["file"], line=int(linked["line"]))
    bare = _BARE.match(rest)
    if bare:
        return _named(bare["function"], bare["module"])
    if rest.startswith("??? at `0x") or (rest.startswith("*") and "unknown" in rest):
        return Frame(function="")
    return None


def _named(printed: str, module: str | None, file: str = "", line: int | None = None) -> Frame:
    # A handler's frame is marked by its source: its name is shortened below.
    source = "handler" if _HANDLER.search(printed) else ""
    return Frame(function=_function(printed), file=file, line=line, module=module or "", source=source)


def _function(printed: str) -> str:
    name = _INSTANCE.sub("", printed.strip())
    if name in ("??", "???"):
        return ""
    if "::" in name or " " in name or "<" in name:
        return name  # C++
    return name.rsplit(".", 1)[-1]


def parse(text: str) -> ParsedTrace:
    """The message under the first header and the frames after it, from the first that names a function."""
    message, frames = "", []
    for line in _after_header(text) or []:
        line = line[:MAX_LINE].rstrip()
        frame = _frame_line(line)
        if frame is not None:
            frames.append(frame)
            if len(frames) >= MAX_FRAMES:
                break
        elif frames:
            break  # the list ended ("Features: …")
        elif line.strip() and not message:
            message = _PANIC_PREFIX.sub("", line.strip())
    return ParsedTrace(
        format=FORMAT,
        crash_type=mask_message(message, 160) if message else "",
        message=message,
        frames=tuple(_below_handler(frames)),
        language="native",
    )


def _below_handler(frames: list[Frame]) -> list[Frame]:
    """The frames under the signal handler's and the panic's own."""
    handled = max((i for i, f in enumerate(frames[:4]) if f.source == "handler"), default=-1)
    return [f for f in frames[handled + 1 :] if f.function not in _REPORTERS]
