"""LLVM stack dumps as LLVM-based compilers' reporters paste them: handlers, cut lines, the C++ library's checks.

Real reports from dev-split trackers (tests/data/dedup/carbon_dev.jsonl, llvm_forks_dev_harvest.jsonl).
"""

from __future__ import annotations

from crashes import traces
from crashes.traces import extract
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign, sign_record

NO_IDENTITY = "no identifying line: a bucket of its own"


def test_what_llvms_handler_calls_above_its_dump_is_no_frame():
    # carbon-language/carbon-lang#1257: an ASan build's "#0 … backtrace …/sanitizer_common_interceptors.inc"
    # above PrintStackTrace, cut there: it keyed three different bugs alike.
    signature = sign_record("carbon-language/carbon-lang#1257", "carbon")
    assert "backtrace" not in signature.frames and NO_IDENTITY in signature.repairs
    dump = (
        "Stack dump:\n #0 0x1 backtrace (/bin/x+0x1)\n"
        " #1 0x2 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/bin/x+0x2)\n"
        " #2 0x3 SignalHandler(int) Signals.cpp:0:0\n #3 0x4 Foo::bar() (/bin/x+0x4)\n"
    )
    assert [frame.function for frame in traces.parse(dump).frames] == ["Foo::bar()"]


def test_the_c_plus_plus_librarys_own_check_is_no_identity():
    # carbon-lang#1248 and #2730: libc++'s "optional operator* called on a disengaged value", frames cut:
    # two different bugs, which that line alone put in one bucket.
    first, second = (
        sign_record("carbon-language/carbon-lang#1248", "c"),
        sign_record("carbon-language/carbon-lang#2730", "c"),
    )
    assert first.digest != second.digest
    assert NO_IDENTITY in first.repairs and NO_IDENTITY in second.repairs


def test_a_programs_camel_case_check_helper_is_no_frame():
    # carbon-lang#7157/c1: Carbon::Internal::CheckFailImpl below abort(), where every CHECK failure passes.
    text = record_trace("carbon-language/carbon-lang#7157/c1")
    assert "CheckFailImpl" in text
    assert not any("CheckFail" in frame for frame in sign(text, "carbon").similarity_frames)
    helper = (
        "Stack dump:\n #0 0x1 Carbon::Internal::CheckFailImpl(char const*) (/bin/c+0x1)\n"
        " #1 0x2 Carbon::Lower() (/bin/c+0x2)\n"
    )
    assert sign(helper, "carbon").frames == ("Carbon::Lower",)


def test_bold_around_a_whole_paste_is_markup():
    # tensorflow/tensorflow#62610 pasted its error in "_**…**_"; #69237 (a duplicate) in a fence.
    first, second = sign_record("tensorflow/tensorflow#62610"), sign_record("tensorflow/tensorflow#69237")
    assert first.crash_type == second.crash_type == "LLVM ERROR: Failed to infer result type(s)."
    assert "Markdown emphasis removed" in first.repairs
    # Only markers that open and close the whole paste: a pointer's stars or **kwargs stay.
    code = "int **p = f(**kwargs);\nreturn **p"
    assert extract._strip_emphasis(code) == (code, "")
    assert extract._strip_emphasis("**a\nb**") == ("a\nb", "Markdown emphasis removed")


def test_windows_words_for_any_segv_are_no_identity():
    # microsoft/DirectXShaderCompiler#3790 and #4640: "Internal compiler error: access violation. Attempted to
    # read from address 0x…", which every access violation of the compiler prints: two different bugs.
    first = sign_record("microsoft/DirectXShaderCompiler#3790", "dxc")
    second = sign_record("microsoft/DirectXShaderCompiler#4640", "dxc")
    assert first.digest != second.digest and NO_IDENTITY in first.repairs


