"""A Roslyn analyzer or source generator that threw, as the C# compiler reports it (AD0001, CS8784, CS8785).

``warning AD0001: Analyzer 'StyleCop.Analyzers.ReadabilityRules.SA1135UsingDirectivesMustBeQualified' threw an
exception of type 'System.NullReferenceException' with message 'Object reference not set to an instance of an
object.'.``
``warning CS8785: Generator 'RazorSourceGenerator' failed to generate source. … Exception was of type
'ArgumentException' with message '…'.``

The same crash is printed by ``dotnet build`` (behind its node and project
columns), by Visual Studio's Error List (tab-separated, its severity and
path columns around it) and by MSBuild's parallel log. Where the analyzer's
stack follows, the crash is read as .NET's (crashes.traces.dotnet, tried
first), as the same stack pasted without the compiler's line is; without
it, analyzers' maintainers read one by the analyzer (or generator) and the
exception's class: the analyzer is the site, whatever the columns around
it say.
"""

from __future__ import annotations

import re

from crashes.model import ParsedTrace
from crashes.traces.text import MAX_LINE, lines_of

FORMAT = "roslyn-analyzer"
_THREW = re.compile(
    r"\b(?:Analyzer|Diagnostic Analyzer) '(?P<analyzer>[\w.+`]{1,300})' threw an exception of type "
    r"'(?P<type>[\w.+`]{1,300})' with message '(?P<message>.{0,1000}?)'\.?(?:\s|$)"
)
_FAILED = re.compile(
    r"\bGenerator '(?P<analyzer>[\w.+`]{1,300})' failed to (?:generate source|initialize)\. .{0,300}?"
    r"Exception was of type '(?P<type>[\w.+`]{1,300})' with message '(?P<message>.{0,1000}?)'\.?(?:\s|$)"
)
_NEEDLES = ("threw an exception of type '", "' failed to generate source", "' failed to initialize")


def _found(text: str) -> re.Match | None:
    for line in lines_of(text):
        if any(needle in line for needle in _NEEDLES):
            clipped = line[:MAX_LINE]
            found = _THREW.search(clipped) or _FAILED.search(clipped)
            if found:
                return found
    return None


def recognize(text: str) -> bool:
    if not any(needle in text for needle in _NEEDLES):
        return False
    return _found(text) is not None


def parse(text: str) -> ParsedTrace:
    found = _found(text)
    # The class by its own name: the generator's warning prints it without its namespace.
    crash_type = found["type"].rsplit(".", 1)[-1]
    return ParsedTrace(
        format=FORMAT, crash_type=crash_type, message=found["message"], language="dotnet", site=found["analyzer"]
    )
