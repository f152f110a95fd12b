"""App Center's two-line frames as apps copy them into issues (crashes.traces.app_center)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import app_center
from tests.crashes.signing import sign
from tests.traces import read_report


def test_app_centers_frames_are_read_as_dotnets():
    # files-community/Files#15461: the namespace on one line, "Type.Method (parameters)" on the next; the
    # exception named above the log ("System.NullReferenceException: Object reference not set…").
    parsed = traces.parse(read_report("v21/app_center_frames_files_15461"))
    assert parsed.format == app_center.FORMAT
    assert parsed.crash_type == "System.NullReferenceException"
    widgets = "Files.App.ViewModels.UserControls.Widgets"
    assert parsed.frames[0].function == f"{widgets}.QuickAccessWidgetViewModel.NavigateToPath"
    key = sign(read_report("v21/app_center_frames_files_15461"), "files-community/Files")
    # The task scheduler's, WinRT's and App Center's own frames below are no frames of the bug.
    assert key.frames == (
        "Files.App.ViewModels.UserControls.Widgets.QuickAccessWidgetViewModel.NavigateToPath",
        "Files.App.UserControls.Widgets.QuickAccessWidget.Button_Click",
    )


def test_the_exception_helpers_on_top_are_skipped_and_a_line_naming_nothing_is_no_frame():
    # files-community/Files#14074: a COMException raised by CsWinRT's ExceptionHelpers for the XAML call below.
    key = sign(read_report("v21/app_center_frames_files_14074"), "files-community/Files")
    assert key.crash_type == "System.Runtime.InteropServices.COMException"
    assert key.frames[0] == "ABI.Microsoft.UI.Xaml.Data.ICollectionViewSourceMethods.get_IsSourceGrouped"
    assert not app_center.recognize("Steps\nClick it (twice)\nThen\nWait (a bit)\n")
