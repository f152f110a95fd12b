""".NET crashes as Dafny's and Roslyn's users paste them (signature v20), on real reports (tests/traces/v20).

A nested type is named after its outer one with a "+" ("cce+UnreachableException", Dafny's unreachable
code), quoted in the message ("Exception of type 'cce+UnreachableException' was thrown.") or heading its
line (dafny-lang/dafny#5808, #2780). A paste that begins inside an earlier trace's frames has the crash's
exception and stack below them (dafny-lang/dafny#6126). An analyzer's crash is a bug of the analyzer,
whichever project's build met it (dotnet/roslyn#8700, dotnet/roslyn-analyzers#829).
"""

from __future__ import annotations

from crashes import signatures, traces
from tests.crashes.signing import sign, sign_record
from tests.traces import read_report


def _fixture(name: str) -> str:
    return read_report(f"v20/{name}", "https://github.com/dafny-lang/dafny/issues/")


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


def test_an_analyzers_crash_is_the_analyzers_whichever_project_it_was_filed_in():
    # dotnet/roslyn#8700 and dotnet/roslyn-analyzers#829, both duplicates of roslyn-analyzers#312: the same
    # DeclarePublicAPIAnalyzer failure, met building two of Roslyn's projects.
    one = signatures.compute(kind="crash", trace_text=_any("analyzer_in_roslyn_8700"), target="dotnet/roslyn")
    other = signatures.compute(
        kind="crash", trace_text=_any("analyzer_in_roslyn_analyzers_829"), target="dotnet/roslyn-analyzers"
    )
    assert one.trace_format == "roslyn-analyzer" and one.digest == other.digest


def _any(name: str) -> str:
    return read_report(f"v20/{name}", "https://github.com/dotnet/")


def test_a_lambda_and_an_async_method_are_named_by_the_method_they_are_in():
    # microsoft/PowerToys#5537: "PowerLauncher.App.<>c__DisplayClass22_0.<Dispose>b__0", the lambda in App.Dispose;
    # the closure class's number moves between builds (#11255 prints <>c__DisplayClass20_0 for the same code).
    assert sign_record("microsoft/PowerToys#5537").frames[1] == "PowerLauncher.App.Dispose"
    # An async method's state machine ("<PathBoxItem_Tapped>d__208.MoveNext", files-community/Files' frames):
    # its number is the build's too.
    frames = [
        f"   at Files.App.Views.MainPage.<PathBoxItem_Tapped>d__{number}.MoveNext()\n"
        "   at Files.App.Views.Shell.Run()\n"
        for number in (208, 211)
    ]
    one, other = (sign(f"System.InvalidOperationException: x\n{text}") for text in frames)
    assert one.frames[0] == "Files.App.Views.MainPage.PathBoxItem_Tapped"
    assert one.digest == other.digest


def test_interop_raising_what_the_other_side_returned_is_no_frame_of_the_bug():
    # files-community/Files#13725: CsWinRT's ExceptionHelpers raise the COMException a XAML call returned;
    # OpenTabletDriver/OpenTabletDriver#896: GtkSharp's ExceptionManager raises what a signal handler threw.
    winrt = sign(read_report("v21/cswinrt_exception_helpers_files_13725"), "files-community/Files")
    assert winrt.frames[0] == "ABI.Microsoft.UI.Xaml.Controls.ITextBlockMethods.set_Text"
    gtk = sign(read_report("v21/gtksharp_exception_manager_opentabletdriver_896"), "OpenTabletDriver/OpenTabletDriver")
    assert not any(frame.startswith("GLib.ExceptionManager") for frame in gtk.frames)
    assert gtk.frames[0] == "Gtk.Widget.DrawnSignalCallback"
