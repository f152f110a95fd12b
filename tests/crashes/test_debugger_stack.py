"""Debuggers' call stacks (crashes.traces.debugger_stack)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import debugger_stack
from tests.crashes.signing import sign
from tests.traces import ROOT, read_as_recorded, read_report

FIXTURE = ROOT / "debugger_stack" / "vscode_cpptools_call_stack.txt"


def test_vs_codes_call_stack_is_read_and_windows_own_frames_are_skipped():
    # microsoft/vscode-cpptools#5591: two threads copied from VS Code's Call Stack pane.
    meta, text, parsed = read_as_recorded(FIXTURE)
    assert parsed.frames[0].function == meta["innermost"]
    # x86's decorations go: "@BaseThreadInitThunk@12" is BaseThreadInitThunk, and ntdll's and
    # kernel32's frames are Windows's own.
    assert parsed.frames[1].function == "BaseThreadInitThunk"
    assert sign(text).frames == ("thread_start",)


VISUAL_STUDIO = (
    (
        "Exception thrown at 0x00007FF6A1B2C3D4 in App.exe: 0xC0000005: Access violation reading location"
        " 0x0000000000000000.\n"
    )
    + """
>\tApp.exe!Parser::parse_header(const char * text) Line 42\tC++
 \tApp.exe!Parser::parse(const std::string & input) Line 17\tC++
 \tApp.exe!main(int argc, char * * argv) Line 5\tC++
 \t[External Code]\t
