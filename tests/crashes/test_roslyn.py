"""A Roslyn analyzer or source generator that threw, as the C# compiler reports it (signature v19): keyed by
the analyzer and the exception's class, whichever columns a build log or Visual Studio's Error List put
around the compiler's line.

The fixtures (tests/traces/roslyn) are real: StyleCopAnalyzers#3138's Error List row and CsWin32#508's
generator warning. With the analyzer's stack below it, the crash is read as .NET's, as the same stack
pasted alone is (StyleCopAnalyzers#1668 and its duplicate #2150).
"""

from __future__ import annotations

import pytest

from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("roslyn")
SA1135 = (
    "Analyzer 'StyleCop.Analyzers.ReadabilityRules.SA1135UsingDirectivesMustBeQualified' threw an exception of "
    "type 'System.NullReferenceException' with message 'Object reference not set to an instance of an object.'."
)


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda path: path.stem)
def test_the_analyzer_is_the_site(trace):
    meta, text, _ = read_as_recorded(trace)
    assert sign(text).frames == (meta["key"],)


@pytest.mark.parametrize(
    "printed",
    [
        f"CSC : warning AD0001: {SA1135} [/src/My.Project/My.Project.csproj]",
        f"3>CSC : error AD0001: {SA1135} [C:\\src\\My.Project\\My.Project.csproj]",
        f"Warning\tAD0001\t{SA1135}\tOther.Project\t1\tActive",
    ],
)
def test_the_compilers_line_is_one_crash_however_a_log_printed_it(printed):
    error_list = next(path for path in FIXTURES if path.stem == "error_list_sa1135").read_text()
    assert sign(printed).digest == sign(error_list).digest


def test_another_analyzer_is_another_bucket():
    other = SA1135.replace("ReadabilityRules.SA1135UsingDirectivesMustBeQualified", "SpacingRules.SA1008Opening")
    assert sign(other).digest != sign(SA1135).digest
