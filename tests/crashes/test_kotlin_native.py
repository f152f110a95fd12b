"""Kotlin/Native's uncaught exceptions (crashes.traces.kotlin_native)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import kotlin_native
from tests.crashes.signing import sign
from tests.traces import ROOT, read_as_recorded

FIXTURE = ROOT / "kotlin_native" / "crashkios_irlinkage.txt"


def test_the_exception_and_the_kotlin_frames_below_its_constructors_and_the_runtime():
    # touchlab/CrashKiOS#85: an IrLinkageError thrown through K/N's runtime helper.
    meta, text, parsed = read_as_recorded(FIXTURE)
    assert sign(text).frames[0] == meta["innermost"]
    # The exception's constructors are not where it was thrown.
    assert not any("<init>" in frame.function for frame in parsed.frames)


def test_one_crash_from_another_build_and_as_crashlytics_prints_it_is_one_bucket():
    text = FIXTURE.read_text()
    rebuilt = text.replace("0x10766f09b", "0x10a66f09b").replace("+ 351", "+ 355").replace("shared   ", "Shared   ")
    assert sign(rebuilt).digest == sign(text).digest
    crashlytics = (
        "Fatal Exception: kotlin.native.internal.IrLinkageError\n"
        "Uncaught Kotlin exception: kotlin.native.internal.IrLinkageError: Function 'setUnhandledExceptionHook' "
        "can not be called\n"
        "0  shared  0x1072e119b kfun:kotlin.Throwable#<init>(kotlin.String?){} + 99 (Throwable.kt:99)\n"
        "1  shared  0x10766f09b kfun:co.touchlab.crashkios#setupDefaultUnhandledExceptionHook(){} + 351 (Hook.kt:12)\n"
        "2  shared  0x10766ef17 kfun:co.touchlab.crashkios#setupCrashHandler(co.touchlab.crashkios.CrashHandler){}"
        " + 139 (Hook.kt:30)\n"
    )
    assert traces.parse(crashlytics).format == kotlin_native.FORMAT
    assert sign(crashlytics).frames == sign(text).frames


def test_a_suspend_functions_and_an_internal_functions_marks_are_no_part_of_their_names():
    text = (
        "Uncaught Kotlin exception: kotlin.IllegalStateException: unsupported call\n"
        "    at 0   App   0x103edd8bf   kfun:kotlin.Throwable#<init>(kotlin.String?){} + 119 \n"
        "    at 1   App   0x103f10077   ThrowIllegalStateExceptionWithMessage + 163 \n"
        "    at 2   App   0x10527be13   kfun:io.ex.data.NetworkService#invoke#suspend(kotlin.Function0<0:0>){} + 91 \n"
        "    at 3   App   0x106de0893   kfun:io.ex.data.Repo.load#internal + 1215 \n"
    )
    assert [frame.function for frame in traces.parse(text).frames] == [
        "io.ex.data.NetworkService.invoke",
        "io.ex.data.Repo.load",
    ]


def test_a_macos_crash_report_naming_kotlin_functions_stays_the_crash_reports():
    # An iOS report lists Kotlin frames as "kfun:…" too, without K/N's "at": the crashed thread decides.
    report = (
        "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n\nThread 0:\n"
        "0   App   0x0000000104a1b2c3 kfun:com.example.Idle#wait(){} + 12\n"
        "1   App   0x0000000104a1b2d4 kfun:com.example.Idle#loop(){} + 40\n\n"
        "Thread 1 Crashed:\n0   App   0x0000000104a1c000 kfun:com.example.Parser#parse(){} + 8\n"
    )
    assert traces.parse(report).format == "apple-crash"
