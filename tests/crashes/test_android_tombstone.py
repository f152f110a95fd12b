"""Android's native crash reports (tombstones) are read (signature v19): the signal, or the abort's
message, and the backtrace's symbols without their offsets, by their library's file name.

The fixtures (tests/traces/android_tombstone) are real: tor-android's abort through its own abort helpers
(xCrash's form, "pc 0x…") and AOSP's crasher quoted as an example in a ToxAndroidRefImpl issue. Neither
was read before: an NDK program's crash had no frames, and the lines above them keyed it.
"""

from __future__ import annotations

import pytest

from crashes import traces
from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("android_tombstone")


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda path: path.stem)
def test_the_backtraces_own_frames_are_the_key(trace):
    # The C library (bionic's abort, pthread_start) and the program's abort helpers are no frames.
    meta, text, _ = read_as_recorded(trace)
    assert sign(text).frames == tuple(meta["key"].split())


def _tor() -> str:
    return next(path for path in FIXTURES if path.stem.startswith("tor_")).read_text()


def test_another_install_and_build_is_the_same_bucket():
    text = _tor()
    other = text.replace("~~yHj5YOUJqZUb2K_9ApZIFA==", "~~Q1w2e3r4t5y6u7i8o9p0==").replace("+156)", "+172)")
    other = other.replace("0x000000000010b458", "0x000000000010c000")
    assert other != text
    assert sign(other).digest == sign(text).digest


def test_an_aborts_message_is_its_crash_type():
    text = "signal 6 (SIGABRT), code -6 (SI_TKILL), fault addr --------\nAbort message: 'Check failed: x != nullptr'\n"
    text += _tor().split("backtrace:\n", 1)[1]
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == ("android-tombstone", "abort: Check failed: x != nullptr")


def test_a_frame_without_its_symbol_names_nothing():
    # A release build's engine (flutter/flutter#150550): "…/base.apk!libflutter.so (offset 0x33a8000) (BuildId: …)".
    text = (
        "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000\nbacktrace:\n"
        "      #00 pc 00000000022d2b85  /data/app/~~-pb==/app.x-3L==/base.apk!libflutter.so (offset 0x33a8000) "
        "(BuildId: e96ff770a75cfc6448d97244f1265238b49e9c42)\n"
        "      #01 pc 00000000022d2b04  /data/app/~~-pb==/app.x-3L==/base.apk!libflutter.so (offset 0x33a8000) "
        "(BuildId: e96ff770a75cfc6448d97244f1265238b49e9c42)\n"
    )
    parsed = traces.parse(text)
    assert parsed.format == "android-tombstone"
    assert [(frame.function, frame.module) for frame in parsed.frames] == [("", "libflutter.so")] * 2
    assert sign(text).frames == ()
