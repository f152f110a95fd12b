"""macOS crash reports and macOS's system frames, on reports from public trackers (tests/traces/apple/*.meta).

Before signature v5 a CrashReporter report went to the unparsed path, whose
generic frames were the first thread's (the main thread's event loop, often),
and macOS's own libraries (libsystem_kernel's __pthread_kill, the signal
trampoline _sigtramp, libsystem_platform's memmove) were frames of the bug.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from tests.crashes.signing import sign as _sign
from tests.data.record_digests import dedup_records
from tests.traces import ROOT, read_meta

FIXTURES = sorted((ROOT / "apple").glob("*.txt"))
RECORDS = dedup_records()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_the_crashed_threads_stack_and_signal(path: Path):
    meta, text = read_meta(path), path.read_text()
    assert meta["source"].startswith("https://")
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == ("apple-crash", meta["error"])
    if meta["innermost"] == "none":
        assert parsed.frames == ()
        return
    assert parsed.frames[0].function == meta["innermost"]
    assert _sign(text).frames[0] in (meta["significant"], f"t:{meta['significant']}")


def test_the_crashed_thread_not_the_first_printed():
    text = (ROOT / "apple" / "dsymtools_cfstring_crashed_thread_0.txt").read_text()
    # Thread 1 (printed after) waits in kevent64; the crash is thread 0's.
    moved = text.replace("Crashed Thread:  0", "Crashed Thread:  1").replace("Thread 0 Crashed::", "Thread 0::")
    moved = moved.replace("Thread 1::", "Thread 1 Crashed::")
    assert [f.function for f in traces.parse(moved).frames] == ["kevent64", "_dispatch_mgr_invoke"]
    assert traces.parse(text).frames[0].function == "CFStringGetCString"


def test_a_report_cut_before_its_crashed_thread_is_not_keyed_by_another_thread():
    text = (ROOT / "apple" / "nvim_crashed_thread_1.txt").read_text()
    assert "Crashed Thread:        1" in text and "Thread 1" not in text.split("Crashed Thread:", 1)[1][10:]
    assert "uv__io_poll" not in _sign(text).frames


def _corpus(record_id: str) -> str:
    return RECORDS[record_id]["trace"]


def test_macos_system_frames_are_skipped_in_every_format():
    # php-src#17137 (a comment's ASan report on macOS): libsystem_platform's memmove, with its offset.
    asan = _sign(_corpus("php/php-src#17137/c1"))
    assert asan.frames[0] == "zend_inline_hash_func"
    assert not any("memmove" in frame for frame in asan.frames)
    # avr-rust/rust-legacy-fork#104: LLVM's stack dump on macOS, through the signal trampoline.
    llvm = _sign(_corpus("avr-rust/rust-legacy-fork#104"))
    assert llvm.trace_format == "llvm" and not any("_sigtramp" in frame for frame in llvm.frames)


def test_an_assertion_in_the_report_names_the_bug():
    # neovim#12387: macOS's assert() in "Application Specific Information", read as any C assertion is.
    signature = _sign(_corpus("neovim/neovim#12387"))
    assert signature.crash_type.startswith("Assertion `saved_copyID != copyID")
    assert signature.frames[0] == "site _typval_encode_nothing_convert_one_value"


def test_two_reports_cut_before_their_crashed_thread_share_no_bucket_by_their_header():
    # Both have "Exception Note: EXC_CORPSE_NOTIFY", as every macOS report of the time has.
    first, second = _sign(_corpus("neovim/neovim#8936")), _sign(_corpus("neovim/neovim#15615/c1"))
    assert "EXC_CORPSE_NOTIFY" not in first.message + second.message
    assert first.digest != second.digest


def _report(frames: str, header: str = "Crashed Thread:        0\n") -> str:
    return "Exception Type:        EXC_BAD_ACCESS (SIGSEGV)\n" + header + "\nThread 0 Crashed:\n" + frames


def test_frame_forms_of_newer_and_older_reports():
    parsed = traces.parse(
        _report(
            "0   foo  0x102e23a10 load_file + 96 (loader.c:55) [inlined]\n"
            "1   ???  0x10ea5c1b0 0 + 4540711344\n"
            "2   foo  0x102e23a20 -[FooWorker processItem:] + 12\n"
        )
    )
    assert [(f.function, f.file, f.line) for f in parsed.frames] == [
        ("load_file", "loader.c", 55),
        ("", "", None),
        ("-[FooWorker processItem:]", "", None),
    ]


def test_objective_c_methods_keep_their_class():
    one = _sign(_report("0   app  0x1 -[FooWorker processItem:] + 12\n1   app  0x2 -[App run] + 3\n"))
    other = _sign(_report("0   app  0x1 -[BarQueue processItem:] + 12\n1   app  0x2 -[App run] + 3\n"))
    assert one.frames[0] == "FooWorker.processItem" and one.digest != other.digest


def test_system_frameworks_and_runtimes_are_skipped():
    frames = (
        "0   libobjc.A.dylib               0x1 objc_msgSend + 29\n"
        "1   com.apple.CoreFoundation      0x2 __CFRunLoopDoObservers + 10\n"
        "2   libdispatch.dylib             0x3 _dispatch_call_block_and_release + 12\n"
        "3   app                           0x4 handle_event + 40 (events.c:12)\n"
    )
    assert _sign(_report(frames)).frames[0] == "handle_event"


def test_an_ios_report_names_its_crashed_thread_as_triggered_by():
    text = _report("0   app  0x1 idle_loop + 1\n", header="Triggered by Thread:  2\n").replace(
        "Thread 0 Crashed:", "Thread 0:"
    )
    assert traces.parse(text).frames == ()


def test_an_uncaught_objective_c_exception_is_keyed_where_it_was_raised():
    # The frames of CocoaPodUI#12's "Application Specific Backtrace" (its plug-in's own frames symbolized).
    text = (
        "Exception Type:  EXC_CRASH (SIGABRT)\n"
        "Application Specific Information:\n"
        "*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: 'x'\n\n"
        "Application Specific Backtrace 1:\n"
        "0   CoreFoundation                      0x00007fff8c73625c __exceptionPreprocess + 172\n"
        "2   libobjc.A.dylib                     0x00007fff87ec7e75 objc_exception_throw + 43\n"
        "3   CoreFoundation                      0x00007fff8c73610c +[NSException raise:format:] + 204\n"
        "4   Foundation                          0x00007fff8d7ed9c0 COPY_SETTER_IMPL + 154\n"
        "5   CocoaPodUI                          0x00000001102b87a0 -[CPUIPod setVersion:] + 22\n\n"
        "Thread 0 Crashed:: Dispatch queue: com.apple.main-thread\n"
        "0   libsystem_kernel.dylib        \t0x00007fff7bd0ab66 __pthread_kill + 10\n"
        "1   app                           \t0x000000010155febd main + 13\n"
    )
    signature = _sign(text)
    assert signature.crash_type == "NSInvalidArgumentException"
    assert signature.frames[0] == "CPUIPod.setVersion"


def test_a_launch_refused_by_code_signing_is_one_bucket_however_much_of_the_report_is_pasted():
    # KeePassXC #4484 (cut before its threads) and #4477 (whose crashed thread shows only dyld starting).
    cut, whole = _sign(_corpus("keepassxreboot/keepassxc#4484")), _sign(_corpus("keepassxreboot/keepassxc#4477"))
    assert "Thread 0 Crashed" not in _corpus("keepassxreboot/keepassxc#4484")
    assert cut.crash_type == whole.crash_type == "EXC_CRASH (Code Signature Invalid)"
    assert cut.digest == whole.digest


def test_a_paste_of_the_exception_lines_alone_is_read():
    # KeePassXC #4478 pasted only the exception's three lines.
    text = _corpus("keepassxreboot/keepassxc#4478")
    assert "Thread" not in text
    assert _sign(text).digest == _sign(_corpus("keepassxreboot/keepassxc#4484")).digest


def test_an_uncaught_exceptions_stack_pasted_alone_is_read_as_the_reports():
    # sequelpro/sequelpro#3154 and lwouis/alt-tab-macos#5232 (v19): Foundation's "*** First throw call stack:"
    # in parentheses, below a log line; Apple's libraries (CoreFoundation, libobjc) are no frames.
    text = (
        "2026-01-21 22:42:50.585 AltTab[4953:34377] [AppCenterCrashes] WARNING: Cannot find image for 0x186589924\n"
        "*** Terminating app due to uncaught exception 'NSInvalidArgumentException', reason: "
        "'-[AltTab.LiquidGlassEffectView setStyle:]: unrecognized selector sent to instance 0xb48b0e400'\n"
        "*** First throw call stack:\n(\n"
        "\t0   CoreFoundation                      0x0000000186a30860 __exceptionPreprocess + 176\n"
        "\t1   libobjc.A.dylib                     0x00000001865163e8 objc_exception_throw + 88\n"
        "\t4   CoreFoundation                      0x00000001869c9a50 _CF_forwarding_prep_0 + 96\n"
        "\t5   Sequel Pro                          0x00000001000576e6 -[SPTablesList updateTables:] + 1291\n"
        "\t6   Sequel Pro                          0x0000000100045e0b -[SPDatabaseDocument _selectDatabaseAndItem:] "
        "+ 437\n"
        ")\n"
    )
    signed = _sign(text)
    assert (signed.trace_format, signed.crash_type) == ("apple-crash", "NSInvalidArgumentException")
    assert signed.frames[:2] == ("SPTablesList.updateTables", "SPDatabaseDocument._selectDatabaseAndItem")


def test_react_natives_bridge_reporting_a_javascript_error_is_no_frame():
    # react-native#18467 and #23196 (v19): RCTFatal's plumbing, the same for every unhandled JavaScript error.
    text = (
        "Fatal Exception: RCTFatalException: Unhandled JS Exception: undefined is not an object\n"
        "0  CoreFoundation                 0x1a67325ac __exceptionPreprocess\n"
        "1  libobjc.A.dylib                0x1ba82042c objc_exception_throw\n"
        "2  MyApp                          0x102477bb0 RCTFatal + 568 (RCTAssert.m:147)\n"
        "3  MyApp                          0x102477bc0 -[RCTExceptionsManager reportFatalException:stack:exceptionId:] "
        "+ 12\n"
        "4  MyApp                          0x102477bd0 -[RCTModuleMethod invokeWithBridge:module:arguments:] + 20\n"
    )
    assert _sign(text).frames == ()
