"""HotSpot's crash reports (crashes.traces.hotspot), on reports from public trackers (tests/traces/hotspot)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from crashes.traces import hotspot
from tests.crashes.signing import sign
from tests.traces import ROOT, fixtures, read_as_recorded

FIXTURES = fixtures("hotspot")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_the_banners_error_and_the_problematic_frame(path: Path):
    meta, text, _ = read_as_recorded(path)
    assert sign(text).frames[0] == meta["innermost"]


def test_two_jvm_crashes_of_one_project_are_not_one_bucket_by_the_banner():
    # Before the format was read, both were keyed on "# A fatal error has been detected by the Java
    # Runtime Environment:", the first line reporting a failure.
    one = (ROOT / "hotspot" / "androidscreencast_jnu_getenv.txt").read_text()
    other = (ROOT / "hotspot" / "jssc_jvm_set_int_array_region.txt").read_text()
    assert sign(one, "app").digest != sign(other, "app").digest
    # The same crash on another run (other addresses, pid, paths) is one bucket.
    again = one.replace("pid=966, tid=967", "pid=4410, tid=4411").replace("0x00007f6a9165d009", "0x00007f11aa65d009")
    assert sign(again, "app").digest == sign(one, "app").digest


def test_the_whole_logs_native_frames_are_the_stack():
    head = (ROOT / "hotspot" / "androidscreencast_jnu_getenv.txt").read_text()
    log = head + (
        "\n---------------  T H R E A D  ---------------\n\n"
        "Native frames: (J=compiled Java code, j=interpreted, Vv=VM code, C=native code)\n"
        "C  [libjava.so+0x1d009]  JNU_GetEnv+0x19\n"
        "C  [libawt_xawt.so+0x4a1c2]  Java_sun_awt_X11_XlibWrapper_XSync+0x22\n"
        "j  sun.awt.X11.XlibWrapper.XSync(JI)V+0\n"
        "J 1234 c2 sun.awt.X11.XToolkit.run(Z)V java.desktop@9 (229 bytes) @ 0x00007f6a7d1e2a4c"
        " [0x00007f6a7d1e2a00+0x4c]\n"
        "v  ~StubRoutines::call_stub\n\n"
        "Java frames: (J=compiled Java code, j=interpreted, Vv=VM code)\n"
        "j  sun.awt.X11.XlibWrapper.XSync(JI)V+0\n"
    )
    parsed = traces.parse(log)
    assert [frame.function for frame in parsed.frames][:4] == [
        "JNU_GetEnv",
        "Java_sun_awt_X11_XlibWrapper_XSync",
        "sun.awt.X11.XlibWrapper.XSync",
        "sun.awt.X11.XToolkit.run",
    ]


def test_the_vms_own_failed_check_names_the_crash():
    text = (
        "#\n# A fatal error has been detected by the Java Runtime Environment:\n#\n"
        "#  Internal Error (g1ConcurrentMark.cpp:1234), pid=77, tid=78\n"
        "#  guarantee(!_g1h->is_in_cset(obj)) failed: object 0x00000007ffa00000 in collection set\n#\n"
        "# Problematic frame:\n# V  [libjvm.so+0x6a1b2c]  G1CMTask::make_reference_grey(oopDesc*)+0x5c\n"
    )
    parsed = traces.parse(text)
    assert parsed.format == hotspot.FORMAT
    assert parsed.crash_type.startswith("Internal Error (g1ConcurrentMark.cpp): guarantee(")
    assert parsed.frames[0].function == "G1CMTask::make_reference_grey(oopDesc*)"
    assert sign(text).frames == ("G1CMTask::make_reference_grey",)


BANNER = "# A fatal error has been detected by the Java Runtime Environment:\n#\n"


def test_jdk9s_paths_compiled_frames_and_addresses():
    # Since JDK 9 the Internal Error names its file by path, and "fatal error:" its check.
    internal = BANNER + (
        "#  Internal Error (/work/jdk/src/hotspot/share/gc/g1/g1ConcurrentMark.cpp:1234), pid=1, tid=2\n"
        "#  fatal error: object in collection set\n#\n# Problematic frame:\n"
        "# V  [libjvm.so+0x6a1b2c]  G1CMTask::make_reference_grey(oopDesc*)+0x5c\n"
    )
    assert (
        traces.parse(internal).crash_type
        == "Internal Error (g1ConcurrentMark.cpp): fatal error: object in collection set"
    )
    # JDK 8's compiled frame ("J 2870 C2 …", "J 1234% c2 …"): its compile id differs in every run.
    for compiled in ("J 2870 C2", "J 1234% c2"):
        frame = f"# {compiled} java.util.HashMap.putVal(I)V (300 bytes) @ 0x1\n"
        text = BANNER + "#  SIGSEGV (0xb) at pc=0x1, pid=1, tid=1\n# Problematic frame:\n" + frame
        assert traces.parse(text).frames[0].function == "java.util.HashMap.putVal"
    # A frame named by its address alone names nothing.
    address = BANNER + "#  SIGSEGV (0xb) at pc=0x1, pid=1, tid=1\n# Problematic frame:\n# C  0x00007f3b2c5e1a2c\n"
    assert sign(address).frames == ()


def test_a_report_pasted_from_its_error_line_is_read_and_that_line_alone_is_no_identity():
    headless = (ROOT / "hotspot" / "androidscreencast_jnu_getenv.txt").read_text().split("# SIGSEGV", 1)[1]
    headless = "# SIGSEGV" + headless
    assert "A fatal error" not in headless
    assert traces.parse(headless).format == hotspot.FORMAT
    assert sign(headless).frames == ("JNU_GetEnv",)
    # Two crashes whose paste kept only the error line are not one bucket by it.
    one = sign("#  SIGSEGV (0xb) at pc=0x00007f6a9165d009, pid=966, tid=967\n#\n# JRE version: 17\n", "app")
    assert "no identifying line: a bucket of its own" in one.repairs
