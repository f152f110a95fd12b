"""Native call stacks as debuggers' panes print them: Visual Studio's, VS Code's (on any system), WinDbg's.

``>\tApp.exe!Parser::parse(const char * text) Line 42\tC++`` (Visual Studio, copied)
``cpptools.exe!thread_start<…>() (Unknown Source:0)`` (VS Code's C++ debugger)
``00 0000004f`9b4ff5a8 00007ffc`1a2b3c4d ntdll!NtWaitForSingleObject+0x14`` (WinDbg's ``k``)
``00000083`5a1ff3a8 00007ff6`1a2b3c4d : 00000000`00000000 … : App!Parser::parse+0x2a`` (``!analyze -v``)

Each frame is ``module!function``; its arguments, source line, language
column and offset are dropped; the first stack is the crash's (a pane copied
whole lists the other threads after it). The crash is the exception's code
the text names ("Exception thrown at 0x… in App.exe: 0xC0000005: Access
violation…", in whatever language Visual Studio speaks, or WinDbg's
``ExceptionCode: c0000005``), with its name when it is a common one. Managed
frames the pane marks C#, F# or Basic are .NET's parser's (one without
symbols, marked Unknown, is read here).
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.llvm import function_name
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "debugger-stack"
# Visual Studio's and VS Code's: the current frame marked ">", then "module.ext!function(…)" and what follows.
_DEBUGGER_FRAME = re.compile(
    r"^[>\s]{0,8}(?P<module>[\w.-]{1,200}\.(?:exe|dll|sys|pyd|node))!(?P<rest>[^\s!].{0,2000})$", re.IGNORECASE
)
# VS Code's on Linux and macOS: any module, always followed by its source ("libc.so.6!raise(int sig) (raise.c:50)").
_VSCODE_FRAME = re.compile(
    r"^\s{0,8}(?P<module>[\w.+-]{1,200})!(?P<rest>[^\s!].{0,2000}? \((?:[^()\n]{1,300}:\d{1,9}|Unknown Source:0)\))$"
)
# WinDbg's: an optional frame number, one or two address columns (and !analyze's arguments), then
# "module!function+0x2a", its arguments with kp, its source with .lines ("[C:\src\parser.cpp @ 42]").
# Newer WinDbg pads its return-address column ("00 fffff806`152a3128 01000000`00100000     nt!Ki…").
# An inlined frame has no addresses: "04 (Inline Function) --------`--------     POC!ExecuteCommand+0xab".
# WinDbg's call-stack window, copied: "[0x1]   coreclr!DoJITFailFast + 0x7   ".
_WINDBG_FRAME = re.compile(
    r"^(?:\[0x[0-9a-f]{1,4}\] {1,8}|(?:[0-9a-f]{2} )?(?:\(Inline(?: Function)?\) -{8}`?-{0,8} {1,8}"
    r"|(?:[0-9a-f]{8}`?[0-9a-f]{0,8} {1,8}){1,2})(?:\s*: (?:[0-9a-f`]{8,17} ){1,4}: )?)"
    r"(?P<module>[\w.-]{1,200})!(?P<rest>[^\s!][^\n]{0,1000}?)(?: \[[^\]\n]{0,400}\])?\s*$",
    re.IGNORECASE,
)
# What follows a function: Visual Studio's " Line 42" and language column, VS Code's " (file.cpp:12)".
_LANGUAGES = ("C++", "C", "Unknown", "Asm")
_LINE = re.compile(r"(?<!\s)\s+Line \d{1,9}$")
_SOURCE = re.compile(r"(?<!\s)\s+\([^()\n]{0,300}:\d{1,9}\)$")
_OFFSET = re.compile(r"\s?\+\s?0x[0-9a-fA-F]{1,16}$")
# What WinDbg or the poster put after a frame: a kernel frame's trap frame, an elision.
_AFTER_FRAME = re.compile(r"(?: \(TrapFrame @ [0-9a-fA-F`]{1,20}\)| \.\.\.)$")
_DECORATED = re.compile(r"^[_@]?(?P<name>[A-Za-z_]\w{0,500})@\d{1,4}$")
# "Exception thrown at 0x00007FF6… in App.exe: 0xC0000005: Access violation reading location 0x0…" (and its
# translations: "Ausnahme ausgelöst bei 0x… in App.exe: 0xC0000005: Zugriffsverletzung…"), WinDbg's
# "ExceptionCode: c0000005 (Access violation)": the exception's code says the same in every language.
_THROWN = re.compile(r"^.{0,300}? in [^:\n]{1,200}\.(?:exe|dll): 0x(?P<code>[0-9a-fA-F]{8}): ", re.IGNORECASE)
_CODE = re.compile(r"^\s*ExceptionCode: (?P<code>[0-9a-fA-F]{8})\b")
# WinDbg's event line: "(59cc.549c): Access violation - code c0000005 (first chance)", "Access violation - code
# c0000005 (!!! second chance !!!)" (kd); and !analyze's "EXCEPTION_CODE_STR:  c0000005".
_EVENT = re.compile(r"^(?:\([0-9a-fA-F]{1,8}\.[0-9a-fA-F]{1,8}\): )?[\w -]{1,80} - code (?P<code>[0-9a-fA-F]{8}) \(")
_ANALYZED = re.compile(r"^EXCEPTION_CODE(?:_STR)?:\s{1,8}(?:\(\w{1,20}\)\s{1,8})?(?:0x)?(?P<code>[0-9a-fA-F]{8})\b")
_NAMES = {
    "c0000005": "access violation",
    "c0000409": "stack buffer overrun",
    "c00000fd": "stack overflow",
    "c0000374": "heap corruption",
    "c0000417": "invalid parameter",
    "c000001d": "illegal instruction",
    "c0000094": "integer divide by zero",
    "80000003": "breakpoint",
    "e06d7363": "C++ exception",
}
# Frames it takes to tell a stack from a line naming one function.
_MIN_FRAMES = 2


def _frame_of(line: str) -> Frame | None:
    line = line[:MAX_LINE].rstrip()
    found = _DEBUGGER_FRAME.match(line) or _WINDBG_FRAME.match(line) or _VSCODE_FRAME.match(line)
    if found is None:
        return None
    rest = found["rest"].rstrip()
    head, _, last = rest.rpartition("\t") if "\t" in rest else rest.rpartition(" ")
    if last in _LANGUAGES and head:
        rest = head.rstrip()
    rest = _SOURCE.sub("", _LINE.sub("", rest))
    rest = _OFFSET.sub("", _AFTER_FRAME.sub("", rest.strip()))
    if rest.startswith("[") or rest == "":
        return None  # "[External Code]", "[Frames below may be incorrect…]"
    # MSVC's anonymous namespace ("blink::`anonymous namespace'::ShapeRange") holds a blank: taken out before
    # the name is read, as the frame rules take it out (crashes.frames).
    name = function_name(rest.replace("`anonymous namespace'::", ""))
    # x86's __stdcall and __fastcall decorations: "_NtWaitForWorkViaWorkerFactory@20", "@BaseThreadInitThunk@12".
    decorated = _DECORATED.match(name)
    return Frame(function=decorated["name"] if decorated else name, module=found["module"])


def _frames(text: str, limit: int) -> list[Frame]:
    """The first stack's frames: a blank line or another line after them ends it (another thread's follows)."""
    frames: list[Frame] = []
    for line in text.split("\n"):
        frame = _frame_of(line) if "!" in line else None
        if frame is not None:
            frames.append(frame)
            if len(frames) >= limit:
                break
        elif frames and (not line.strip() or "[External Code]" not in line):
            break
    return frames


def recognize(text: str) -> bool:
    """True for two or more ``module!function`` frames of a Windows debugger's native stack."""
    if "!" not in text:
        return False
    return len(_frames(text, _MIN_FRAMES)) >= _MIN_FRAMES


def _crash_type(text: str) -> str:
    """The exception's code and its name: ``0xc0000005 access violation``; "unknown" when none is printed."""
    thrown = find_lines(text, _THROWN, 1, ": 0x")
    code = thrown[0]["code"] if thrown else ""
    if not code:
        recorded = find_lines(text, _CODE, 1, "ExceptionCode:")
        code = recorded[0]["code"] if recorded else ""
    if not code:
        event = find_lines(text, _EVENT, 1, " - code ") or find_lines(text, _ANALYZED, 1, "EXCEPTION_CODE")
        code = event[0]["code"] if event else ""
    if not code:
        return "unknown"
    return exception_type(code)


def exception_type(code: str) -> str:
    """A Windows exception's code and its name when it is a common one: ``c0000005`` -> ``0xc0000005 access
    violation`` (the code says the same in every language a tool prints its name in)."""
    code = code.lower()
    return f"0x{code} {_NAMES[code]}" if code in _NAMES else f"0x{code}"


def parse(text: str) -> ParsedTrace:
    """The exception the text names and the stack's frames."""
    return ParsedTrace(
        format=FORMAT, crash_type=_crash_type(text), frames=tuple(_frames(text, MAX_FRAMES)), language="native"
    )
