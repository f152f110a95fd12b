"""glibc's backtrace_symbols lines (crashes.traces.glibc_backtrace), on real reports (tests/data/dedup)."""

from __future__ import annotations

from crashes import signatures
from crashes.traces import glibc_backtrace, parse
from tests.crashes.signing import sign_record as _sign
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def test_htops_handler_backtraces_are_keyed_by_the_frames_below_its_handler():
    # hishamhm/htop#493, a second reporter in its thread, and #533 (the maintainer: "fixed in #493"):
    # "htop 2.0.1 aborting" and "htop(Affinity_set+0x2b)[0x55aed61e2cfb]" lines, each run's addresses.
    same = [_sign(rid) for rid in ("hishamhm/htop#493", "hishamhm/htop#493/c2", "hishamhm/htop#533")]
    assert len({signature.digest for signature in same}) == 1
    assert same[0].trace_format == glibc_backtrace.FORMAT and same[0].crash_type == "SIGSEGV"
    # The handler (CRT_handleSIGSEGV) and the C library's signal trampoline are not the crash.
    assert same[0].frames[:2] == ("Affinity_set", "MainPanel_foreachProcess")
    # htop#737 printed the same banner for another bug (RichString_setAttrn): apart, where the banner
    # line had put the two together.
    other = _sign("hishamhm/htop#737")
    assert other.digest != same[0].digest and other.frames[0] == "RichString_setAttrn"


def test_glibcs_own_error_names_the_crash_and_its_frames_skip_the_c_library():
    # jqlang/jq#2333: "*** Error in `jq': corrupted double-linked list: 0x… ***" and its backtrace.
    parsed = parse(RECORDS["jqlang/jq#2333"]["trace"])
    assert parsed.format == glibc_backtrace.FORMAT
    assert parsed.crash_type == "corrupted double-linked list"
    signature = _sign("jqlang/jq#2333")
    assert signature.frames == ("jq_teardown",)


def test_frames_without_symbols_name_nothing():
    # clangd/clangd#982: "clangd(+0x823c7f)[0x56292e559c7f]" only: offsets of one build, addresses of
    # one run. Read as the format, it gives no frames, and the text is keyed as before (alone).
    parsed = parse(RECORDS["clangd/clangd#982"]["trace"])
    assert parsed.format == glibc_backtrace.FORMAT and all(not frame.function for frame in parsed.frames)
    assert _sign("clangd/clangd#982").frames == ()
    # Its lines are of one length (one binary's path, offsets of one width): a line ending in its
    # address is whole, however many share its length, and none is joined to the next.
    assert not any("unwrapped" in repair for repair in _sign("clangd/clangd#982").repairs)


def test_other_formats_printing_such_lines_keep_their_parser():
    # intel/llvm#2376/c1: LLVM's assertion with backtrace_symbols lines under it is LLVM's.
    assert parse(RECORDS["intel/llvm#2376/c1"]["trace"]).format == "llvm"
    # Two lines that look like frames are not a backtrace.
    assert not glibc_backtrace.recognize("a(f+0x1)[0x2]\nb(g+0x1)[0x3]\n")
    assert glibc_backtrace.recognize("a(f+0x1)[0x2]\nb(g+0x1)[0x3]\nc(+0x1) [0x4]\n")


def _rustc_overflow(crate_hash: str, driver_hash: str) -> str:
    """rustc's SIGSEGV handler as it prints a stack overflow: backtrace_symbols lines of v0 symbols."""

    def symbol(function: str) -> str:
        return f"_RNvMs0_NtCs{crate_hash}_21rustc_trait_selection5solveNtB5_8EvalCtxt{len(function)}{function}"

    driver = f"/home/u/.rustup/toolchains/nightly/lib/librustc_driver-{driver_hash}.so"
    return (
        "error: rustc interrupted by SIGSEGV, printing backtrace\n\n"
        f"{driver}(+0x2a1b3c6)[0x7f1a2b3c43c6]\n"
        "/lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f1a28a42520]\n"
        f"{driver}({symbol('evaluate_goal')}+0x1a)[0x7f1a2c11111a]\n"
        f"{driver}({symbol('try_evaluate_added_goals')}+0x2b)[0x7f1a2c22222b]\n"
        f"{driver}({symbol('evaluate_goal')}+0x1a)[0x7f1a2c11111a]\n\n"
        "note: rustc unexpectedly overflowed its stack! this is a bug\n"
    )


def test_rustcs_overflow_handler_keys_alike_in_every_build_of_the_compiler():
    # rustc's own libraries carry v0 symbols with their build's crate hashes: read by their paths.
    one = signatures.compute(kind="crash", trace_text=_rustc_overflow("8Kb3sJ5M0qR", "4b2c1f3e5a9d7c11"), target="t")
    other = signatures.compute(kind="crash", trace_text=_rustc_overflow("XYZ", "0123456789abcdef"), target="t")
    assert one.trace_format == glibc_backtrace.FORMAT and one.crash_type == "stack overflow"
    assert one.digest == other.digest
    assert set(one.frames) == {
        "rustc_trait_selection::solve::EvalCtxt::evaluate_goal",
        "rustc_trait_selection::solve::EvalCtxt::try_evaluate_added_goals",
    }


def test_rustcs_overflow_handler_without_symbols_names_no_bug():
    # rustc's handler prints "error: rustc interrupted by SIGSEGV, printing backtrace" for every stack
    # overflow and SIGSEGV of the compiler; a build without symbols prints offsets only. Two such
    # reports of one target are two crashes nothing tells apart, never one bucket keyed by the banner.
    def unsymbolized(frames: int) -> str:
        driver = "/home/u/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu/lib/librustc_driver-5b1c4a9a1d35ce2e.so"
        return (
            "error: rustc interrupted by SIGSEGV, printing backtrace\n\n"
            f"{driver}(+0x3350b96)[0x7f1e2c350b96]\n"
            "/lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f1e28e42520]\n"
            + f"{driver}(+0x5a8b7e1)[0x7f1e30a8b7e1]\n"
            * frames
            + "\nnote: rustc unexpectedly overflowed its stack! this is a bug\n"
            "note: we would appreciate a report at https://github.com/rust-lang/rust\n"
        )

    one = signatures.compute(kind="crash", trace_text=unsymbolized(3), target="rust-lang/rust")
    other = signatures.compute(kind="crash", trace_text=unsymbolized(5), target="rust-lang/rust")
    assert one.digest != other.digest
    assert "no identifying line: a bucket of its own" in one.repairs and one.fuzzy_message == ""
    # The same report again is the same bucket.
    again = signatures.compute(kind="crash", trace_text=unsymbolized(3), target="rust-lang/rust")
    assert again.digest == one.digest
