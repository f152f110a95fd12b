"""bun.report's symbolized stacks (crashes.traces.bun_report), on Bun's own crash reports.

Fixtures: tests/traces/bun_report/*.txt (each .meta names its issue) and
reports of tests/data/dedup. Before signature v13 no parser read them: each
report was a bucket of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from crashes.traces import bun_report
from tests.crashes.signing import sign, sign_record
from tests.traces import ROOT, fixtures, read_as_recorded

FIXTURES = fixtures("bun_report")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_the_crash_and_the_first_frame_that_names_a_function(path: Path):
    meta, text, _ = read_as_recorded(path, "https://github.com/oven-sh/bun/issues/")
    assert sign(text).frames[0] == meta["innermost"]


def test_the_signal_handler_and_unnamed_frames_are_not_the_crash():
    # oven-sh/bun#12122: JavaScriptCore's handler, the trampoline ("??"), then Bun's fetch task.
    text = (ROOT / "bun_report" / "linux_fetch_segfault.txt").read_text()
    assert "WTF::jscSignalHandler" in text
    assert sign(text).frames == ("onProgressUpdate", "tickQueueWithCount", "tick")


def test_a_panics_message_is_its_crash_type():
    # oven-sh/bun#18202: "**panic**: Internal assertion failure" over bun install's lockfile parser,
    # printed by a Windows build with bare function names.
    signature = sign_record("oven-sh/bun#18202")
    assert signature.trace_format == bun_report.FORMAT
    assert signature.crash_type == "Internal assertion failure"
    assert signature.frames == ("parseWithJSON", "parse", "installWithManager")


def test_one_crash_from_another_build_and_system_is_one_bucket():
    text = (ROOT / "bun_report" / "linux_yarn_migrate_segfault.txt").read_text()
    # The same crash from a later Windows build: another commit, other lines, bare Zig names, and the
    # system's own unnamed frames.
    windows = (
        text.replace("cf13671", "b131639")
        .replace("on linux x86_64_baseline", "on windows x86_64")
        .replace("yarn.zig:1389", "yarn.zig:1402")
        .replace("`install.yarn.migrateYarnLockfile`", "`migrateYarnLockfile`")
        .replace("`??`", "??? at `0x8a046` in ntdll.dll")
        .replace("0x00004190", "0x7FF7BC23A000")
    )
    assert windows != text
    assert sign(windows).digest == sign(text).digest
    # Zig names the same function by its module path or bare: one key either way.
    assert sign(text.replace("`install.yarn.", "`src.install.yarn.")).digest == sign(text).digest
    moved = text.replace("migrateYarnLockfile", "migratePnpmLockfile")
    assert sign(moved).digest != sign(text).digest


def test_a_header_alone_or_a_list_elsewhere_is_not_a_report():
    header = "Bun v1.3.2 ([`b131639`](<https://github.com/oven-sh/bun/tree/b131639>)) on linux x86_64 [_]\n\n"
    assert not bun_report.recognize(header + "Segmentation fault at address 0x0\n\nFeatures: jsc\n")
    assert not bun_report.recognize("- `f`\n- `g`\n")
    assert bun_report.recognize(header + "panic: oops\n\n- `vmEntryToJavaScript`\n")
    # Bun's terminal output alone ("panic(main thread): …", then bun.report's link) has no frames.
    assert sign_record("oven-sh/bun#29488").trace_format != bun_report.FORMAT


def test_a_function_outside_bun_keeps_its_module_and_the_list_goes_on():
    text = (
        "Bun v1.3.2 ([`b131639`](<https://github.com/oven-sh/bun/tree/b131639>)) on windows x86_64 [_]\n\n"
        "Segmentation fault at address 0x0\n\n"
        "- `RtlUserThreadStart` in ntdll.dll\n- [`a.zig:1`](<u>): `f`\n- `g` in foo.dll\n- `h`\n"
    )
    frames = traces.parse(text).frames
    assert [(frame.function, frame.module) for frame in frames] == [
        ("RtlUserThreadStart", "ntdll.dll"),
        ("f", ""),
        ("g", "foo.dll"),
        ("h", ""),
    ]
