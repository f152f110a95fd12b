"""Zig's panics and stack traces, on reports from Zig's tracker (tests/traces/zig/*.meta).

Before signature v5 no parser read them: the unparsed path keyed each by
"thread N panic: reached unreachable code" (the same line for most Zig
compiler crashes) and the first two frame-like lines it found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from tests.crashes.signing import sign as _sign
from tests.traces import ROOT, read_meta

FIXTURES = sorted((ROOT / "zig").glob("*.txt"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_the_panic_and_the_first_frames_of_the_programs_own_code(path: Path):
    meta, text = read_meta(path), path.read_text()
    assert meta["source"].startswith("https://")
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == ("zig", meta["error"])
    assert parsed.frames[0].function == meta["innermost"]
    assert _sign(text).frames[0] == meta["significant"]


def test_std_assert_and_the_panic_helpers_are_skipped():
    text = (ROOT / "zig" / "std_assert_struct_field_val.txt").read_text()
    assert "std/debug.zig:281:9: 0x10271316b in assert" in text
    assert "assert" not in _sign(text).frames


def test_a_crash_all_inside_the_standard_library_keeps_its_frames():
    # Zig's own std is Zig's code: os.msync's unreachable is the bug (ziglang/zig#16331).
    frames = _sign((ROOT / "zig" / "std_msync_unreachable.txt").read_text()).frames
    assert frames[:2] == ("os.msync", "debug.isValidMemory")


def test_one_crash_rebuilt_elsewhere_is_one_bucket_and_another_function_is_another():
    text = (ROOT / "zig" / "windows_lowerptr_unreachable.txt").read_text()
    # The same crash from a Linux build: other paths, addresses, lines and thread id.
    linux = (
        text.replace("C:\\Users\\Krzysztof\\dev\\zig\\src\\codegen\\", "/home/k/zig/src/codegen/")
        .replace("zig.exe.obj", "zig")
        .replace("thread 14996", "thread 2211")
        .replace(":4329:60: 0xf2c100", ":4331:60: 0x7f2c100")
    )
    assert "C:\\" not in linux.split("\n", 3)[1]
    assert _sign(linux).digest == _sign(text).digest
    other = text.replace("in lowerPtr (", "in lowerParentPtr (")
    assert _sign(other).digest != _sign(text).digest


def test_generic_instances_are_numbered_per_build():
    line = "/zig/lib/compiler/x.zig:1:2: 0x1 in spawn__anon_{} (build)\n    f();\n    ^\n"
    first = "thread 1 panic: boom\n" + line.format(52284) + line.replace("spawn", "run").format(9433)
    second = "thread 1 panic: boom\n" + line.format(56775) + line.replace("spawn", "run").format(8489)
    assert _sign(first).digest == _sign(second).digest


def _frames(text: str):
    return _sign(text).frames


def test_test_runners_and_names_with_blanks():
    text = (
        "thread 1 panic: boom\n"
        "/a/lib/std/testing.zig:1:2: 0x1 in expect (test)\n"
        "/p/src/main.zig:3:4: 0x2 in test.add handles big numbers (test)\n    x\n    ^\n"
        "/a/lib/compiler/test_runner.zig:5:6: 0x3 in mainServer (test)\n"
    )
    assert _frames(text) == ("test.add_handles_big_numbers",)


def test_the_compilers_parser_in_std_zig_is_the_compilers_code():
    text = (
        "thread 1 panic: reached unreachable code\n"
        "/z/lib/std/zig/AstGen.zig:1:2: 0x1 in expr (zig)\n/z/src/Module.zig:3:2: 0x1 in astGenFile (zig)\n"
    )
    assert _frames(text)[0] == "AstGen.expr"
    # A project's own directory named std is the project's.
    assert _frames(text.replace("/z/lib/std/zig/", "/p/src/std/"))[0] == "AstGen.expr"


def test_other_ways_a_zig_program_dies():
    frames = "/p/src/a.zig:1:2: 0x1 in f (a)\n/p/src/a.zig:3:2: 0x1 in g (a)\n"
    assert _sign("error: FileNotFound\n" + frames).crash_type == "FileNotFound"
    assert _sign("General protection exception (no address available)\n" + frames).crash_type == (
        "General protection exception"
    )
    progress = "2/3 main.test.parse...thread 73390 panic: index out of bounds: index 5, len 3\n" + frames
    assert _sign(progress).crash_type == "index out of bounds: index N, len N"
    # Without debug info no file is named: the panic says it is Zig.
    bare = "thread 1 panic: reached unreachable code\n???:?:?: 0x109321043 in _Compilation.update (???)\n"
    assert _sign(bare).trace_format == "zig" and _sign(bare).frames == ("_Compilation.update",)