"""
)
WINDBG = """   ExceptionCode: c0000005 (Access violation)
00 0000004f`9b4ff5a8 00007ff6`00001000 App!Parser::parse_header+0x2a
01 0000004f`9b4ff5b0 00007ff6`00002000 App!Parser::parse+0x4d
02 0000004f`9b4ff5b8 00007ff6`00003000 App!main+0x10
03 0000004f`9b4ff5c0 00007ffc`1a2b3c4d KERNEL32!BaseThreadInitThunk+0x14
"""


def test_visual_studio_and_windbg_name_one_crash_by_its_frames():
    studio, windbg = traces.parse(VISUAL_STUDIO), traces.parse(WINDBG)
    assert studio.format == windbg.format == debugger_stack.FORMAT
    assert studio.crash_type == "0xc0000005 access violation"
    assert windbg.crash_type == "0xc0000005 access violation"
    assert sign(VISUAL_STUDIO).frames == sign(WINDBG).frames == ("Parser::parse_header", "Parser::parse", "t:main")
    # "[External Code]" is no frame.
    assert all(frame.function for frame in studio.frames)


def test_two_lines_naming_a_function_are_no_stack():
    assert not debugger_stack.recognize("see App.exe!main for details\n")
    assert not debugger_stack.recognize("if (a != b) return;\nwhile (!done) step();\n")


def test_a_translated_message_names_the_same_exception_by_its_code():
    german = VISUAL_STUDIO.replace(
        "Exception thrown at 0x00007FF6A1B2C3D4 in App.exe: 0xC0000005: Access violation reading location",
        "Ausnahme ausgelöst bei 0x00007FF6A1B2C3D4 in App.exe: 0xC0000005: Zugriffsverletzung beim Lesen an Position",
    ).replace(" Line ", " Zeile ")
    assert german != VISUAL_STUDIO
    assert sign(german).digest == sign(VISUAL_STUDIO).digest


def test_windbgs_source_and_arguments_vs_codes_other_systems_and_the_first_thread_only():
    with_source = WINDBG.replace("+0x2a\n", "+0x2a [C:\\src\\parser.cpp @ 42]\n")
    with_arguments = WINDBG.replace("App!Parser::parse+0x4d", "App!Parser::parse(class std::string * input = 0x1)+0x4d")
    for text in (with_source, with_arguments):
        assert sign(text).frames == sign(WINDBG).frames
    linux = (
        "libc.so.6!__GI_raise(int sig) (/build/glibc/raise.c:50)\n"
        "a.out!Parser::parse_header(const char * text) (/src/parser.cc:42)\n"
        "a.out!Parser::parse(const std::string & input) (/src/parser.cc:17)\n"
    )
    assert [frame.function for frame in traces.parse(linux).frames][1:] == ["Parser::parse_header", "Parser::parse"]
    # A second thread pasted below the first is not the crash's stack.
    assert sign(VISUAL_STUDIO + "\n \tApp.exe!Worker::run() Line 9\tC++\n").frames == sign(VISUAL_STUDIO).frames


def test_windbgs_padded_columns_and_inline_frames_are_read():
    # A Chromium triager's `k` under WinDbg (issue 491516670): newer WinDbg pads its return-address column, an
    # inlined frame has dashes for addresses, a frame may end in the poster's "...", and MSVC names an anonymous
    # namespace "`anonymous namespace'". The exception's code is read from `.exr`'s ExceptionCode.
    text = read_report("v21/windbg_inline_frames_chromium_491516670", "https://issues.chromium.org/")
    parsed = traces.parse(text)
    assert parsed.format == debugger_stack.FORMAT
    assert parsed.crash_type == "0xc0000005 access violation"
    assert [frame.function for frame in parsed.frames] == [
        "apply_stch",
        "postprocess_glyphs_arabic",
        "hb_ot_substitute_post",
        "blink::ShapeRange",
    ]
    # Padded or not, one stack is one key.
    assert sign(text.replace("     chrome!", " chrome!")).digest == sign(text).digest


def test_windbgs_call_stack_window_is_read_past_windows_exception_dispatch():
    # dotnet/runtime#47156: WinDbg's call-stack window, copied ("[0x1]   coreclr!DoJITFailFast + 0x7   ").
    # The C runtime's /GS report (__report_gsfailure) is where the crash was reported, not where it happened.
    text = read_report("v21/windbg_call_stack_window_dotnet_runtime_47156")
    assert traces.parse(text).frames[1].function == "DoJITFailFast"
    assert sign(text).frames == ("DoJITFailFast", "CrawlFrame::SetCurGSCookie", "StackFrameIterator::NextRaw")


def test_windbgs_event_line_names_the_exception_and_its_notices_name_no_bug():
    # WinDbg's "(pid.tid): Access violation - code c0000005 (first chance)" and kd's "(!!! second chance !!!)".
    assert traces.parse(WINDBG.replace("   ExceptionCode: c0000005 (Access violation)\n", "")).crash_type == "unknown"
    for event in (
        "(59cc.549c): Access violation - code c0000005 (first chance)\n",
        "Access violation - code c0000005 (!!! second chance !!!)\n",
        "EXCEPTION_CODE_STR:  c0000005\n",
    ):
        without = WINDBG.replace("   ExceptionCode: c0000005 (Access violation)\n", event)
        assert traces.parse(without).crash_type == "0xc0000005 access violation", event
    # google/UIforETW#28: a managed stack WinDbg could not walk; its first-chance notice and its symbol
    # warnings are printed on every such stop and are no identity.
    key = sign(read_report("v21/windbg_first_chance_uiforetw_28"))
    assert "first chance" not in key.crash_type.lower() and "checksum" not in key.crash_type.lower()


def test_the_c_runtimes_assertion_dialog_is_the_assertion_its_console_prints():
    # mpv-player/mpv#5064: "Assertion failed!", "File: ../ta/ta.c, Line 335", "Expression: h->canary == CANARY" as
    # Visual Studio showed the dialog, under an issue template whose "Expected behavior" says "without crash".
    text = read_report("v21/msvc_assert_dialog_mpv_5064")
    key = sign(text, "mpv-player/mpv")
    assert key.crash_type == "Assertion `h->canary == CANARY' failed"
    assert key.frames == ("site ta.c",)
    # The window's own layout (the line on a field of its own) and the console's one line are one assertion.
    window = (
        "Assertion failed!\n\nProgram: C:\\mpv\\mpv.exe\nFile: ../ta/ta.c\nLine: 293\n\n"
        "Expression: h->canary == CANARY\n"
    )
    console = "Assertion failed: h->canary == CANARY, file ../ta/ta.c, line 293\n"
    assert sign(window, "mpv-player/mpv").digest == sign(console, "mpv-player/mpv").digest == key.digest
