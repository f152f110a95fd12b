""".NET exceptions, as printed by the runtime and by Dafny (and Boogie under it).

``Unhandled exception. System.AggregateException: ... ---> System.NullReferenceException: ...``
``   at Microsoft.Dafny.Resolver.ResolveExpression(Expression expr) in /src/Resolver.cs:line 17686``
.NET prints the innermost exception's stack first (then ``--- End of inner
exception stack trace ---`` and the outer one's); that inner exception is
the root cause and the crash. ``Process terminated. Assertion failed.`` is
a Debug.Assert. Frames with long parameter lists arrive hard-wrapped by
terminals and issue forms (``at Foo.Bar(List`1 a,`` / ``Type b) in …``):
they are joined back before reading.

The runtime prints its stack in the machine's language: ``bei …``,
``в … в C:\\x.cs:строка 227``, ``在 … 位置 …:行号 12``. The words .NET's
own resources use for "at", "in" and "line" are read as the English ones,
so one bug reported from a German and a Russian machine is one bucket.
"""

from __future__ import annotations

import dataclasses
import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE

FORMAT = "dotnet"
# (A nested type is named after its outer one with a "+": Dafny's "cce+UnreachableException".)
_TOKEN = re.compile(r"[\w.`+]+")
# .NET's resource words for "at" (a frame's start), and for " in FILE:line N" (its location),
# in the languages its runtime ships: de, fr, es, it, pt, ru/uk, pl, cs, nl, sv, da/nb, tr, zh, ja, ko.
_AT_WORDS = r"(?:at|bei|à|en|em|in|в|w|v|bij|vid|ved|konum:|在|於|場所|위치:) "
_AT = re.compile("^" + _AT_WORDS)
_LINE_WORDS = r"(?:line|Zeile|ligne|línea|linea|riga|linha|строка|рядок|wiersz|řádek|regel|rad|linje|satır|行号|行|줄)"
_LOCATION = re.compile(
    r" (?:in|dans|en|em|в|w|v|i|位置|於|場所|파일) (?P<file>.+):\s?" + _LINE_WORDS + r" ?(?P<line>\d+)\s*$"
)
# How a location ends a frame's line, looked for first in its last characters: at every " in " of a line that has
# none, the location's file would read to the line's end and back (" w :" is Polish's " in ").
_LOCATION_END = re.compile(r":\s?" + _LINE_WORDS + r" ?\d+\s*$")
_AT_ANYWHERE = re.compile(r"(?m)^[^\S\n]*" + _AT_WORDS)
_END_INNER = "--- End of inner exception stack trace ---"
# What a JavaScript engine puts in a frame's parentheses: where the code is, not the parameters .NET
# (and Mono, after a blank) prints there.
# (A path with blanks in it too: "/Applications/Mark Text.app/…/format.js:26:7".)
_SCRIPT_LOCATION = re.compile(r"^(?:[^()\n]{1,1000}:\d+:\d+|<anonymous>|native)$")
_FUNCTION = re.compile(r"^[\w.`<>+$\[\],|]+(?:\s*\[[^\]]{0,200}\])?$")
_MAX_WRAPPED = 4


def exception_names(text: str) -> list[tuple[str, str]]:
    """(type, message) of every .NET exception named in ``text``, in order.

    Tokens first, then a check of each: a regular expression with a
    repeated dotted group backtracks quadratically over long words.
    """
    found = []
    for line in text.split("\n"):
        line = line[:MAX_LINE]
        if "Exception" not in line and "Error" not in line and "Assertion failed" not in line:
            continue
        if "Assertion failed" in line and ("Process terminated" in line or line.strip().startswith("Assertion failed")):
            found.append(("Debug.Assert", ""))
            continue
        for token in _TOKEN.finditer(line):
            name = token.group(0).rstrip(".").strip("+")
            parts = re.split(r"[.+]", name)
            if not parts[-1][:1].isupper() or not name.endswith(("Exception", "Error")):
                continue
            rest = line[token.end() :]
            # Unqualified ("ArgumentOutOfRangeException:", as debuggers show it) only heading its line.
            if len(parts) < 2 and (line[: token.start()].strip() or not rest.startswith(":")):
                continue
            message = rest[1:].strip() if rest.startswith(":") else ""
            found.append((name, message))
    return found


# Visual Studio's Call Stack window, copied: ">\tApp.dll!Ns.Type.Method(int x) Line 563\tC#". Managed
# frames only (C#, F#, Visual Basic); a C++ frame there is native code.
_DEBUGGER_FRAME = re.compile(
    r"^\s*(?:>\s*)?[\w.-]{1,200}\.(?:dll|exe)!(?P<function>[\w.`<>+$\[\],|]{1,500}\.[\w`<>$]{1,200})\((?P<args>[^()\n]{0,1000})\)"
    r"(?:\s+Line (?P<line>\d+))?\s*(?P<language>C#|F#|Basic)?\s*$"
)


def _debugger_frame(stripped: str) -> Frame | None:
    found = _DEBUGGER_FRAME.match(stripped)
    if found is None:
        return None
    return Frame(
        function=f"{found['function']}({found['args']})",
        line=int(found["line"]) if found["line"] else None,
    )


