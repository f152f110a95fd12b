"""Signature v1: one signature per root cause, stable across machines and edits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crashes.v1 import frames
from crashes.v1 import signature as signatures  # these are v1's rules, frozen (v2: tests/crashes)
from crashes.v1 import signature as v1
from tests.data.variants import variant

FIXTURES = Path(__file__).resolve().parent.parent / "traces" / "python"


def _trace(frames: list[tuple[str, int, str]], error: str = "KeyError: 'ms'") -> str:
    lines = ["Traceback (most recent call last):"]
    for path, line, function in frames:
        lines += [f'  File "{path}", line {line}, in {function}', "    something()"]
    return "\n".join([*lines, error]) + "\n"


def _sig(text: str, kind: str = "crash", crash_type: str = ""):
    return signatures.compute(kind=kind, crash_type=crash_type, trace_text=text)


def test_same_bug_on_two_machines_and_two_releases_has_one_signature():
    here = _trace([("/home/ada/src/app/cli.py", 10, "main"), ("/home/ada/src/app/units.py", 42, "lookup")])
    there = _trace(
        [("/tmp/ci/build/app/cli.py", 12, "main"), ("/tmp/ci/build/app/units.py", 57, "lookup")], error="KeyError: 'y'"
    )
    assert _sig(here).digest == _sig(there).digest


def test_different_exception_type_or_site_gives_different_signatures():
    base = _trace([("/src/app/units.py", 42, "lookup")])
    other_type = _trace([("/src/app/units.py", 42, "lookup")], error="ValueError: nope")
    other_site = _trace([("/src/app/units.py", 42, "parse")])
    digests = {_sig(base).digest, _sig(other_type).digest, _sig(other_site).digest}
    assert len(digests) == 3


def test_kind_is_part_of_the_signature():
    text = _trace([("/src/app/units.py", 42, "lookup")])
    assert _sig(text, kind="crash").digest != _sig(text, kind="timeout").digest


def test_stdlib_and_harness_frames_are_skipped():
    text = _trace(
        [
            ("/work/main/engines/pyfunc/child.py", 80, "serve"),
            ("/src/app/config.py", 5, "load"),
            ("/usr/lib/python3.11/json/__init__.py", 346, "loads"),
            ("/usr/lib/python3.11/json/decoder.py", 337, "decode"),
        ],
        error="json.decoder.JSONDecodeError: Expecting value",
    )
    signature = _sig(text)
    assert signature.frames == ("app/config.py:load",)
    assert signature.crash_type == "json.decoder.JSONDecodeError"


def test_site_packages_paths_keep_the_package_path():
    assert (
        frames.normalize_path("/home/u/.venv/lib/python3.10/site-packages/requests/models.py") == "requests/models.py"
    )
    assert frames.normalize_path("C:\\Python311\\Lib\\site-packages\\numpy\\core\\x.py") == "numpy/core/x.py"
    assert frames.normalize_path("/usr/lib/python3.11/json/decoder.py") == "stdlib/json/decoder.py"
    assert frames.normalize_path("<frozen importlib._bootstrap>") == "<frozen importlib._bootstrap>"


def test_only_top_three_frames_count():
    deep = [("/src/app/a.py", i, f"f{i}") for i in range(10)]
    shallow = deep[-3:]
    assert _sig(_trace(deep)).digest == _sig(_trace(shallow)).digest
    assert _sig(_trace(deep)).frames == ("app/a.py:f9", "app/a.py:f8", "app/a.py:f7")


def test_recursion_at_different_depths_has_one_signature():
    def recursion(depth):
        frames = [("/src/app/tree.py", 3, "main")] + [("/src/app/tree.py", 9, "walk")] * depth
        return _trace(frames, error="RecursionError: maximum recursion depth exceeded")

    assert _sig(recursion(30)).digest == _sig(recursion(990)).digest
    assert _sig(recursion(30)).frames == ("app/tree.py:walk", "app/tree.py:main")


def test_mutual_recursion_is_folded():
    assert frames.fold_recursion(["a", "b", "a", "b", "a", "b", "c"]) == ["a", "b", "c"]
    assert frames.fold_recursion(["a", "b", "b", "b", "c"]) == ["a", "b", "c"]


def test_recursion_fixture_from_a_real_report():
    signature = _sig((FIXTURES / "recursion.txt").read_text())
    assert signature.crash_type == "RecursionError"
    # 793 frames of Django's LazySettings.__getattr__ fold into one.
    assert signature.frames == ("conf/__init__.py:__getattr__", "deprecation/test_storages.py:test_access_warning")


def test_timeouts_are_bucketed_by_exact_target_and_stage_only():
    def timeout(stage, stack):
        return signatures.compute(kind="timeout", target="app", stage=stage, trace_text=_trace(stack))

    a = timeout("parse", [("/src/app/p.py", 1, "loop_a")])
    b = timeout("parse", [("/src/app/p.py", 9, "loop_b")])  # another stack, same stage: same bucket
    c = timeout("compile", [("/src/app/p.py", 1, "loop_a")])
    assert a.digest == b.digest != c.digest
    assert a.method == v1.EXACT and a.crash_type == "Timeout"
    oom = signatures.compute(kind="oom", target="app", stage="parse")
    assert oom.digest != a.digest


def test_unparseable_crash_is_bucketed_by_its_normalised_message():
    one = signatures.compute(kind="crash", trace_text="fatal: bad object 0x7ffd1234 at /home/a/x.c:12\n")
    two = signatures.compute(kind="crash", trace_text="fatal: bad object 0x55aa0000 at /tmp/b/y.c:99\n")
    other = signatures.compute(kind="crash", trace_text="fatal: out of cheese\n")
    assert one.method == v1.MESSAGE
    assert one.digest == two.digest != other.digest


def test_miscompilations_are_bucketed_by_which_backends_disagree():
    def mis(outcomes):
        return signatures.compute(kind="miscompilation", reference="gcc-O0", backends=outcomes)

    first = mis([("gcc-O0", "ok"), ("gcc-O2", "wrong_output"), ("clang-O2", "ok")])
    second = mis([("clang-O2", "ok"), ("gcc-O2", "wrong_output"), ("gcc-O0", "ok")])
    other = mis([("gcc-O0", "ok"), ("gcc-O2", "ok"), ("clang-O2", "wrong_output")])
    crash = mis([("gcc-O0", "ok"), ("gcc-O2", "runtime_crash"), ("clang-O2", "ok")])
    assert first.digest == second.digest
    assert len({first.digest, other.digest, crash.digest}) == 3
    assert first.frames == ("gcc-O2=wrong_output",)
    assert first.title == "wrong code: gcc-O2=wrong_output"


def test_title_names_the_crash_and_the_function():
    signature = _sig(_trace([("/src/app/stats.py", 2, "mean")], error="ZeroDivisionError: division by zero"))
    assert signature.title == "ZeroDivisionError in mean"


# Normalisation rules, each on a real trace (tests/traces/<format>/).

TRACES = Path(__file__).resolve().parent.parent / "traces"


def _real(name: str):
    return signatures.compute(kind="crash", trace_text=(TRACES / f"{name}.txt").read_text())


def test_rust_symbol_hashes_and_impl_brackets_are_removed():
    assert _real("rust/fuzz_subtract_overflow_hashed_frames").frames[0] == "zip::read::ZipArchive::new"


def test_rustc_crate_hashes_and_panic_machinery_are_removed():
    frames = _real("rust/ice_bpos_assertion_format_string").frames
    assert frames[0] == "rustc_span::source_map::SourceMap::lookup_char_pos"
    assert not any("panicking" in f or "[" in f for f in frames)


def test_rust_panic_location_stands_in_for_an_unsymbolized_backtrace():
    assert _real("rust/unwrap_none_windows_unknown_frames").frames == ("main.rs",)


def test_cpp_arguments_templates_anonymous_namespaces_and_part_suffixes_are_removed():
    assert _real("clang/segv_asm_goto_jumpdiag").frames == (
        "DiagnoseIndirectOrAsmJumpStmt",
        "JumpScopeChecker::DiagnoseIndirectOrAsmJump",
        "clang::Sema::DiagnoseInvalidJumps",
    )


def test_llvm_crash_handlers_and_libc_frames_are_skipped():
    assert _real("clang/assert_bytecode_copycomposite").frames[0] == "clang::interp::copyComposite"
    # glibc's own frames (raise, abort, loadmsgcat.c) are skipped by source path.
    assert _real("clang/opt_assert_slp_apint_setbit").frames[1] == "llvm::slpvectorizer::BoUpSLP::getEntryCost"


def test_gcc_error_reporting_frames_are_skipped():
    frames = _real("gcc/epiphany_extract_insn").frames
    assert frames[0] == "extract_insn"
    assert not any(f.startswith("_fatal_insn") for f in frames)


def test_sanitizer_interceptors_and_libc_are_skipped():
    assert _real("sanitizer/asan_double_free_codedoc_scan_file").frames == ("scan_file", "main")


def test_jvm_standard_library_frames_are_skipped_and_recursion_folded():
    assert _real("jvm/stackoverflow_recursive_reporter").frames == (
        "com.cburch.logisim.fpga.gui.Reporter.addFatalErrorFmt",
    )


def test_jvm_root_cause_inherits_the_frames_elided_as_n_more():
    signature = _real("jvm/exception_in_initializer_caused_by_npe")
    assert signature.crash_type == "java.lang.NullPointerException"
    assert signature.frames[-1] == "org.mjsip.examples.MiniJukebox.main"


def test_dotnet_arguments_are_removed_and_system_frames_skipped():
    assert _real("dotnet/dafny_nullref_checkislvalue").frames == (
        "Microsoft.Dafny.ErrorReporter.Error",
        "Microsoft.Dafny.Resolver.CheckIsLvalue",
    )


def test_go_receivers_arguments_and_closure_suffixes_are_removed():
    assert _real("go/index_out_of_range_created_by_in_goroutine").frames == (
        "OneLong/Script/Ehole/module/finger.FinScan.fingerScan",
        "OneLong/Script/Ehole/module/finger.FinScan.StartScan",
    )


def test_go_and_rust_messages_have_their_numbers_masked():
    assert _real("go/index_out_of_range_main").crash_type == "runtime error: index out of range [N] with length N"


def test_per_target_ignore_patterns_skip_more_frames():
    text = (TRACES / "sanitizer/asan_heap_buffer_overflow_john_radius.txt").read_text()
    default = signatures.compute(kind="crash", trace_text=text)
    extended = signatures.compute(kind="crash", trace_text=text, ignore=(re.compile("^get_salt$"),))
    assert default.frames[0] == "get_salt"
    assert extended.frames[0] == default.frames[1]
    assert signatures.compute(kind="crash", trace_text=text, top_n=1).frames == ("get_salt",)


@pytest.mark.parametrize("path", sorted(TRACES.glob("*/*.txt")), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_same_bug_hit_elsewhere_keeps_its_signature(path):
    # Other paths, line numbers, addresses, inputs and recursion depth.
    text = path.read_text()
    original = signatures.compute(kind="crash", trace_text=text)
    for seed in range(3):
        assert signatures.compute(kind="crash", trace_text=variant(text, seed)).digest == original.digest, seed
