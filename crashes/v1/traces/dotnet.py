""".NET exceptions, as printed by the runtime and by Dafny.

``Unhandled exception. System.AggregateException: ... ---> System.NullReferenceException: ...``
``   at Microsoft.Dafny.Resolver.ResolveExpression(Expression expr) in /src/Resolver.cs:line 17686``
.NET prints the innermost exception's stack first (then ``--- End of inner
exception stack trace ---`` and the outer one's); that inner exception is
the root cause and the crash.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace

FORMAT = "dotnet"
_FRAME = re.compile(
    r"^\s*at (?P<function>[\w.`<>+$\[\],|]+(?:\s*\[[^\]]*\])?\(.*?\))(?: in (?P<file>.+?):line (?P<line>\d+))?\s*$"
)
_EXCEPTION = re.compile(
    r"(?P<type>(?:[A-Za-z_][\w`]*\.)+[A-Z]\w*(?:Exception|Error))"
    r"(?: \(0x[0-9A-Fa-f]+\)| \(\d+\))?(?::\s?(?P<message>[^\n]*))?"
)
_END_INNER = "--- End of inner exception stack trace ---"


def recognize(text: str) -> bool:
    """True for .NET ``at Ns.Type.Method(...)`` frames next to a .NET exception."""
    if "at " not in text:
        return False
    has_frame = any(_FRAME.match(line) for line in text.splitlines() if line.lstrip().startswith("at "))
    return has_frame and bool(_EXCEPTION.search(text))


def parse(text: str) -> ParsedTrace:
    """Parse the innermost exception and the first stack (which is its stack)."""
    lines = text.splitlines()
    first_frame = next(i for i, line in enumerate(lines) if _FRAME.match(line))
    header = "\n".join(lines[:first_frame])
    # Outer ---> inner ---> innermost: the last exception named before the
    # first frame is the innermost.
    exceptions = list(_EXCEPTION.finditer(header))
    innermost = exceptions[-1] if exceptions else None
    frames = []
    for line in lines[first_frame:]:
        if line.strip().startswith(_END_INNER):
            break
        match = _FRAME.match(line)
        if match:
            frames.append(
                Frame(
                    function=match["function"],
                    file=match["file"] or "",
                    line=int(match["line"]) if match["line"] else None,
                )
            )
    causes = tuple(
        ParsedTrace(format=FORMAT, crash_type=e["type"], message=(e["message"] or "").strip(), language="dotnet")
        for e in exceptions[:-1]
    )
    return ParsedTrace(
        format=FORMAT,
        crash_type=innermost["type"] if innermost else "",
        message=(innermost["message"] or "").strip() if innermost else "",
        frames=tuple(frames),
        causes=causes,
        language="dotnet",
    )