def test_a_signals_number_and_haskells_partial_functions_are_no_identity():
    # lancaster-university/microbit-v2-samples#47 and Homebrew/homebrew-cask#124150: GCC's driver saying
    # "internal compiler error: Illegal instruction: 4", two different toolchains' bugs.
    # The signal names neither: the first by the user's function GCC was compiling (v19), the second
    # (a top-level declaration, no function) by nothing.
    first = sign_record("lancaster-university/microbit-v2-samples#47", "gcc")
    second = sign_record("Homebrew/homebrew-cask#124150", "gcc")
    assert first.frames == ("input codal::KeyValueTable::find",) and NO_IDENTITY in second.repairs
    assert first.digest != second.digest
    # elm/compiler#1885 and #1916: "elm: Map.!: given key is not an element in the map" and the call stack
    # of Haskell's containers below it, which every missing key prints: different bugs.
    elm = [sign_record(record_id, "elm") for record_id in ("elm/compiler#1885", "elm/compiler#1916")]
    assert elm[0].digest != elm[1].digest and NO_IDENTITY in elm[0].repairs


def test_gdbs_stop_line_cut_inside_its_path_and_its_pretty_printers_errors():
    # transmission/transmission#5988: "0x… in tr_swarm::on_got_port (this=…) at Transmission/libtransmissi"
    # wrapped by the terminal, then "Python Exception <class 'gdb.error'>: …" from `p nh`.
    signature = sign_record("transmission/transmission#5988", "transmission")
    assert (signature.trace_format, signature.frames) == ("gdb", ("tr_swarm::on_got_port",))


def test_an_assertion_line_a_terminal_cut_reads_as_pasted_whole():
    # At 120 columns: intel/llvm#8719's line written on its fence's own line ("```clang++: …"), its
    # closing fence cut onto another; MSVC's assertion cut in its file's path (halide/Halide#3208, #4996,
    # clangd/clangd#288); glibc's cut where a paste already stopped inside the expression
    # (swiftlang/swift#75311) and on the blank before "failed." (WebAssembly/binaryen#7602).
    for record_id in (
        "intel/llvm#8719",
        "halide/Halide#3208",
        "halide/Halide#4996",
        "clangd/clangd#288",
        "swiftlang/swift#75311",
        "WebAssembly/binaryen#7602",
    ):
        text = record_trace(record_id)
        whole = sign(text)
        assert whole.trace_format == "llvm" and hard_wrap(text, 120) != text
        assert sign(hard_wrap(text, 120)).digest == whole.digest, record_id
    # A fence's info string is no text of the trace, with a blank in it too.
    assert extract.clean("```shell session\n$ clang a.c\n```").text == "$ clang a.c"


def test_a_frames_location_a_terminal_put_on_the_next_line_is_the_frames():
    # upx/upx#378 at 120 columns: ASan's frames "#0 … invert_pt_dynamic(…const*)" end exactly at the width,
    # their " /home/…/p_lx_elf.cpp:1688" on the next line, a blank in; the frames below them still count.
    text = record_trace("upx/upx#378")
    whole = sign(text)
    assert len(whole.frames) >= 3
    assert sign(hard_wrap(text, 120)).digest == whole.digest


def test_a_release_builds_dump_is_keyed_by_the_innermost_pass_it_names():
    # A distribution's clang without symbols (v19): no frame names a function, the pretty stack trace's
    # innermost "Running pass" says where (the user's function named after it is no part of the key).
    def dump(function: str, crashed_pass: str) -> str:
        return (
            "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash "
            "backtrace.\nStack dump:\n0.\tProgram arguments: /usr/bin/clang-15 -cc1 -O2 x.c\n"
            "1.\t<eof> parser at end of file\n2.\tCode generation\n"
            "3.\tRunning pass 'Function Pass Manager' on module 'x.c'.\n"
            f"4.\tRunning pass '{crashed_pass}' on function '@{function}'\n"
            " #0 0x00007f1c2b8a1d31 (/usr/lib/llvm-15/lib/libLLVM-15.so.1+0xe6ad31)\n"
            " #1 0x00007f1c2b89fa7e (/usr/lib/llvm-15/lib/libLLVM-15.so.1+0xe68a7e)\n"
        )

    isel = sign(dump("main", "X86 DAG->DAG Instruction Selection"), "clang")
    assert "pass X86 DAG->DAG Instruction Selection" in isel.frames
    assert sign(dump("other", "X86 DAG->DAG Instruction Selection"), "clang").digest == isel.digest
    assert sign(dump("main", "Greedy Register Allocator"), "clang").digest != isel.digest
