""".NET crashes as Dafny's users paste them (signature v20), on real reports (tests/traces/v20).

A nested type is named after its outer one with a "+" ("cce+UnreachableException", Dafny's unreachable
code), quoted in the message ("Exception of type 'cce+UnreachableException' was thrown.") or heading its
line (dafny-lang/dafny#5808, #2780). A paste that begins inside an earlier trace's frames has the crash's
exception and stack below them (dafny-lang/dafny#6126).
"""

from __future__ import annotations

from crashes import traces
from tests.traces import ROOT, read_meta


def _fixture(name: str) -> str:
    path = ROOT / "v20" / f"{name}.txt"
    assert read_meta(path)["source"].startswith("https://github.com/dafny-lang/dafny/issues/")
    return path.read_text()


def test_a_nested_exception_type_is_named_whether_quoted_or_heading_its_line():
    quoted = traces.parse(_fixture("nested_type_quoted_dafny_5808"))
    heading = traces.parse(_fixture("nested_type_json_dafny_2780"))
    assert quoted.crash_type == heading.crash_type == "cce+UnreachableException"
    assert quoted.frames[0].function.startswith("Microsoft.Dafny.BoogieGenerator.ExpressionTranslator.TrExpr")


def test_an_earlier_traces_tail_above_the_crash_is_not_its_stack():
    parsed = traces.parse(_fixture("earlier_trace_tail_dafny_6126"))
    assert parsed.crash_type == "System.NullReferenceException"
    assert parsed.frames[0].function.startswith("Microsoft.Boogie.PredicateCmd.Resolve")
    # The leftover frame above ("at Microsoft.Dafny.Compilation.VerifyUnverifiedSymbol(…)") comes again only
    # where the crash's own stack reaches it, below Boogie's.
    names = [frame.function for frame in parsed.frames]
    assert names.index(next(name for name in names if "VerifyUnverifiedSymbol" in name)) > 5
