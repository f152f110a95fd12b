"""lldb's backtraces (crashes.traces.lldb), on reports from public trackers (tests/traces/lldb/*.meta)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from crashes.traces import extract, lldb
from tests.crashes.signing import sign, sign_record
from tests.traces import ROOT, fixtures, read_as_recorded

FIXTURES = fixtures("lldb")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_the_stop_reason_and_the_first_frame_of_the_programs_own_code(path: Path):
    meta, text, _ = read_as_recorded(path)
    assert sign(text).frames[0] == meta["innermost"]


def test_binaryens_assertion_in_lldb_is_keyed_by_its_frames_not_by_a_frame_line():
    # WebAssembly/binaryen#9: lldb's "bt" alone, below gsignal/abort/__assert_fail. Before lldb's
    # lines were read, its key was the text's line "frame #1: … libc.so.6`abort + 328".
    signature = sign_record("WebAssembly/binaryen#9")
    assert signature.trace_format == lldb.FORMAT and signature.crash_type == "SIGABRT"
    assert signature.frames[:2] == ("wasm::Element::list", "wasm::Element::operator[]")


def test_lldbs_unnamed_symbols_and_the_c_librarys_abort_path_name_nothing():
    # swiftlang/llvm-project#4299: raise, abort, ___lldb_unnamed_symbol8$$libc.so.6, __assert_fail.
    text = (ROOT / "lldb" / "lldb_swift_typeref_assert.txt").read_text()
    assert sign(text).frames == ("lldb_private::TypeSystemSwiftTypeRef::DumpTypeValue",)


def test_an_assertion_above_the_backtrace_is_keyed_as_llvms_rules_key_it():
    assertion = "clang: /src/clang/lib/Sema/SemaExpr.cpp:12: void clang::Sema::Foo(int): Assertion `x' failed.\n"
    dump = assertion + (
        "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/\nStack dump:\n"
        " #0 0x0000556 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x1)\n"
        " #1 0x0000557 clang::Sema::Foo(int) (/usr/bin/clang+0x2)\n"
        " #2 0x0000558 clang::Sema::Bar() (/usr/bin/clang+0x3)\n"
    )
    debugged = assertion + (
        "* thread #1, name = 'clang', stop reason = signal SIGABRT\n"
        "  * frame #0: 0x00007ffff7a42428 libc.so.6`raise + 56\n"
        "    frame #1: 0x00007ffff7a4402a libc.so.6`abort + 362\n"
        "    frame #2: 0x0000555555b2c0f4 clang`clang::Sema::Foo(this=0x0, x=1) at SemaExpr.cpp:12:3\n"
        "    frame #3: 0x0000555555b2d000 clang`clang::Sema::Bar(this=0x0) at SemaExpr.cpp:40:5\n"
    )
    assert traces.parse(debugged).format == "llvm"
    assert sign(debugged).digest == sign(dump).digest


def test_of_several_threads_the_one_lldb_stopped_in_is_the_crash():
    text = (
        "  thread #2, name = 'worker'\n"
        "    frame #0: 0x1 libc.so.6`__futex_wait + 1\n"
        "    frame #1: 0x2 app`pool::wait(x=1) at pool.c:9\n"
        "* thread #1, name = 'app', stop reason = signal SIGSEGV: invalid address (fault address: 0x0)\n"
        "  * frame #0: 0x3 app`parse_header(p=0x0) at parse.c:12:7\n"
        "    frame #1: 0x4 app`main(argc=2) at main.c:5:3\n"
    )
    parsed = traces.parse(text)
    assert parsed.crash_type == "SIGSEGV"
    assert [frame.function for frame in parsed.frames] == ["parse_header", "main"]


def test_zero_width_spaces_and_numeric_entities_from_a_page_are_removed():
    # swiftlang/llvm-project#4299 as stored: "frame #&#8203;0:" (GitHub breaks the issue link it would make).
    text = (ROOT / "lldb" / "lldb_swift_typeref_assert.txt").read_text()
    assert "#&#8203;0" in text
    cleaned = extract.clean(text)
    assert "frame #0: 0x" in cleaned.text and "zero-width spaces removed" in cleaned.repairs
    assert extract.clean("a\u200bb\ufeff").text == "ab"
    # Numeric references alone are decoded: "&notify" is a Rust reference, not the entity "¬".
    assert extract.clean("f(&registry, &notify_tx) #&#8203;0").text == "f(&registry, &notify_tx) #0"


def test_a_stop_notice_then_bt_is_read_by_the_whole_backtrace():
    # lldb prints the stopped thread with its top frame, then `bt` prints it whole; one crash pasted
    # with and without the notice is one bucket.
    bt = (
        "(lldb) bt\n"
        "* thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x0)\n"
        "  * frame #0: 0x0000000100003f3c a.out`parse_node(p=0x0000000000000000) at parser.c:31:12\n"
        "    frame #1: 0x0000000100003f80 a.out`parse_list(l=0x0000600000c04000) at parser.c:58:9\n"
        '    frame #2: 0x0000000100003fb0 a.out`parse_file(path="in.txt") at parser.c:90:5 [opt]\n'
    )
    notice = (
        "Process 41234 stopped\n"
        "* thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x0)\n"
        "    frame #0: 0x0000000100003f3c a.out`parse_node(p=0x0000000000000000) at parser.c:31:12\n"
        "-> 31  \t\treturn p->kind;\n"
    )
    assert sign(notice + bt).frames == sign(bt).frames == ("parse_node", "parse_list", "parse_file")
    # An optimized build's " [opt]" after the location is no part of it.
    last = traces.parse(bt).frames[2]
    assert (last.function, last.file, last.line) == ("parse_file", "parser.c", 90)