def _frame(line: str) -> Frame | None:
    """``at Ns.Type.Method(args) in file:line N`` without backtracking: split at the parentheses."""
    stripped = line.strip()
    if ".dll!" in stripped or ".exe!" in stripped:
        return _debugger_frame(stripped)
    at = _AT.match(stripped)
    if at is None:
        return None
    body = stripped[at.end() :]
    opening = body.find("(")
    closing = body.find(")", opening)
    if opening <= 0 or closing == -1 or not _FUNCTION.match(body[:opening].strip()):
        return None
    if _SCRIPT_LOCATION.match(body[opening + 1 : closing]):
        return None  # "at parseThing (/app/index.js:42:11)": a JavaScript engine's frame, never .NET's
    if body.endswith(")") and _SCRIPT_LOCATION.match(body[body.rfind("(") + 1 : -1]):
        # Older V8's "at listeners.(anonymous function).forEach.listener (/app/safe-emitter.js:47:58)":
        # the script's location closes the line, whatever parentheses the name holds.
        return None
    location = _LOCATION.search(body[closing:]) if _LOCATION_END.search(body[-40:]) else None
    return Frame(
        function=body[: closing + 1],
        file=location["file"] if location else "",
        line=int(location["line"]) if location else None,
    )


def _joined(lines: list[str]) -> list[str]:
    """Frames wrapped over several lines, joined back (up to a few lines each)."""
    joined: list[str] = []
    pending = 0
    for line in lines:
        line = line[:MAX_LINE]
        if pending and joined:
            joined[-1] += " " + line.strip()
            pending = pending - 1 if ")" not in line else 0
            continue
        joined.append(line)
        stripped = line.strip()
        if _AT.match(stripped) and "(" in stripped and ")" not in stripped:
            pending = _MAX_WRAPPED
    return joined


def recognize(text: str) -> bool:
    """True for .NET ``at Ns.Type.Method(...)`` frames next to a .NET exception, or a debugger's managed call stack."""
    if (".dll!" in text or ".exe!" in text) and _managed_call_stack(text):
        return True
    if not _AT_ANYWHERE.search(text):
        return False
    frames = 0
    for line in text.split("\n"):
        if _AT.match(line.lstrip()) and _frame(line):
            frames += 1
            # A stack pasted without the exception above it (dafny#3615) is .NET's by its frames alone.
            if frames >= _HEADLESS_FRAMES:
                return True
    return frames > 0 and bool(exception_names(text))


_HEADLESS_FRAMES = 3


def _managed_call_stack(text: str) -> bool:
    """Two managed frames of a debugger's call stack, marked as C#, F# or Basic."""
    found = 0
    for line in text.split("\n"):
        if "!" in line and line.rstrip().endswith(("C#", "F#", "Basic")) and _debugger_frame(line[:MAX_LINE].strip()):
            found += 1
            if found >= 2:
                return True
    return False


# StreamJsonRpc (Roslyn's and Visual Studio's language servers) prints a RemoteInvocationException
# with the client's await plumbing as its stack, then this line and the exception the server threw,
# with the frames that failed: the server's exception is the crash, the client's only carries it.
_RPC_SERVER = "RPC server exception:"


def parse(text: str) -> ParsedTrace:
    """Parse the innermost exception and the first stack (which is its stack)."""
    lines = _joined(text.split("\n"))
    # The last server's, for a call relayed through several (no recursion on hostile repeats).
    server = max((i for i, line in enumerate(lines) if line.strip() == _RPC_SERVER), default=None)
    if server is not None:
        remote = _parse_lines(lines[server + 1 :])
        if remote.crash_type and remote.frames:
            carriers = tuple(
                ParsedTrace(format=FORMAT, crash_type=name, message=message, language="dotnet")
                for name, message in exception_names("\n".join(lines[:server]))
            )
            return dataclasses.replace(remote, causes=carriers + remote.causes)
    return _parse_lines(lines)


def _parse_lines(lines: list[str]) -> ParsedTrace:
    first_frame = next((i for i, line in enumerate(lines) if _frame(line)), len(lines))
    # Outer ---> inner ---> innermost: the last exception named before the
    # first frame is the innermost.
    exceptions = exception_names("\n".join(lines[:first_frame]))
    if not exceptions:
        # Frames with no exception above them, then an exception and its own stack: the tail of an
        # earlier trace the paste began in (dafny-lang/dafny#6126), before the crash's.
        named = next(
            (i for i in range(first_frame, len(lines)) if not _frame(lines[i]) and exception_names(lines[i])), None
        )
        below = next((i for i in range(named + 1, len(lines)) if _frame(lines[i])), None) if named is not None else None
        if below is not None:
            first_frame, exceptions = below, exception_names("\n".join(lines[named:below]))
    innermost = exceptions[-1] if exceptions else None
    frames = []
    for line in lines[first_frame:]:
        if line.strip().startswith(_END_INNER):
            break
        frame = _frame(line)
        if frame:
            frames.append(frame)
    causes = tuple(
        ParsedTrace(format=FORMAT, crash_type=name, message=message, language="dotnet")
        for name, message in exceptions[:-1]
    )
    return ParsedTrace(
        format=FORMAT,
        crash_type=innermost[0] if innermost else "",
        message=innermost[1] if innermost else "",
        frames=tuple(frames),
        causes=causes,
        language="dotnet",
    )
