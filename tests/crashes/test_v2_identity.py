"""Signature v2 on real crash reports from public trackers (tests/data/dedup: each record names its source).

Pairs a project's maintainers called one bug must share a signature; the
repairs of pasted text are checked on real traces as they would be pasted
(synthetic variants live here, never in the scored corpus).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from crashes import signatures, similarity
from crashes.frames import normalize_function, normalize_path
from crashes.signatures import unparsed
from crashes.traces import extract, parse
from crashes.traces.text import mask_message
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import sign as _sign_text
from tests.crashes.signing import sign_record as _sign
from tests.data.record_digests import dedup_records

TRACES = Path(__file__).resolve().parents[1] / "traces"


RECORDS = dedup_records()


# Duplicates as their maintainers linked them (evidence in each record).
SAME_BUG = [
    ("alacritty/alacritty#111", "alacritty/alacritty#213"),  # Rust panic: same message at the same site
    ("fish-shell/fish-shell#11444", "fish-shell/fish-shell#11766"),  # Rust index out of bounds
    ("rust-lang/rustfmt#3679", "rust-lang/rustfmt#3702"),  # rustfmt ICE, entered unreachable code
    ("spyder-ide/spyder#22811", "spyder-ide/spyder#22905"),  # Python traceback, different checkouts
    ("pylint-dev/pylint#7011/c1", "pylint-dev/pylint#7268"),  # Python, two reporters
    ("php/php-src#16323", "php/php-src#16453"),  # AddressSanitizer use-after-free
    ("JabRef/jabref#5015", "JabRef/jabref#5016"),  # JVM root cause
    ("crystal-lang/crystal#4166", "crystal-lang/crystal#4139"),  # unparsed: keyed on its specific line
    ("golang/go#11588", "golang/go#11666"),  # Go: one panic, once reported "[recovered]"
    # glibc's assert names a C function returning a pointer as "const char *f(…)"; macOS's as "function f"
    ("jqlang/jq#1410", "jqlang/jq#1410/c1"),
    # StreamJsonRpc's RemoteInvocationException carries the server's exception: that one is the crash
    ("dotnet/roslyn#66960", "dotnet/roslyn#66960/c1"),
    # .NET prints its stack in the machine's language: Russian ("в … :строка 227") against English
    ("canton7/SyncTrayzor#303", "canton7/SyncTrayzor#318"),
    # One glibc assertion: macOS's "Assertion failed: (…), function F" against a gdb backtrace of it
    ("neovim/neovim#12387", "neovim/neovim#12430"),
    # A Python traceback pasted with its indentation stripped (source lines at column 0) against the original
    ("GuyKh/ims-custom-component#15", "GuyKh/ims-custom-component#15/c1"),
    # One LLVM assertion through Crystal: glibc's line behind a log's "remote: " prefix, glibc's plain,
    # and macOS's naming the bare function (getOrCreateRegularScope, not llvm::LexicalScopes::…)
    ("crystal-lang/crystal#4719", "crystal-lang/crystal#4744"),
    ("crystal-lang/crystal#4744", "crystal-lang/crystal#5497"),
    # gitui's panic hook prints PanicHookInfo with {:?}: its Location is the site (#2431's line was
    # half overwritten by the terminal)
    ("gitui-org/gitui#2358", "gitui-org/gitui#2431"),
    ("gitui-org/gitui#2358", "gitui-org/gitui#2512"),
    # A Go ICE whose message the paste cut ("… (0x?, 0x?"): its type, which holds the message, is cut too
    ("golang/go#19632/c1", "golang/go#19632"),
    # rustc's delayed-bug ICE printed only its "error: internal compiler error:" lines (no "rustc" anywhere),
    # against one with the "delayed at" note: both keyed by the delayed bug's message, not the banner,
    # and the crate's build hash (bevy_inspector_egui[4c35]) masked
    ("jakobhellermann/bevy-inspector-egui#153", "jakobhellermann/bevy-inspector-egui#163/c1"),
    # rustc's ICE as cargo's JSON diagnostics (RLS ran it): the "rendered" text names the bug's site
    ("rust-lang/rls#1449/c1", "rust-lang/rls#1450"),
    # rustfmt's panic quotes the file it was formatting: absolute in one report, relative in the other
    ("rust-lang/rustfmt#1184", "rust-lang/rustfmt#1184/c1"),
    # Early Rust printed a symbol's hash as twenty digits (format_missing_inner::h12013305559594873944)
    ("rust-lang/rustfmt#413", "rust-lang/rustfmt#419"),
    # An old-form Rust panic line whose location the paste cut ("panicked at 'Handling wgpu errors as
    # fatal by default'" and the line ends) is that panic's message: against one with its backtrace
    ("bevyengine/bevy#1882", "bevyengine/bevy#1664"),
    ("bevyengine/bevy#2866", "bevyengine/bevy#1664"),
    # Go's "panic: inconsistent import:" pasted without its goroutine stack (after a "go vet" prompt)
    # against the same panic with its stack: the line is the panic's message
    ("golang/go#16112", "golang/go#17072"),
]


@pytest.mark.parametrize(("first", "second"), SAME_BUG)
def test_duplicates_land_in_one_bucket(first, second):

    one, other = _sign(first), _sign(second)
    # The exact signature, or the fuzzy stage (rustfmt#3702 was posted without its backtrace).
    joined = similarity.similarity(similarity.shape_of(other), similarity.shape_of(one)).score
    assert one.digest == other.digest or joined >= similarity.THRESHOLD


def test_different_bugs_with_one_stock_message_stay_apart():
    # Zig's compiler says "reached unreachable code" for many bugs: a stock line is no identity.
    zig = [rid for rid in RECORDS if rid.startswith("ziglang/zig#")]
    unreachable = [rid for rid in zig if "panic: reached unreachable code" in RECORDS[rid]["trace"]]
    # Except two that print one stack, frame for frame, from two Zig releases (std's mprotect through
    # Thread.spawn from the build runner): tracked as two issues, keyed as one by any frame rule.
    same_stack = {"ziglang/zig#20038/c1", "ziglang/zig#22485"}
    assert len({_sign(rid).digest for rid in same_stack}) == 1
    unreachable = [rid for rid in unreachable if rid not in same_stack]
    bugs = {RECORDS[rid]["bug"] for rid in unreachable}
    assert len(bugs) >= 10
    digests = {RECORDS[rid]["bug"]: _sign(rid).digest for rid in unreachable}
    assert len(set(digests.values())) == len(bugs)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("astral-sh/ruff#3425", "astral-sh/ruff#3385"),  # locator.rs:71 and :83, fixed separately
        ("uutils/coreutils#1501", "uutils/coreutils#6354"),  # linebreak.rs:298 and :242, years apart
    ],
)
def test_one_panic_message_at_two_lines_of_a_file_is_two_bugs(first, second):
    # Without a backtrace a Rust program's panic names only its file and line: the line is the site.

    one, other = _sign(first), _sign(second)
    assert one.frames[0].rsplit(":", 1)[0] == other.frames[0].rsplit(":", 1)[0]
    assert one.digest != other.digest
    assert similarity.similarity(similarity.shape_of(other), similarity.shape_of(one)).score < similarity.THRESHOLD


def test_rustcs_ice_line_is_rustcs_without_its_notes():
    # bevy-inspector-egui#153: only rustc's "error: internal compiler error:" lines, no "rustc" or ".rs:";
    # gcc and go put a location before "internal compiler error:", rustc never does.
    parsed = parse(RECORDS["jakobhellermann/bevy-inspector-egui#153"]["trace"])
    assert parsed.format == "rustc-ice"
    assert parsed.crash_type.startswith("ICE: broken MIR in Item(DefId(N:N ~ ?))")
    gcc = "t.c:3:1: internal compiler error: in fold_convert_loc, at fold-const.cc:2567\n"
    assert parse(gcc).format == "gcc-ice"


def test_an_llvm_verifier_failure_is_told_apart_by_the_instruction_that_failed_it():
    # Crystal's front end dropped a debug location on different calls: one verifier message, three bugs.
    malloc, atomic, exception = (
        _sign(rid).message
        for rid in ("crystal-lang/crystal#4166", "crystal-lang/crystal#4202", "crystal-lang/crystal#3890")
    )
    assert malloc.endswith("!dbg location | call @__crystal_malloc")
    assert atomic.endswith("| call @__crystal_malloc_atomic") and exception.endswith("| call @__crystal_get_exception")
    assert _sign("crystal-lang/crystal#4139").message == malloc  # the duplicate its maintainer linked


def test_mypy_reports_cut_before_the_exception_do_not_share_the_entry_frames():
    # Both show only mypy's outer frames (main, build): every mypy crash has them.
    cut = [rid for rid in ("python/mypy#16182", "python/mypy#13671") if rid in RECORDS]
    assert len(cut) == 2
    assert _sign(cut[0]).digest != _sign(cut[1]).digest


def test_rustc_ice_is_keyed_by_site_message_and_query():
    signature = signatures.compute(
        kind="crash", trace_text=(TRACES / "rust" / "ice_defid_expect_local.txt").read_text()
    )
    assert signature.trace_format == "rustc-ice"
    assert signature.frames[0].startswith("site ") and signature.frames[0].endswith(".rs")
    assert any(frame.startswith("query ") for frame in signature.frames)
    assert "DefId(" not in signature.crash_type  # program-specific names masked


def test_one_rustc_source_file_is_one_site_however_its_path_was_printed():
    # rust-lang/miri#1795's ICE line names its bug!() under /rustc/<hash>/compiler/ (as delayed bugs'
    # notes and older panics do); since Rust 1.73 a panic's location is relative (Canop/lazy-regex#5,
    # rustls/rustls#1971). One file, one site: the same ICE in both forms is one bug.
    miri = RECORDS["rust-lang/miri#1795"]["trace"]
    relative = re.sub(r"/rustc/[0-9a-f]{40}/compiler/", "compiler/", miri)
    assert relative != miri
    absolute, printed_relative = (signatures.compute(kind="crash", trace_text=t) for t in (miri, relative))
    assert absolute.frames[0] == printed_relative.frames[0] == "site rustc_mir/src/interpret/place.rs"
    assert absolute.digest == printed_relative.digest
    # Before 2020 the sources were src/librustc_x/… (serde-rs/serde#623 printed them relative).
    old = RECORDS["serde-rs/serde#623"]["trace"].replace(
        "src/librustc_metadata/", "/rustc/0123abcd/src/librustc_metadata/"
    )
    assert signatures.compute(kind="crash", trace_text=old).frames[0] == "site librustc_metadata/decoder.rs"


def test_an_items_path_in_rustcs_message_is_the_reporters_code():
    # bevy-inspector-egui#153: "broken MIR in Item(DefId(0:N ~ bevy_inspector_egui::…::{closure#0}))":
    # another program hitting the same bug names its own item there.
    crash_type = _sign("jakobhellermann/bevy-inspector-egui#153").crash_type
    assert crash_type.startswith("ICE: broken MIR in Item(DefId(N:N ~ ?))")
    assert "bevy_inspector" not in crash_type


def test_gcc_ice_is_keyed_by_function_and_file_without_line():
    parsed = parse((TRACES / "gcc" / "vrp_compute_live_loop_exits.txt").read_text())
    assert parsed.format == "gcc-ice"
    assert parsed.site == "compute_live_loop_exits"
    # GCC 12 renamed tree-ssa-loop-manip.c to .cc: one file, whichever release printed it.
    assert "at tree-ssa-loop-manip.c:" in (TRACES / "gcc" / "vrp_compute_live_loop_exits.txt").read_text()
    assert parsed.crash_type.endswith("at tree-ssa-loop-manip.cc")


def test_llvm_assertion_names_its_function():
    parsed = parse((TRACES / "clang" / "assert_bytecode_copycomposite.txt").read_text())
    assert parsed.crash_type == "Assertion `SrcDesc->isPrimitiveArray()' failed"
    # The bare function: macOS's assert prints no more (see the crystal#5497 pair above).
    assert parsed.site == "copyComposite"


def test_go_compiler_ice_skips_the_fatalf_helpers():
    record = next(
        r for r in RECORDS.values() if "base.FatalfAt" in r["trace"] and "internal compiler error" in r["trace"]
    )
    parsed = parse(record["trace"])
    assert parsed.format == "go-ice"
    assert parsed.frames and "Fatal" not in parsed.frames[0].function and "debug.Stack" not in parsed.frames[0].function


@pytest.mark.parametrize(
    ("record_id", "site"),
    [
        # The handler's value run into the goroutine header, as Terraform prints it.
        ("hashicorp/terraform#30150", "instances.(*expanderModule).onlyResourceInstances"),
        # Pasted with the source lines' tabs lost.
        ("hashicorp/terraform#30646", "cloud.(*Cloud).Operation"),
    ],
)
def test_a_recovered_go_panic_is_identified_by_its_site_not_the_handler(record_id, site):
    parsed = parse(RECORDS[record_id]["trace"])
    assert parsed is not None and parsed.format == "go"
    assert parsed.message == "runtime error: invalid memory address or nil pointer dereference"
    assert site in parsed.frames[0].function
    assert not [f for f in parsed.frames if "PanicHandler" in f.function or f.function.startswith("panic(")]
    assert "Terraform crashed" not in _sign(record_id).title


def test_ambiguous_frames_are_namespaced_by_target():
    text = (TRACES / "go" / "index_out_of_range_main.txt").read_text()
    one = signatures.compute(kind="crash", trace_text=text, target="a")
    other = signatures.compute(kind="crash", trace_text=text, target="b")
    assert "a:main.main" in one.frames
    assert one.digest != other.digest


PASTED = (TRACES / "python" / "chained_direct_cause.txt").read_text()


@pytest.mark.parametrize(
    ("pasted", "repair"),
    [
        ("```\n" + PASTED + "\n```", "Markdown code fences removed"),
        ("\n".join("> " + line for line in PASTED.splitlines()), "Markdown quoting removed"),
        ("\n".join("    " + line for line in PASTED.splitlines()), "indentation removed"),
        (PASTED.replace("\n", "\r\n"), "CRLF line ends"),
        ("- " + "\n  ".join(PASTED.splitlines()), "list marker removed"),
        (PASTED.replace("Traceback", "\x1b[31mTraceback\x1b[0m"), "terminal colours removed"),
    ],
)
def test_pasted_forms_are_repaired_and_sign_the_same(pasted, repair):
    plain = signatures.compute(kind="crash", trace_text=PASTED)
    repaired = signatures.compute(kind="crash", trace_text=pasted)
    assert repair in " ".join(repaired.repairs)
    assert repaired.digest == plain.digest


def test_a_long_quoted_paste_is_unquoted_by_its_first_lines():
    # Whether most lines are quoted is counted in a text's first 32 KiB (extract._mostly): a 150 KiB log
    # quoted throughout, the traceback last, is still unquoted whole.
    log = "".join(f"INFO worker {i} handled request {i * 7}\n" for i in range(4000))
    quoted = "\n".join("> " + line for line in (log + PASTED).splitlines())
    assert len(quoted) > 128 * 1024
    repaired = signatures.compute(kind="crash", trace_text=quoted)
    assert "Markdown quoting removed" in repaired.repairs
    assert repaired.digest == signatures.compute(kind="crash", trace_text=log + PASTED).digest


def test_hard_wrapped_frames_are_joined():
    text = (TRACES / "sanitizer" / "asan_heap_use_after_free_mxml_get_first_child.txt").read_text()
    width = 72
    wrapped = "\n".join(line[i : i + width] for line in text.splitlines() for i in range(0, max(len(line), 1), width))
    cleaned = extract.clean(wrapped)
    assert any("unwrapped at column 72" in repair for repair in cleaned.repairs)
    assert (
        signatures.compute(kind="crash", trace_text=wrapped).digest
        == signatures.compute(kind="crash", trace_text=text).digest
    )


@pytest.mark.parametrize(
    ("record_id", "joined"),
    [
        # dafny#4823: two lines cut at column 152, each going on in the next.
        ("dafny-lang/dafny#4823", 2),
        # go#20162, moby#51681: Go file lines of one width ("type.go:1215 +0x2b fp=… sp=…") end
        # where a cut would fall by chance only; cortile#25, mypy#18893: two lines of one width,
        # one of them followed by a line of its own; alacritty#3590: one line twice.
        ("golang/go#20162", 0),
        ("moby/moby#51681", 0),
        ("leukipp/cortile#25", 0),
        ("python/mypy#18893", 0),
        ("alacritty/alacritty#3590", 0),
    ],
)
def test_two_lines_of_one_width_are_a_cut_only_when_both_go_on(record_id, joined):
    repairs = [repair for repair in extract.clean(RECORDS[record_id]["trace"]).repairs if "unwrapped" in repair]
    assert repairs == ([f"{joined} lines unwrapped at column {repairs[0].rsplit(' ', 1)[1]}"] if joined else [])


@pytest.mark.parametrize(
    ("record_id", "width"),
    [
        # Two frame lines go past 80 columns.
        ("Danielhiversen/home_assistant_tibber_data#21", 80),
        # Cut on a blank (" __del__" starts a line), and a sign-off line cut at a Rust location.
        ("python/mypy#21277", 80),
        # A frame line of exactly 80 columns, its source pasted without indentation below it.
        ("GuyKh/ims-custom-component#15/c1", 80),
        # A Rust backtrace's "at /rustc/…/opti" + "on.rs:345"; a panic hook's print cut twice, once on a blank.
        ("rust-lang/cargo#7463", 80),
        ("gitui-org/gitui#2130", 80),
        ("gitui-org/gitui#2512", 80),
        # gdb's frame #0 cut inside its arguments ("current=current@en" / "try=1, …").
        ("tmux/tmux#2982", 120),
        # A Go ICE line cut inside "internal compiler error" itself (go#55269) or inside its message.
        ("golang/go#55269", 80),
        ("golang/go#17618", 80),
        ("golang/go#19632/c1", 80),
    ],
)
def test_a_report_cut_at_a_terminals_width_signs_as_the_whole_one(record_id, width):
    wrapped = hard_wrap(RECORDS[record_id]["trace"], width)
    assert _sign(record_id).digest == signatures.compute(kind="crash", trace_text=wrapped, target="t").digest


def test_head_cut_python_traceback_still_parses():
    lines = PASTED.splitlines()
    headless = "\n".join(line for line in lines if not line.startswith("Traceback"))
    parsed = parse(headless)
    assert parsed is not None and parsed.format == "python" and parsed.crash_type == "RuntimeError"


def test_wrapped_dotnet_frame_is_joined():
    text = (TRACES / "dotnet" / "dafny_nullref_checkislvalue.txt").read_text()
    first = next(line for line in text.splitlines() if line.strip().startswith("at ") and ", " in line)
    cut = first.index(", ") + 1
    wrapped = text.replace(first, first[:cut] + "\n" + " " * 6 + first[cut:].lstrip())
    assert parse(wrapped).frames == parse(text).frames


def test_unparsed_report_with_only_stock_lines_is_alone():
    stock = "error: INTERNAL ERROR -- Please try using mypy master on GitHub:\nPlease report a bug at https://x\n"
    one = signatures.compute(kind="crash", trace_text=stock + "while checking module alpha\n")
    other = signatures.compute(kind="crash", trace_text=stock + "while checking package beta\n")
    assert one.digest != other.digest
    assert "a bucket of its own" in " ".join(one.repairs)


def test_dmypy_crash_is_keyed_by_its_failing_site_not_the_daemon_loop():
    # python/mypy#15795 as posted: the daemon's serve/run_command frames are in every daemon crash.
    signature = _sign("python/mypy#15795")
    assert signature.crash_type == "AssertionError"
    assert signature.frames == ("dmypy_server.py:cmd_recheck",)


def test_mypy_internal_error_is_keyed_by_the_failing_site():
    # python/mypy#11209: "error: INTERNAL ERROR -- Please try…" banner, then a traceback of compiled mypy.
    signature = _sign("python/mypy#11209")
    assert signature.crash_type == "AssertionError"
    assert signature.frames[0] == "semanal.py:defer"
    assert not any("main" in frame for frame in signature.frames)


def test_dafny_exception_is_the_innermost_with_its_own_frames():
    # dafny-lang/dafny#2828: AggregateException ---> NullReferenceException, frames in Microsoft.Dafny.
    parsed = parse(RECORDS["dafny-lang/dafny#2828"]["trace"])
    assert parsed.format == "dotnet" and parsed.crash_type == "System.NullReferenceException"
    assert parsed.frames[0].function.startswith("Microsoft.Dafny.Resolver.SeqTypeArgToBeResolved.ToString")
    assert [cause.crash_type for cause in parsed.causes] == ["System.AggregateException"]


def test_a_frameless_report_finds_the_bucket_of_its_type_and_message():

    with_stack = signatures.compute(
        kind="crash", trace_text=(TRACES / "dotnet" / "dafny_nullref_checkislvalue.txt").read_text()
    )
    typed = "System.InvalidOperationException: Cyclic reference found while evaluating the Style property"
    stack = similarity.Shape(
        "crash", "dotnet", "System.InvalidOperationException", with_stack.similarity_frames, "", ""
    )
    bucket = similarity.Shape(
        "crash", "dotnet", "System.InvalidOperationException", stack.frames, "", typed.split(": ", 1)[1]
    )
    alone = signatures.compute(kind="crash", trace_text="Me too. Version: 0.99.1\n" + typed + "\n")
    assert alone.method == "message" and alone.crash_type == "System.InvalidOperationException"
    match = similarity.similarity(similarity.shape_of(alone), bucket)
    assert match.score >= similarity.THRESHOLD
    # A generic message names nothing: no join by it.
    generic = signatures.compute(
        kind="crash",
        trace_text="System.NullReferenceException: Object reference not set to an instance of an object.\n",
    )
    assert generic.fuzzy_message == ""


def test_a_message_pasted_cut_short_finds_the_bucket_of_the_whole_one():

    # PowerToys#36451: one commenter pasted "…: Cyclic reference found", the others the whole sentence.
    whole, cut = (
        similarity.shape_of(_sign(rid)) for rid in ("microsoft/PowerToys#45447", "microsoft/PowerToys#36451/c1")
    )
    assert set(cut.lookup_keys()) & set(whole.lookup_keys())  # found by an index lookup, not a scan
    match = similarity.similarity(cut, whole)
    assert match.score >= similarity.THRESHOLD and match.matched == ("message Cyclic reference found",)
    # Too few words to say anything alone, or a prefix that stops inside a word: no join.
    for short in ("Cyclic reference", "Cyclic reference fou"):
        alone = similarity.Shape("crash", "", cut.crash_type, (), "", short)
        assert similarity.similarity(alone, whole).score < similarity.THRESHOLD


def test_a_sentences_full_stop_is_no_part_of_its_identity():
    # psf/black#3608 and #4396: one reporter kept the full stop, the other did not.
    assert _sign("psf/black#3608").digest == _sign("psf/black#4396").digest


@pytest.mark.parametrize(
    ("pasted", "expected", "repair"),
    [
        # A closing fence as the very last line leaves no trailing newline behind.
        ("```\nTraceback\n  x\n```", "Traceback\n  x", "Markdown code fences removed"),
        ("> ```\n> a\n> b\n> ```\n", "a\nb\n", "Markdown quoting removed"),
        # Quoted blank lines become blank lines, nested quoting is peeled level by level.
        ("> > a\n> >\n> > b", "a\n\nb", "Markdown quoting removed"),
        ("\t a\n\t b\n\n\t  c", "a\nb\n\n c", "indentation removed"),
        ("2024-01-02 03:04:05,123 ERROR a\n2024-01-02 03:04:05,124 ERROR b\nc", "a\nb\nc", "log prefixes removed"),
        ("E/AndroidRuntime(  123): a\nE/AndroidRuntime(  123): b", "a\nb", "log prefixes removed"),
        ("1. a\n   b\n\n   c", "a\nb\n\nc", "list marker removed"),  # then dedented
        # gohugoio/hugo#1112: a reporter's bold inside the panic line.
        (
            "or **nil pointer** dereference\n[signal **addr=0x0**]",
            "or nil pointer dereference\n[signal addr=0x0]",
            "Markdown emphasis removed",
        ),
    ],
)
def test_each_repair_makes_the_canonical_text(pasted, expected, repair):
    cleaned = extract.clean(pasted)
    assert repair in cleaned.repairs
    assert cleaned.text == expected


CI_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/tmp/ci/engines/pyfunc/coverage.py", line 67, in run\n'
    "    return function(*args, **kwargs)\n"
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    '  File "/tmp/ci/engines/demo/textkit.py", line 32, in initials\n'
    '    return "".join(part[0].upper() for part in name.split(" "))\n'
    "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    '  File "/tmp/ci/engines/demo/textkit.py", line 32, in <genexpr>\n'
    '    return "".join(part[0].upper() for part in name.split(" "))\n'
    "                   ~~~~^^^\n"
    "IndexError: string index out of range"
)


@pytest.mark.parametrize(
    "pasted",
    [
        "\ta\n    b",  # tabs and spaces: no prefix every line shares
        "- a\n b\n  c",  # a line less indented than the marker: a list, not a trace in a list item
        "> a\nb\nc\nd",  # one quoted line among plain ones
        "a ```x\nb",  # not at a line start: no fence
        "f(**kwargs, **other)\nx ** 2",  # Python's own double stars are not emphasis
        # Four lines of 63 characters by chance (the engine's traceback, checked out in /tmp/ci): the
        # lines after each are a frame's indented source and markers, not a cut line going on.
        CI_TRACEBACK,
    ],
)
def test_repairs_leave_text_alone_when_their_evidence_is_missing(pasted):
    cleaned = extract.clean(pasted)
    assert cleaned.text == pasted
    assert cleaned.repairs == ()


def test_systemd_coredump_stack_is_read_as_a_native_backtrace():
    # neovim/neovim#5813: `coredumpctl info` output, frames as "#0  0xADDR function (module)".
    signature = _sign("neovim/neovim#5813")
    assert signature.method == "stack" and signature.crash_type == "SIGSEGV"
    assert signature.frames[:2] == ("set_ref_in_item", "set_ref_in_list")
    unknown = signatures.compute(
        kind="crash",
        trace_text="Signal: 6 (ABRT)\n#0  0x00007f raise (libc.so.6 + 0x3e7bb)\n#1  0x0000 n/a (x + 0x1)\n",
    )
    assert unknown.crash_type == "SIGABRT"


def test_go_frames_with_trimmed_arguments_keep_their_stack():
    # Djuk1c/zefoy-froyz-bot#6 was posted with "main.ProcessUrl" and no "(...)";
    # #4, the same panic, with them: one bucket, keyed by the frames.
    trimmed, full = _sign("Djuk1c/zefoy-froyz-bot#6"), _sign("Djuk1c/zefoy-froyz-bot#4")
    assert trimmed.method == "stack" and trimmed.frames[0] == "main.ProcessUrl"
    assert trimmed.digest == full.digest


def test_a_frameless_llvm_cast_assertion_is_told_apart_by_the_type_it_was_asked_for():
    # cdisselkoen/llvm-ir#16, gcc's "[with X = …]": the assertion text is every bad cast's; the type is not.
    assert _sign("cdisselkoen/llvm-ir#16").frames == ("site llvm::cast<llvm::GetElementPtrInst>",)
    # clang's __PRETTY_FUNCTION__ with a decltype(auto) return type, and isa_impl_cl's space in its template.
    line = (
        "ld: /src/llvm/include/llvm/Support/Casting.h:572: {}: "
        'Assertion `isa<To>(Val) && "cast<Ty>() argument of incompatible type!"\' failed.\n'
    )
    sites = [
        parse(line.format(function)).site
        for function in (
            "decltype(auto) llvm::cast(From *) [To = llvm::MDNode, From = llvm::Metadata]",
            "decltype(auto) llvm::cast(From *) [To = llvm::Function, From = llvm::Value]",
            "static bool llvm::isa_impl_cl<To, From*>::doit(const From*) [with To = llvm::Function; From = V]",
        )
    ]
    assert sites == [
        "llvm::cast<llvm::MDNode>",
        "llvm::cast<llvm::Function>",
        "llvm::isa_impl_cl::doit<llvm::Function>",
    ]
    # With frames below it, the frames decide, as for any helper's assertion.
    framed = line.format("decltype(auto) llvm::cast(From *) [To = llvm::MDNode, From = llvm::Metadata]")
    framed += "Stack dump:\n #0 0x0000 llvm::sys::PrintStackTrace(llvm::raw_ostream&)\n #4 0x0000 llvm::Foo::run()\n"
    assert parse(framed).site == ""


def test_gdb_frames_below_an_assertion_are_named_by_their_function_not_by_gdbs_location_word():
    # ziglang/zig#12022: gdb's `bt` under LLVM's assertion, "#0 … in raise () from /nix/store/…/libc.so.6",
    # "#4 … in llvm::DwarfExpression::addFragmentOffset (this=0x7ffffffed2a0, Expr=0x2320f530) at
    # /home/andy/…/DwarfExpression.cpp:660": every such frame was keyed "from" or "at".
    signature = _sign("ziglang/zig#12022")
    assert signature.frames == ("site addFragmentOffset", "llvm::DwarfCompileUnit::constructVariableDIEImpl")
    assert not {"at", "from"} & set(signature.similarity_frames)
    # A function of either name is still read as one.
    assert normalize_function("int from<int>(int)", "native") == "from"
    assert normalize_function("std::vector<int>::at(unsigned long)", "native") == "std::vector::at"


def test_frames_no_parser_knows_are_read_as_the_parsers_read_theirs():
    # crystal-lang/crystal#4244: Crystal's own stack printer, "[0x7f2462190ca4] _ZN4llvm12ConstantExpr16getGet…
    # +116" then "LLVMBuildInBoundsGEP +574": the symbol is read by the name inside it, LLVM's C API skipped.
    assert _sign("crystal-lang/crystal#4244").frames == ("llvm::ConstantExpr::getGetElementPtr", "LLVM::Builder")
    # php/php-src#8129: gdb stopped in the C library's fclose (fp=0x0) and nothing else was pasted; no key.
    alone = _sign("php/php-src#8129")
    assert alone.frames == () and "no identifying line: a bucket of its own" in alone.repairs


def test_one_rust_panic_in_its_old_and_new_forms_from_a_checkout_and_from_cargos_registry_is_one_bug():
    # ogham/exa#556's pre-1970 file time, as reported over three years (the fix, exa#670, names them):
    # Rust before 1.42 places unwrap() in libcore (#556, no site), later in exa's own file (#699); a build
    # from a checkout prints src/fs/file.rs (#798), one installed by cargo exa-0.9.0/src/fs/file.rs (#864);
    # the value is 7140s in one report and 6795364578.871345152s in another.
    new_form, from_registry, from_checkout = _sign("ogham/exa#699"), _sign("ogham/exa#864"), _sign("ogham/exa#798")
    assert new_form.frames == ("site src/fs/file.rs:331",)
    assert from_registry.frames[0] == "site exa/src/fs/file.rs:331" and from_checkout.frames[0] == new_form.frames[0]
    assert new_form.crash_type == from_registry.crash_type == "called '?' on an '?' value: SystemTimeError(Ns)"
    for report in (from_registry, from_checkout):
        assert similarity.similarity(similarity.shape_of(report), similarity.shape_of(new_form)).score >= 0.72
    # And the index finds one by the other's site.
    assert "site src/fs/file.rs:331" in similarity.shape_of(from_registry).lookup_keys()
    # The same file of two crates is two files.
    one = similarity.Shape("crash", "rust", "boom", (), site="a/src/lib.rs:3")
    assert similarity.similarity(one, replace(one, site="b/src/lib.rs:3")).score == 0
    # ogham/exa#526's broken symlink: the old form, its location the standard library's, is keyed on its
    # message (not on the thread's name or libcore's line) and finds the bucket of the new form's (#848).
    old_form, sited = _sign("ogham/exa#526"), _sign("ogham/exa#848")
    assert old_form.method == "message" and not old_form.message.startswith("thread")
    assert similarity.similarity(similarity.shape_of(old_form), similarity.shape_of(sited)).score >= 0.72
    assert _sign("ogham/exa#623").digest == old_form.digest  # libcore/result.rs:997 there, :999 in #526


def test_a_registry_crates_lib_rs_keeps_the_crates_name():
    # A dependency's src/lib.rs is its crate's (astral-sh/uv#1370: async_http_range_reader-0.5.0/src/lib.rs);
    # only the standard library's folders before 2020 (src/libcore/…) were meant by a cut at "src/lib".
    # (Since v24 its first panic, printed after a progress line a terminal padded with 150 blanks, is read: the
    # blanks are cut short before the line is.)
    assert _sign("astral-sh/uv#1370").frames[0] == "site async_http_range_reader/src/lib.rs:510"
    registry = "/home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f"
    one = _sign_text(f"thread 'main' panicked at {registry}/foo-1.2.3/src/lib.rs:100:9:\nboom\n")
    other = _sign_text(f"thread 'main' panicked at {registry}/bar-0.1.0/src/lib.rs:100:9:\nboom\n")
    assert one.frames[0] == "site foo/src/lib.rs:100" and one.digest != other.digest


def test_a_tool_built_in_the_compilers_tree_names_its_file_alike_in_every_build():
    # Clippy from rustup prints its sources remapped ("/rustc/<commit>/src/tools/clippy/clippy_lints/…"),
    # a build in the tree "src/tools/clippy/clippy_lints/…", Clippy's own repository "clippy_lints/…".
    def ice(path: str) -> str:
        return f"thread 'rustc' panicked at {path}:212:9:\nnot yet implemented\nnote: Clippy version: clippy 0.1.80\n"

    remapped = _sign_text(ice("/rustc/1ba35e9bb6d5a3b7/src/tools/clippy/clippy_lints/src/methods/mod.rs"))
    in_tree = _sign_text(ice("src/tools/clippy/clippy_lints/src/methods/mod.rs"))
    own = _sign_text(ice("clippy_lints/src/methods/mod.rs"))
    assert remapped.frames[0] == "site clippy_lints/src/methods/mod.rs:212"
    assert remapped.digest == in_tree.digest == own.digest
    # A tool's root crate (Miri's, Clippy's driver) too: "src/shims/…" in its own repository.
    miri = _sign_text(ice("/rustc/1ba35e9bb6d5a3b7/src/tools/miri/src/shims/foreign_items.rs"))
    assert miri.frames[0] == "site src/shims/foreign_items.rs:212"
    assert miri.digest == _sign_text(ice("src/shims/foreign_items.rs")).digest


def test_an_async_runtimes_task_machinery_is_no_frame():
    # A panic in a tokio task: below the program's frames, tokio's harness and scheduler poll whatever
    # future they were handed (redlib-org/redlib#496's backtrace, cut to its tail, shows only them).
    registry = "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/tokio-1.44.2/src/runtime"
    machinery = "".join(
        f"  {i}: {name}\n             at {registry}/{file}\n"
        for i, (name, file) in enumerate(
            [
                ("<core::pin::Pin<P> as core::future::future::Future>::poll", "../../core/src/future/future.rs:1"),
                ("tokio::runtime::task::core::Core<T,S>::poll::{{closure}}", "task/core.rs:331:17"),
                ("core::cell::UnsafeCell<T>::with_mut", "../../core/src/cell.rs:1"),
                ("tokio::runtime::task::harness::Harness<T,S>::poll_inner", "task/harness.rs:209:27"),
                ("tokio::runtime::scheduler::multi_thread::worker::Context::run_task", "scheduler/worker.rs:674:22"),
            ],
            start=20,
        )
    )
    own = (
        "  18: redlib::client::proxy::{{closure}}\n             at ./src/client.rs:212:40\n"
        "  19: redlib::server::Server::listen::{{closure}}\n             at ./src/server.rs:250:8\n"
    )
    panic = "thread 'tokio-runtime-worker' panicked at src/client.rs:212:40:\nboom\nstack backtrace:\n"
    whole = _sign_text(panic + own + machinery)
    assert whole.similarity_frames[:2] == ("redlib::client::proxy", "redlib::server::Server::listen")
    assert not any("tokio" in frame or "UnsafeCell" in frame for frame in whole.similarity_frames)
    tail = _sign_text("stack backtrace:\n" + machinery)
    assert "no identifying line: a bucket of its own" in tail.repairs


def test_what_unwrap_found_named_by_its_type_is_a_panics_identity_without_a_site():
    # ogham/exa#556: Rust before 1.42 placed the unwrap() in libcore, no backtrace: only the message says
    # which crash it is, "…on an `Err` value: SystemTimeError(6795364578.871345152s)". It finds the bucket
    # of exa#699, the same panic printed by a later Rust at exa's own line.
    old_form, new_form = _sign("ogham/exa#556"), _sign("ogham/exa#699")
    assert old_form.method == "message" and "no identifying line: a bucket of its own" not in old_form.repairs
    assert similarity.similarity(similarity.shape_of(old_form), similarity.shape_of(new_form)).score >= 0.72
    # A value named by no type, or by one word, still names nothing.
    for value in ("called `Option::unwrap()` on a `None` value", "called `Result::unwrap()` on an `Err` value: Error"):
        text = f"thread 'main' panicked at '{value}', src/libcore/option.rs:345:21\n"
        assert "no identifying line: a bucket of its own" in _sign_text(text).repairs


def test_llvm_assertion_in_an_anonymous_namespace_names_its_function():
    # llvm/llvm-project#97533: "bool (anonymous namespace)::TwoAddressInstructionPass::collectTiedOperands(…)".
    from crashes.traces.llvm import function_name

    line = next(line for line in RECORDS["llvm/llvm-project#97533"]["trace"].splitlines() if "Assertion `" in line)
    signature = line.split(".cpp:", 1)[1].split(": ", 1)[1].split(": Assertion `")[0]
    assert function_name(signature) == "(anonymous namespace)::TwoAddressInstructionPass::collectTiedOperands"
    assert _sign("llvm/llvm-project#97533").frames[0] == "site collectTiedOperands"


def test_a_dotnet_stack_printed_in_another_language_is_read_as_the_english_one():
    # ppy/osu#1558: Polish ("w osu.Game…"), frames without locations.
    polish = _sign("ppy/osu#1558")
    assert polish.method == "stack" and polish.crash_type == "System.NullReferenceException"
    # ("<>c.<ShowMore>b__3_0": the lambda in ShowMore, named by it since v21.)
    assert polish.frames[0] == "osu.Game.Overlays.Profile.Sections.Ranks.PaginatedScoreContainer.ShowMore"
    english = (
        "System.InvalidOperationException: Sequence contains no elements\n"
        "   at App.Core.Loader.Read(String path) in C:\\src\\Loader.cs:line 12\n"
        "   at App.Core.Program.Main(String[] args) in C:\\src\\Program.cs:line 7\n"
    )
    german = english.replace("   at ", "   bei ").replace(" in C:", " in C:").replace(":line ", ":Zeile ")
    chinese = english.replace("   at ", "   在 ").replace(" in C:", " 位置 C:").replace(":line ", ":行号 ")
    parsed = [parse(text) for text in (english, german, chinese)]
    assert all(p.format == "dotnet" for p in parsed)
    assert {(f.function, f.file, f.line) for p in parsed for f in p.frames[:1]} == {
        ("App.Core.Loader.Read(String path)", "C:\\src\\Loader.cs", 12)
    }
    digests = {signatures.compute(kind="crash", trace_text=text).digest for text in (english, german, chinese)}
    assert len(digests) == 1


def test_an_old_form_rust_panic_is_read_across_its_wrapped_message():
    # alacritty/alacritty#2728: "thread 'main' panicked at 'not yet implemented', …/mod.rs:N" cut by the terminal.
    signature = _sign("alacritty/alacritty#2728")
    assert signature.method == "stack" and signature.crash_type == "not yet implemented"
    assert signature.frames[0] == "site glutin/src/api/egl/mod.rs:1010"


def test_a_line_pasted_as_inline_code_is_unquoted():
    # rust-lang/rustfmt#4357: the panic line between backticks; golang/go#22200: the ICE line.
    rustfmt = _sign("rust-lang/rustfmt#4357")
    assert "Markdown inline code removed" in rustfmt.repairs
    assert rustfmt.frames[0] == "site src/types.rs:764"
    go = _sign("golang/go#22200")
    assert go.frames == ("cmd/compile/internal/amd64.ssaGenValue",)
    # A backtick pair inside a line is the message's own quoting, not Markdown.
    kept = "called `Option::unwrap()` on a `None` value"
    assert extract.clean(kept).text == kept


def test_unsymbolised_rust_frames_name_nothing():
    # nushell/nushell#707: "0x5637cd08c91c - <unknown>" frames move with every run.
    signature = _sign("nushell/nushell#707")
    assert not any(frame.startswith("0x") for frame in signature.frames + signature.similarity_frames)


def test_one_stock_message_at_two_sites_is_two_bugs_for_the_fuzzy_stage():

    here = similarity.Shape("crash", "rust", "", (), site="a/src/x.rs", message="index out of bounds at the end")
    there = similarity.Shape("crash", "rust", "", (), site="b/src/y.rs", message="index out of bounds at the end")
    assert similarity.similarity(here, there).score < similarity.THRESHOLD
    frameless = similarity.Shape("crash", "", "", (), message="index out of bounds at the end")
    assert similarity.similarity(frameless, here).score >= similarity.THRESHOLD


def test_a_dependencys_panic_is_identified_with_the_programs_own_caller():
    # hashicorp/terraform#28817: go-cty's "value is marked" assertion, reached from terraform's
    # objchange; the same assertion is reached from many places (terraform#29104, #29374, #23377).
    signature = _sign("hashicorp/terraform#28817")
    assert signature.frames[-1] == "caller github.com/hashicorp/terraform/plans/objchange.proposedNewNestedBlock"
    go = (
        "panic: value is marked\n\ngoroutine 1 [running]:\n"
        "github.com/dep/lib.Check(...)\n\t/root/go/pkg/mod/github.com/dep/lib@v1.2.0/lib.go:10\n"
        "github.com/app/cmd.{caller}(0xc000)\n\t/src/app/cmd/{caller}.go:{line} +0x4f\n"
        "main.main()\n\t/src/app/main.go:5 +0x1\n"
    )
    first, moved, other = (
        signatures.compute(kind="crash", trace_text=go.format(caller=caller, line=line), target="app").digest
        for caller, line in (("Plan", 40), ("Plan", 52), ("Apply", 40))
    )
    assert first == moved != other
    # A crash in the program's own code has no dependency caller to add.
    own = signatures.compute(
        kind="crash", trace_text=go.replace("/root/go/pkg/mod/github.com/dep/lib@v1.2.0", "/src/lib")
    )
    assert not any(frame.startswith("caller ") for frame in own.frames)


def test_a_go_compiler_stack_pasted_without_its_ice_line_is_still_the_compilers():
    # golang/go#53762 starts at "goroutine 1 [running]:": the ICE line was left out of the paste.
    signature = _sign("golang/go#53762")
    assert signature.method == "stack" and signature.trace_format == "go-ice"
    assert signature.frames[0] == "cmd/compile/internal/noder.genInst.dictPass"
    # Its crash type is unknown, not different: the same frames with the ICE line still match.

    full = "x.go:3:4: internal compiler error: assertion failed\n\n" + RECORDS["golang/go#53762"]["trace"]
    with_line = signatures.compute(kind="crash", trace_text=full)
    assert with_line.crash_type == "ICE: assertion failed"
    match = similarity.similarity(similarity.shape_of(signature), similarity.shape_of(with_line))
    assert match.score >= similarity.THRESHOLD


@pytest.mark.parametrize(
    ("record_id", "crash_type", "first_frame"),
    [
        # "<unknown line number>: internal compiler error: …", the compiler's way to say it has no position.
        ("golang/go#63378", "ICE: assertion failed", "cmd/compile/internal/noder.idealType"),
        # A panic the compiler recovered in gc.handlePanic: the site is below panic(…), not the handler.
        ("golang/go#52124", "ICE: panic: unexpected type: N", "cmd/compile/internal/noder.reader.doTyp"),
    ],
)
def test_go_compiler_ices_read_past_their_handlers(record_id, crash_type, first_frame):
    signature = _sign(record_id)
    assert signature.trace_format == "go-ice" and signature.crash_type == crash_type
    assert signature.frames[0] == first_frame


def test_a_shell_saying_its_command_died_is_no_identity():
    # crystal-lang/crystal#1178 and #1403: "/usr/bin/crystal: line 6:  5518 Segmentation fault  …" for two bugs.
    first, second = _sign("crystal-lang/crystal#1178"), _sign("crystal-lang/crystal#1403")
    assert RECORDS["crystal-lang/crystal#1178"]["bug"] != RECORDS["crystal-lang/crystal#1403"]["bug"]
    assert first.digest != second.digest
    assert "no identifying line: a bucket of its own" in first.repairs


def test_the_kotlin_compilers_reporting_frames_are_no_identity():
    # JetBrains/compose-multiplatform#301: BackendException's reportBackendException and the phase
    # runner (then JvmLower.lower, the driver) wrap every IR lowering crash; where it failed is the
    # root cause's place, named above them ("The root cause java.lang.AssertionError was thrown at: …").
    signature = _sign("JetBrains/compose-multiplatform#301")
    assert signature.method == "stack"
    assert not any("reportBackendException" in frame or ".phaser." in frame for frame in signature.frames)
    assert signature.crash_type == "java.lang.AssertionError"
    assert signature.frames[0] == "site org.jetbrains.kotlin.backend.common.ir.IrUtilsKt.copyValueParametersToStatic"


def test_a_programs_crash_is_keyed_within_its_target_and_a_compilers_ice_is_shared():
    # HubSpot/private-app-starter#10 and MicrosoftDocs/mslearn-python-products#12: one Flask import
    # failure, fixed in each project on its own; two buckets, one per target.
    flask_hubspot = _sign("HubSpot/private-app-starter#10", target="HubSpot/private-app-starter")
    flask_docs = _sign("MicrosoftDocs/mslearn-python-products#12", target="MicrosoftDocs/mslearn-python-products")
    assert flask_hubspot.method == flask_docs.method == "stack"
    assert flask_hubspot.frames == flask_docs.frames and flask_hubspot.digest != flask_docs.digest
    # Go's runtime failing to start on a new macOS, in two projects (ffay/lanproxy-go-client#3,
    # yangl900/armclient-go#13): the same fatal error in the runtime's frames, one bucket per target.
    lanproxy = _sign("ffay/lanproxy-go-client#3", target="ffay/lanproxy-go-client")
    armclient = _sign("yangl900/armclient-go#13", target="yangl900/armclient-go")
    assert lanproxy.trace_format == "go" and lanproxy.crash_type == "runtime: bsdthread_register error"
    assert lanproxy.digest != armclient.digest
    assert _sign("ffay/lanproxy-go-client#3", target="x").digest == _sign("yangl900/armclient-go#13", target="x").digest
    # A rustc ICE names a place in rustc: the same in every project that reaches it.
    ice = (TRACES / "rust" / "ice_defid_expect_local.txt").read_text()
    one, other = (signatures.compute(kind="crash", trace_text=ice, target=t).digest for t in ("a/b", "c/d"))
    assert one == other


def test_a_rust_panic_with_the_threads_id_and_ruffs_own_report_name_one_site():
    # astral-sh/ruff#23587 (Rust 1.89 prints "thread 'main' (6913397) panicked at …", from a stripped
    # macOS binary whose frames all read "__mh_execute_header") and #23596 (ruff's "panic: Panicked at …").
    with_id, reported = _sign("astral-sh/ruff#23587"), _sign("astral-sh/ruff#23596")
    assert with_id.frames == reported.frames == ("site ruff_python_semantic/src/definition.rs:285",)
    assert with_id.digest == reported.digest
    rustc = "thread 'rustc' (81234) panicked at compiler/rustc_middle/src/ty/sty.rs:12:9:\nbad type\n"
    assert signatures.compute(kind="crash", trace_text=rustc).frames[0] == "site rustc_middle/src/ty/sty.rs"


def test_a_debuggers_managed_call_stack_is_read_as_dotnet_frames():
    # dotnet/roslyn#723 pasted Visual Studio's Call Stack window; #605, its original, the runtime's
    # trace under an unqualified "ArgumentOutOfRangeException:".

    debugger, runtime = _sign("dotnet/roslyn#723"), _sign("dotnet/roslyn#605")
    assert debugger.trace_format == runtime.trace_format == "dotnet"
    assert runtime.crash_type == "ArgumentOutOfRangeException"
    assert debugger.frames == runtime.frames
    match = similarity.similarity(similarity.shape_of(debugger), similarity.shape_of(runtime))
    assert match.score >= similarity.THRESHOLD
    # A native frame in that window (C++) is not .NET's.
    native = ">\tapp.exe!Foo::Bar(int x) Line 3\tC++\n \tapp.exe!main() Line 9\tC++\n"
    assert parse(native) is None or parse(native).format != "dotnet"


def test_a_crash_type_a_terminal_cut_at_a_blank_is_one_type_to_the_fuzzy_stage():
    # gitui-org/gitui#2137 in a terminal 90 columns wide: the panic's message is cut where a blank was,
    # and read back "…the len is N but theindex is N". Its bucket is still the unwrapped report's.
    whole = _sign("gitui-org/gitui#2137", target="gitui")
    cut = _sign_text(hard_wrap(RECORDS["gitui-org/gitui#2137"]["trace"], 90), target="gitui")
    assert cut.crash_type != whole.crash_type and cut.crash_type.replace(" ", "") == whole.crash_type.replace(" ", "")
    assert similarity.similarity(similarity.shape_of(cut), similarity.shape_of(whole)).score >= similarity.THRESHOLD
    # Another word is another type still.
    one = similarity.Shape("crash", "rust", "index out of bounds: the len is N", ("f",), site="a.rs:1")
    other = similarity.Shape("crash", "rust", "index out of bounds: the size is N", ("f",), site="a.rs:1")
    assert similarity.similarity(one, other).score < similarity.THRESHOLD


def test_a_message_a_terminal_cut_mid_word_still_finds_its_bucket_by_its_site_or_frames():
    # bodil/sized-chunks#2 at 132 columns: rustc's message loses "Some(T)) substs=[T]" past the cut and keeps
    # "…(root type="; hashicorp/nomad#2266/c1 at 110, "…not *structs.Reco". The same site, the same frames.
    for record, width in (("bodil/sized-chunks#2", 132), ("hashicorp/nomad#2266/c1", 110)):
        whole = _sign(record)
        cut = _sign_text(hard_wrap(RECORDS[record]["trace"], width))
        assert cut.crash_type != whole.crash_type and whole.crash_type.startswith(cut.crash_type)
        assert similarity.similarity(similarity.shape_of(cut), similarity.shape_of(whole)).score >= similarity.THRESHOLD
    # Alone, a message cut mid-word is no match: only one cut at a word's end is ("Cyclic reference found").
    one = similarity.Shape("crash", "", "", (), message="Dictionary should have already been generated: github.co")
    other = similarity.Shape("crash", "", "", (), message="Dictionary should have already been generated: github.com/a")
    assert similarity.similarity(one, other).score < similarity.THRESHOLD


def test_one_exception_class_with_and_without_its_namespace_is_one_type_to_the_fuzzy_stage():

    frames = ("A.B.C", "A.B.D", "A.B.E")
    qualified = similarity.Shape("crash", "dotnet", "System.InvalidOperationException", frames)
    bare = similarity.Shape("crash", "dotnet", "InvalidOperationException", frames)
    other = similarity.Shape("crash", "dotnet", "System.ArgumentException", frames)
    assert similarity.similarity(bare, qualified).score >= similarity.THRESHOLD
    assert similarity.similarity(other, qualified).score < similarity.THRESHOLD


def test_a_gdb_backtrace_of_a_glibc_assert_is_keyed_by_the_assertion():
    # php/php-src#18845: gdb prints the assertion and the function among __assert_fail's arguments,
    # wrapped onto the lines below the frame.
    signature = _sign("php/php-src#18845")
    assert signature.trace_format == "gdb" and signature.crash_type == "Assertion `info' failed"
    assert signature.frames[:2] == ("site zend_lazy_object_get_info", "zend_lazy_object_init")


def test_a_go_stack_whose_goroutine_header_was_cut_is_still_read():
    # gilbertchen/duplicacy#79 starts inside debug.PrintStack of a recovered panic.
    signature = _sign("gilbertchen/duplicacy#79")
    assert signature.method == "stack" and signature.trace_format == "go"
    assert signature.frames[0] == "github.com/gilbertchen/duplicacy/src.Chunk.GetHash"


def test_go_heap_corruption_is_a_symptom_not_an_identity():
    # golang/go#12138/c1 and #13289: "objectstart: bad pointer in unexpected span", runtime frames only,
    # two bugs (#13289's reporter: "this crash is different").
    first, second = _sign("golang/go#12138/c1"), _sign("golang/go#13289")
    assert RECORDS["golang/go#12138/c1"]["bug"] != RECORDS["golang/go#13289"]["bug"]
    assert first.digest != second.digest


def test_a_dedented_traceback_keeps_a_bare_exception_after_its_last_frame():
    text = (
        'Traceback (most recent call last):\nFile "a.py", line 3, in f\ng()\n'
        'File "b.py", line 9, in g\nKeyboardInterrupt\n'
    )
    parsed = parse(text)
    assert parsed.crash_type == "KeyboardInterrupt"
    assert [frame.function for frame in parsed.frames] == ["g", "f"]


# Part of rust-lang/miri#2106's backtrace (https://github.com/rust-lang/miri/issues/2106), its head not quoted.
MIRI_FRAMES = (
    "  19:     0x7ff575178e76 - rustc_middle[1a99a9759c5accc7]::util::bug::opt_span_bug_fmt::"
    "<rustc_span[e19c93a5cc4d231b]::span_encoding::Span>\n"
    "  20:     0x7ff575178df3 - rustc_middle[1a99a9759c5accc7]::util::bug::bug_fmt\n"
    "  21:     0x555a484f351d - miri[6f4523000af34d]::diagnostics::report_error\n"
    "  22:     0x555a484f9ea3 - miri[6f4523000af34d]::eval::eval_entry\n"
)


def test_a_headless_backtrace_of_rustcs_crates_is_read_by_their_hashed_symbols():
    signature = signatures.compute(kind="crash", trace_text=MIRI_FRAMES)
    assert signature.method == "stack" and signature.trace_format == "rust"
    assert signature.frames[:2] == ("miri::diagnostics::report_error", "miri::eval::eval_entry")


def test_frame_lines_and_rustcs_query_banner_are_never_an_identity():
    # rust-lang/rustfmt#6081 quoted only rustc's banner; rust-lang/miri#2866 only std's panic frames.
    banner = signatures.compute(kind="crash", trace_text="query stack during panic:\nend of query stack")
    assert banner.crash_type == "unidentified crash"
    frames = "  13:     0x7f3c5ccaa3a7 - std::panicking::rust_panic_with_hook::hecec3b7c59290886\n"
    assert signatures.compute(kind="crash", trace_text=frames * 2).crash_type == "unidentified crash"


def test_crash_banners_and_tool_notices_are_no_identity():
    # oven-sh/bun#10805 and #29488, two bugs, both open with Bun's banner "oh no: Bun has crashed.
    # This indicates a bug in Bun"; tmux/tmux#3741 with coredumpctl's notice to users outside 'adm'.
    assert _sign("oven-sh/bun#10805").digest != _sign("oven-sh/bun#29488").digest
    assert "not seeing messages" not in _sign("tmux/tmux#3741").crash_type
    # crystal-lang/crystal#11409 and #6183: Crystal's "Error: you've found a bug in the Crystal compiler."
    assert _sign("crystal-lang/crystal#11409").digest != _sign("crystal-lang/crystal#6183").digest


def test_a_syscall_wrapper_is_a_runtime_frame():
    # jerryscript-project/jerryscript#280: gdb's "# 0  0x… in syscall_2_asm ()", its own libc's raise.
    parsed = parse(RECORDS["jerryscript-project/jerryscript#280"]["trace"])
    assert parsed.format == "gdb" and parsed.frames[0].function == "syscall_2_asm"
    assert "syscall_2_asm" not in _sign("jerryscript-project/jerryscript#280").similarity_frames


def test_an_assertion_line_behind_any_prefix_keeps_its_function():
    # Zig prints its progress ("LLVM Emit Object... ") on the line glibc's assert then finishes.
    parsed = parse(RECORDS["ziglang/zig#12022"]["trace"])
    assert parsed.format == "llvm" and parsed.site == "addFragmentOffset"


def test_pre_1_0_rust_frames_drop_their_hash_and_the_runtime_they_passed_through():
    from crashes.frames import significant_frames
    from crashes.model import Frame

    frames = [
        Frame(function="sys::backtrace::tracing::imp::write::he27ef2eb40e30753Plt"),
        Frame(function="rt::unwind::begin_unwind_inner::h05e9c5bf6de6ba31qyw"),
        Frame(function="rustfmt::missed_spans::format_missing_inner::h9c0f0ba8d2b0c4a1Yxk"),
    ]
    assert significant_frames(frames, "rust", 3) == ("rustfmt::missed_spans::format_missing_inner",)


def test_an_old_form_rust_panic_whose_location_went_to_the_next_line_keeps_it():
    # deno#20615 and rust-analyzer#9639: "panicked at 'msg'," and the file on the line below; the
    # line's trailing blank is stripped, and a crate's root file in the registry names the crate.
    assert _sign("denoland/deno#20615").frames[0] == "site deno_node/lib.rs:142"
    assert _sign("rust-lang/rust-analyzer#9639").frames[0] == "site chalk-ir/src/fold/subst.rs:58"


@pytest.mark.parametrize(
    "record_id", ["Andre0512/pyhOn#3", "astral-sh/ruff#3425", "crystal-lang/crystal#4744", "golang/go#11588"]
)
def test_blanks_at_line_ends_and_a_one_line_quote_change_nothing(record_id):
    text = RECORDS[record_id]["trace"]
    padded = "\n".join(line + "   " for line in text.split("\n"))  # a terminal's padding
    quoted = "\n".join("> " + line for line in text.split("\n"))  # one line or many, all quoted
    digest = _sign(record_id).digest
    assert signatures.compute(kind="crash", trace_text=padded, target="t").digest == digest
    assert signatures.compute(kind="crash", trace_text=quoted, target="t").digest == digest
    assert extract.clean(quoted).repairs == ("Markdown quoting removed",)


def test_a_python_frame_line_cut_before_its_line_number_is_joined_whatever_the_width():
    # SublimeText/AdvancedNewFile#133 cut at 120 columns: one long frame line, no width to find.
    text = RECORDS["SublimeText/AdvancedNewFile#133"]["trace"]
    wrapped = hard_wrap(text, 120)
    assert wrapped.count("\n") > text.count("\n")
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert signed.digest == _sign("SublimeText/AdvancedNewFile#133").digest
    assert "1 cut frame lines joined" in signed.repairs


def test_a_python_frame_line_cut_on_the_blank_before_its_line_number_is_joined():
    # thonny/thonny#2548 quoted and cut at 80 columns: '…/mypy/__init__.py", line' / '110, in _parse…' (v17).
    text = RECORDS["thonny/thonny#2548"]["trace"]
    wrapped = hard_wrap(text, 80)
    assert '__init__.py", line \n110, in _parse_and_output_warnings' in wrapped
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert signed.digest == _sign("thonny/thonny#2548").digest
    # A frame line that ends in ", line" above a line that is no number stays as it is.
    odd = 'Traceback (most recent call last):\n  File "/a/b.py", line\nsee above\nValueError: x\n'
    assert parse(odd).frames == ()


@pytest.mark.parametrize(
    ("record_id", "width"),
    [("crystal-lang/crystal#5497", 80), ("ziglang/zig#10837", 120), ("ziglang/zig#945/c1", 120)],
)
def test_an_assertion_line_cut_before_its_end_is_joined_whatever_the_width(record_id, width):
    # macOS's "Assertion failed: (…), function F, file X, line N." and glibc's "…: Assertion `…' failed."
    text = RECORDS[record_id]["trace"]
    wrapped = hard_wrap(text, width)
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert signed.digest == _sign(record_id).digest
    assert any("joined" in repair or "unwrapped" in repair for repair in signed.repairs)


def test_a_panic_hooks_debug_print_names_the_panic_location():
    parsed = parse(RECORDS["gitui-org/gitui#2713"]["trace"])  # a Windows path, its backslashes escaped
    assert (parsed.format, parsed.site) == ("rust", "asyncgit/src/revlog.rs:186")


def test_a_go_function_line_cut_in_its_arguments_is_joined():
    # rclone/rclone#2572 as posted: "…RepeatableReader).Read(0xc04343e8d0, …, 0xc046363" / "aa0)".
    parsed = parse(RECORDS["rclone/rclone#2572"]["trace"])
    assert parsed.frames[0].function.startswith("github.com/ncw/rclone/lib/readers.(*RepeatableReader).Read(")
    # golang/go#14746 cut at 80 columns: the same stack as the whole report.
    text = RECORDS["golang/go#14746"]["trace"]
    wrapped = hard_wrap(text, 80)
    assert signatures.compute(kind="crash", trace_text=wrapped, target="t").digest == _sign("golang/go#14746").digest


def test_a_python_frame_line_cut_in_its_functions_name_is_joined():
    # spyder-ide/spyder#440 as posted: "…spyder.py", line 1407, in run_sp" / "yder", the source indented below.
    parsed = parse(RECORDS["spyder-ide/spyder#440"]["trace"])
    assert "run_spyder" in [frame.function for frame in parsed.frames]
    # A traceback pasted without indentation keeps a bare name below a frame as that frame's source.
    dedented = 'Traceback (most recent call last):\nFile "a.py", line 3, in main\nrun\nNameError: run'
    assert [frame.function for frame in parse(dedented).frames] == ["main"]


def test_a_gdb_frame_line_broken_in_its_arguments_is_joined():
    # tmux/tmux#2429 (OpenBSD gdb): "…(how=Variable "how" is not available." / ") at …/w_sigprocmask.c:35".
    functions = [frame.function for frame in parse(RECORDS["tmux/tmux#2429"]["trace"]).frames]
    assert functions[:2] == ["_thread_sys_sigprocmask", "_libc_sigprocmask_wrap"]


def test_a_sanitizer_header_of_exactly_the_width_does_not_swallow_its_access_line():
    # jerryscript#2230's header is 120 characters: "READ of size 1 …" below it is a record of its own.
    text = RECORDS["jerryscript-project/jerryscript#2230"]["trace"]
    wrapped = hard_wrap(text, 120)
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert signed.crash_type == "heap-buffer-overflow READ"


def test_a_go_ice_line_keeps_the_line_of_its_own_below_it():
    # golang/go#46704/c1: "<truncated stack trace>" below a 77-character ICE line is no part of it.
    assert _sign("golang/go#46704/c1").crash_type == "ICE: failed to find type loop for: a.S[int]"


def test_a_go_ice_panics_signal_line_is_no_part_of_its_message():
    # cmd/compile's handlePanic prints "internal compiler error: panic: runtime error: invalid memory
    # address or nil pointer dereference" and the runtime its "[signal SIGSEGV: … addr=0x18 pc=…]" below:
    # a record of its own, whatever the ICE line's length, so a report without it signs the same.
    ice = (
        "./main.go:12:15: internal compiler error: "
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
    )
    stack = (
        "\ngoroutine 1 [running]:\n"
        "cmd/compile/internal/gc.handlePanic()\n\t/usr/local/go/src/cmd/compile/internal/gc/main.go:53 +0x8c\n"
        "panic({0xc6a1e0, 0x14f6a90})\n\t/usr/local/go/src/runtime/panic.go:884 +0x213\n"
        "cmd/compile/internal/noder.(*reader).expr(0xc000416000)\n"
        "\t/usr/local/go/src/cmd/compile/internal/noder/reader.go:2100 +0x3ba\n"
    )
    signal = "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x8b1c3a]\n"
    with_signal, without = _sign_text(ice + signal + stack), _sign_text(ice + stack)
    assert with_signal.crash_type == "ICE: panic: runtime error: invalid memory address or nil pointer dereference"
    assert with_signal.digest == without.digest


def test_a_go_ssa_passs_panic_is_keyed_by_the_pass_its_value_and_where_it_was_raised():
    # golang/go#45947: "'f.func2': panic during short circuit while compiling f.func2:" then the value
    # below a blank line; ssa.Compile's recover closure sits above panic(…), every SSA crash's.
    signature = _sign("golang/go#45947")
    assert (
        signature.crash_type == "ICE: panic during short circuit: runtime error: index out of range [N] with length N"
    )
    assert signature.frames[:2] == ("cmd/compile/internal/ssa.fuseBlockPlain", "cmd/compile/internal/ssa.fuse")
    # The same crash compiling another function of another program is the same bucket.
    again = RECORDS["golang/go#45947"]["trace"].replace("f.func2", "main.(*T).Run").replace("crash.go", "t.go")
    assert _sign_text(again).digest == _sign_text(RECORDS["golang/go#45947"]["trace"]).digest


def test_a_go_panic_raised_again_after_a_recover_is_sited_below_the_first_panic():
    # golang/go#16027/c1: "panic: inconsistent import: … [recovered]"; go/types' handleBailout recovered it
    # and panicked again, so the dump reads panic(…), handleBailout, panic(…), then the importer's frame.
    signature = _sign("golang/go#16027/c1")
    assert signature.frames[:2] == ("go/internal/gcimporter.importer.declare", "go/internal/gcimporter.importer.obj")
    assert "go/types.Checker.handleBailout" not in signature.similarity_frames


def test_gdbs_cpp_frames_without_debug_information_are_read():
    # numba/llvmlite#292 and clangd/clangd#361: LLVM's and clangd's frames as gdb prints a C++ function of a
    # library without debug information, its parameter types and no arguments ("f(int) () from lib.so",
    # angr/claripy#26's Z3 frames with "[clone .constprop.171]"); before, no frame was read.
    assert _sign("numba/llvmlite#292").frames[:2] == (
        "llvm::Module::getNamedMetadata",
        "llvm::Module::getModuleFlagsMetadata",
    )
    # (Its frames in an anonymous namespace and with template arguments holding blanks are read too, v20.)
    assert _sign("clangd/clangd#361").frames == (
        "clang::clangd::::TargetFinder::add",
        "clang::TypeVisitor::Visit",
        "clang::clangd::allTargetDecls",
    )
    z3 = (
        "Program received signal SIGSEGV, Segmentation fault.\n(gdb) bt\n"
        "#0  0x00007ffff1db1dc2 in smt::theory_bv::assign_bit(smt::literal, int, bool) [clone .constprop.171] () "
        "from /lib/libz3.so\n"
        "#1  0x00007ffff1db20e7 in smt::theory_bv::merge_eh(int, int, int, int) () from /lib/libz3.so\n"
    )
    assert _sign_text(z3).frames[:2] == ("smt::theory_bv::assign_bit", "smt::theory_bv::merge_eh")


def test_macos_null_trampoline_address_keeps_a_stack_dump_whole():
    # The Swift compiler's stack on macOS (nicklockwood's MakeItSo tutorial, a reader's report): the
    # signal trampoline's frame printed with eighteen zeros for its address, no 0x; the dump goes on.
    dump = (
        "0  swift                    0x000000010f8c3a63 PrintStackTraceSignalHandler(void*) + 51\n"
        "1  swift                    0x000000010f8c3236 SignalHandler(int) + 358\n"
        "2  libsystem_platform.dylib 0x00007fff6ba74b5d _sigtramp + 29\n"
        "3  libsystem_platform.dylib 000000000000000000 _sigtramp + 2488841408\n"
        "4  swift                    0x000000010c40e066 swift::ParamDecl::getDefaultValueStringRepresentation("
        "llvm::SmallVectorImpl<char>&) const + 1014\n"
        "5  swift                    0x000000010c19526a swift::serialization::Serializer::writeDecl("
        "swift::Decl const*) + 5946\n"
    )
    signature = _sign_text(dump)
    assert signature.frames[:2] == (
        "swift::ParamDecl::getDefaultValueStringRepresentation",
        "swift::serialization::Serializer::writeDecl",
    )


def test_gdbs_stop_line_before_its_backtrace_is_not_a_backtrace_of_its_own():
    # neovim/neovim#3770 and tmux/tmux#3932: a core loaded in gdb prints "#0 f (…)" where the program
    # stopped, then `bt` prints the whole stack from "#0 f (…)" again; a second thread's #0 still ends it.
    assert _sign("neovim/neovim#3770").frames == ("set_ref_in_ht", "garbage_collect", "before_blocking")
    assert _sign("tmux/tmux#3932").frames == ("tty_keys_next", "tty_read_callback", "event_persist_closure")
    two_threads = (
        "Thread 2:\n#0  0x1 in poll ()\n#1  0x2 in loop ()\nThread 1:\n#0  0x3 in crash ()\n#1  0x4 in main ()\n"
    )
    assert [f.function for f in parse(two_threads).frames] == ["poll", "loop"]


def test_an_address_is_never_read_as_a_frame():
    # ClickHouse#13281 prints its stack as bare addresses ("Stack trace: 0x7ff80c2c3f47 0x7ff80c2c58b1 …"),
    # its duplicate #17747 not at all: one LLVM JIT error, keyed by its line alone in both.
    first, duplicate = _sign("ClickHouse/ClickHouse#13281"), _sign("ClickHouse/ClickHouse#17747")
    assert not any(frame.startswith("0x") for frame in first.frames)
    assert first.digest == duplicate.digest


def test_rustcs_ice_lines_and_raising_files_before_2020_are_read_like_todays():
    # serde#623 (2016): "error: internal compiler error: ../src/librustc_metadata/decoder.rs:490: entry: …"
    # (no column) then "panicked at 'Box<Any>', ../src/librustc_errors/lib.rs:424", which only raised it.
    serde = _sign("serde-rs/serde#623")
    assert serde.frames[0] == "site librustc_metadata/decoder.rs"
    assert serde.crash_type.startswith("ICE: entry: id not found: DefIndex(N) in crate")
    assert not any("librustc_errors" in frame for frame in _sign("rust-lang/rls#1450").frames)


def test_a_kotlin_compiler_wrapper_is_keyed_by_the_exception_it_wraps():
    # koin#2357 and koin-compiler-plugin#29: K2's FileAnalysisException says "While analysing A.kt:17:19:" or
    # "Somewhere in file A.kt:" before the exception that failed; its wrapping frames are every crash's.
    for record_id in ("InsertKoinIO/koin#2357", "InsertKoinIO/koin-compiler-plugin#29"):
        parsed = parse(RECORDS[record_id]["trace"])
        assert parsed.crash_type == "java.lang.NoSuchMethodError"
        assert parsed.message.endswith("KtPsiSourceElement.getPsi()'")
    plugin = _sign("InsertKoinIO/koin-compiler-plugin#29")
    assert plugin.frames[0].endswith("plugin.FirCompanionGenerationTransformer.transformFile")


def test_a_run_of_blank_lines_says_no_more_than_two():
    # A quarter of a million blank lines would be read again by every later repair (parse_worst's kept cases).
    cleaned = extract.clean(">>>>" + "\n" * 200_000 + "  \t\n" * 1000 + "x")
    assert "\n\n\n\n" not in cleaned.text and len(cleaned.text) < 20
    spaced = RECORDS["alacritty/alacritty#111"]["trace"].replace("\n", "\n\n\n\n\n\n", 1)
    spaced_digest = signatures.compute(kind="crash", trace_text=spaced, target="t").digest
    assert spaced_digest == _sign("alacritty/alacritty#111").digest


def test_addresses_printed_without_0x_are_masked():
    # jq#1676 (dmesg on OpenWrt): the kernel prints the fault and instruction addresses bare.
    line = RECORDS["jqlang/jq#1676"]["trace"]
    rerun = (
        line.replace("174ab640", "2a91c0f8")
        .replace("00007f77174ddd5f", "00007fa3d2c11d5f")
        .replace("00007ffd6dd381e8", "00007ffe01b2c3a8")
        .replace("7f77174ac000", "7fa3d2be0000")
    )
    assert (
        rerun != line
        and _sign("jqlang/jq#1676").digest == signatures.compute(kind="crash", trace_text=rerun, target="t").digest
    )


@pytest.mark.parametrize(
    ("record_id", "width"),
    [
        ("jesseduffield/lazygit#4150", 120),  # cut inside a function's name: "….(*ConfirmationHelper)." / "wrapped…()"
        ("hashicorp/nomad#3326", 120),  # cut inside the arguments, going on after the blank the reporter's paste kept
        ("golang/go#53254", 80),  # a source line cut before the last digit of +0x837: the "7" starts no frame
        ("pingcap/tidb#37603", 120),  # cut in its arguments, its source line cut short by the paste itself
    ],
)
def test_go_function_lines_a_terminal_cut_are_joined(record_id, width):
    text = RECORDS[record_id]["trace"]
    wrapped = hard_wrap(text, width)
    assert wrapped != text
    assert signatures.compute(kind="crash", trace_text=wrapped, target="t").frames == _sign(record_id).frames


@pytest.mark.parametrize(
    "record_id",
    [
        "astral-sh/uv#16406",  # "panicked at C:\\…\\mod.rs:" cut from its "77:18:"
        "rust-lang/rustfmt#4357",  # an old-form panic in inline code, its closing tick on the next line
        "zensical/zensical#707",  # the location's closing ":" left alone on a line
    ],
)
def test_rust_panic_lines_a_terminal_cut_at_80_are_read_whole(record_id):
    text = RECORDS[record_id]["trace"]
    wrapped = hard_wrap(text, 80)
    assert wrapped != text
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert (signed.crash_type, signed.frames[0]) == (_sign(record_id).crash_type, _sign(record_id).frames[0])


@pytest.mark.parametrize(
    ("record_id", "width"),
    [
        ("python/mypy#18473", 80),  # cut just after ", in ": the blank stripped with the line's end
        ("spyder-ide/spyder#1261", 75),  # cut just before the function's name: the blank opens the next line
        ("sublimehq/sublime_text#55", 80),  # cut inside the line number: ", line 7" / "3, in reload_plugin"
    ],
)
def test_python_frame_lines_a_terminal_cut_are_joined(record_id, width):
    text = RECORDS[record_id]["trace"]
    wrapped = hard_wrap(text, width)
    assert wrapped != text
    assert signatures.compute(kind="crash", trace_text=wrapped, target="t").digest == _sign(record_id).digest


@pytest.mark.parametrize(
    ("record_id", "width"),
    [("riscv-collab/riscv-gnu-toolchain#1236", 120), ("msys2/MINGW-packages#8079", 80)],
)
def test_a_gcc_ice_line_a_terminal_cut_keeps_its_site(record_id, width):
    # "internal compiler error: in extract_in" / "sn, at recog.cc:2791"
    wrapped = hard_wrap(RECORDS[record_id]["trace"], width)
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert (signed.crash_type, signed.frames[0]) == (_sign(record_id).crash_type, _sign(record_id).frames[0])


@pytest.mark.parametrize(
    ("record_id", "width", "cut"),
    [
        # Cut inside the marker itself: "…base.h:279:40: internal compiler" / " error: in cp_parser_template_id…"
        ("CGAL/cgal#6295", 80, "internal compiler\n error"),
        ("uxlfoundation/oneDNN#834", 80, "internal com\npiler error"),
        # Cut inside the file: "at gimplify" / ".cc:3058" (no GCC source lacks an extension)
        ("capnproto/capnproto#1949", 80, "at gimplify\n.cc"),
        # Cut on the blank after the comma, stripped with the line's end: "in tree_to_uhwi," / "at tree.h:4519"
        ("intel/intel-graphics-compiler#132/c1", 80, "tree_to_uhwi, \nat tree.h"),
        # A frame cut in its arguments: "build_import_mapping(std::pair<unsigned int," / " std::vector<…"
        ("Rust-GCC/gccrs#4618", 80, "unsigned int,\n std::vector"),
    ],
)
def test_a_gcc_ice_a_terminal_cut_in_its_marker_file_or_frames_signs_as_the_whole_one(record_id, width, cut):
    wrapped = hard_wrap(RECORDS[record_id]["trace"], width)
    assert cut in wrapped
    assert signatures.compute(kind="crash", trace_text=wrapped, target="t").digest == _sign(record_id).digest


@pytest.mark.parametrize(
    ("record_id", "cut"),
    [
        # glibc's "file:line: " cut in its line number: "…/STLExtras.h:48" / "3: decltype(auto) …"
        ("iree-org/iree#19509", "STLExtras.h:48\n3: "),
        ("intel/llvm#10129", "SpecConstants.cpp:5\n06: "),
        # Cut on the blank before "Assertion", which went with the line's end
        ("neovim/neovim#8058", "try_leave: \nAssertion `"),
    ],
)
def test_a_glibc_assertion_whose_head_a_terminal_cut_keeps_its_function(record_id, cut):
    wrapped = hard_wrap(RECORDS[record_id]["trace"], 80)
    assert cut in wrapped
    signed = signatures.compute(kind="crash", trace_text=wrapped, target="t")
    assert signed.frames[0].startswith("site ") and signed.digest == _sign(record_id).digest


def test_a_marker_is_rejoined_only_across_a_cut_line():
    from crashes.traces.extract import clean

    cut = "x" * 70 + " internal compiler\n error: in f, at g.cc:3"
    assert "internal compiler error: in f" in clean(cut).text
    # A short line is no cut: the same words on two lines of a sentence stay apart.
    short = "the compiler reported an internal compiler\n error: in f, at g.cc:3"
    assert clean(short).text == short


@pytest.mark.parametrize("record_id", ["bpftrace/bpftrace#2366", "WebAssembly/wabt#1117"])
def test_an_assertion_cut_inside_the_word_assertion_is_read(record_id):
    # ": A" / "ssertion `…' failed." and ": Asserti" / "on `…' failed." at 120 columns.
    wrapped = hard_wrap(RECORDS[record_id]["trace"], 120)
    assert "Assertion `" not in wrapped
    assert signatures.compute(kind="crash", trace_text=wrapped, target="t").digest == _sign(record_id).digest


def test_a_compiler_drivers_line_about_its_frontend_dying_names_no_bug():
    # swift#71644 and #74545: "error: compile command failed due to signal 6", different bugs (a look-alike pair).
    line = "error: compile command failed due to signal 6 (use -v to see invocation)"
    assert line in RECORDS["swiftlang/swift#71644"]["trace"] and line in RECORDS["swiftlang/swift#74545"]["trace"]
    assert _sign("swiftlang/swift#71644").digest != _sign("swiftlang/swift#74545").digest


def test_a_crash_handlers_request_for_the_report_names_no_bug():
    # Bun's handler prints it under every crash (bun#20686).
    from crashes.signatures.unparsed import identity_line

    assert "crash report to Bun" in RECORDS["oven-sh/bun#20686"]["trace"]
    assert "crash report" not in identity_line(RECORDS["oven-sh/bun#20686"]["trace"])


def test_a_javascript_stack_is_not_read_as_dotnet_and_mono_still_is():
    script = (
        "TypeError: bad input\n"
        "    at parseThing (/app/node_modules/foo/lib/index.js:42:11)\n"
        "    at Object.<anonymous> (/app/src/main.js:10:3)\n"
    )
    assert parse(script) is None or parse(script).format != "dotnet"
    # Mono puts a blank before the parameters, and its parentheses hold parameters, not a location.
    mono = (
        "System.NullReferenceException: Object reference not set to an instance of an object\n"
        "  at NzbDrone.Core.Parser.Parse (System.String title) [0x00000] in <filename unknown>:0\n"
        "  at NzbDrone.Core.Download.Process () [0x00010] in <filename unknown>:0\n"
    )
    assert parse(mono).format == "dotnet" and parse(mono).frames[0].function.startswith("NzbDrone.Core.Parser.Parse")


def test_a_json_diagnostic_is_read_as_the_text_it_renders():
    # rls#1450: cargo run by RLS printed rustc's ICE as a JSON line; its "rendered" string is the ICE line.
    signature = _sign("rust-lang/rls#1450")
    assert signature.trace_format == "rustc-ice"
    assert signature.crash_type == "ICE: node_type: no type for node '?'"
    assert signature.frames[0].startswith("site ") and signature.frames[0].endswith("ty/context.rs")
    assert "1 JSON diagnostic rendered" in signature.repairs
    # A line that only looks like one (cut by the paste) stays as it was.
    cut = '{"message":"x","rendered":"error: internal compiler error: a.rs:1: boom\\n"'
    assert extract.clean(cut + "\n").text == cut + "\n"


def test_a_panic_raised_inside_rusts_standard_library_names_no_frame():
    # Before #[track_caller], unwrap() on None panicked at libcore/option.rs in every program: that
    # location is no frame of the bug. rustfmt#197 and #1963 are two bugs with only that line in common.
    one, other = _sign("rust-lang/rustfmt#197"), _sign("rust-lang/rustfmt#1963")
    assert not any("option.rs" in frame for frame in one.frames + other.frames)
    assert one.digest != other.digest


def test_coredumpctls_indented_stack_is_read():
    # coredumpctl info prints the crashed thread's stack indented under "Stack trace of thread N:".
    neovim = _sign("neovim/neovim#5944/c1")
    assert (neovim.trace_format, neovim.crash_type) == ("gdb", "SIGSEGV")
    assert neovim.frames == ("set_ref_in_ht", "set_ref_in_item", "garbage_collect")
    # n/a (libc.so.6 + 0x97624) frames and glibc's abort are skipped; the program's first named frames key it.
    blink = _sign("saghen/blink.cmp#1558")
    assert (blink.crash_type, blink.frames[0]) == ("SIGABRT", "marktree_intersect_pair")
    # ThinLTO's promoted local keeps its name without its .llvm.<hash> suffix.
    assert _sign("neovim/neovim#9554").frames[1] == "tui_raw_line"


def _fixture(name: str) -> str:
    return (Path(__file__).parents[1] / "traces" / name).read_text()


def test_a_trace_too_long_to_read_whole_keeps_its_first_and_last_lines():
    # Python prints the innermost frames and the exception last: a recursion printed without
    # "[Previous line repeated]" (a pure-Python frame that differs each time, or an old Python)
    # runs past any cap, and cutting its end lost the exception (python/cpython#103272's frames).
    lines = _fixture("python/recursion.txt").split("\n")
    head, frame = "\n".join(lines[:3]) + "\n", "\n".join(lines[3:6]) + "\n"  # the recursing frame, three lines
    whole = head + frame * (400 * 1024 // len(frame)) + "RecursionError: maximum recursion depth exceeded\n"
    signature = signatures.compute(kind="crash", trace_text=whole, target="t")
    assert (signature.crash_type, signature.frames[0]) == ("RecursionError", "conf/__init__.py:__getattr__")
    assert f"read its first {extract.HEAD_CHARS // 1024} KiB and last {extract.TAIL_CHARS // 1024} KiB" in (
        signature.repairs
    )
    # A Go program prints the panicking goroutine first, then every other: a dump of thousands.
    go = _fixture("go/concurrent_map_writes.txt")
    others = "\n\ngoroutine 7 [chan receive]:\nmain.worker(0xc420)\n\t/tmp/x/w.go:12 +0x4d\n" * 5000
    assert signatures.compute(kind="crash", trace_text=go + others, target="t").digest == (
        signatures.compute(kind="crash", trace_text=go, target="t").digest
    )


def test_a_stack_dump_pasted_from_frame_0_without_its_head_is_read():
    # swift#85116: the reporter pasted the frames only, from frame 0 (macOS's form): the abort's
    # frames are skipped and the type checker's function that aborted keys it.
    swift = _sign("swiftlang/swift#85116")
    assert (swift.trace_format, swift.frames[0]) == ("stack-dump", "ExprRewriter::coerceToType")
    # swift#86147 pasted frames 21 on: the pass manager's and driver's, which every crash shares.
    assert _sign("swiftlang/swift#86147").frames == ()


def test_a_build_tools_failure_line_is_no_identity():
    # ladybird#1101 ends with ninja's "build stopped: subcommand failed", as every failed build does.
    signature = _sign("LadybirdBrowser/ladybird#1101")
    assert "ninja" not in signature.message
    assert "no identifying line: a bucket of its own" in signature.repairs


def test_a_json_line_nested_to_exhaust_the_parser_is_left_as_it_was():
    # Hostile text: valid JSON, with a "rendered" key, nested deeper than Python's json can read.
    nested = '{"rendered": "x", "a": ' + "[" * 50_000 + "]" * 50_000 + "}"
    assert extract.clean(nested).text == nested
    assert signatures.compute(kind="crash", trace_text=nested, target="t").method == "message"


def test_a_json_diagnostic_whose_first_key_is_rendered_is_read():
    line = '{"rendered":"error: internal compiler error: src/a.rs:1:2: no type for node\\n","level":"error"}'
    assert extract.clean(line).text == "error: internal compiler error: src/a.rs:1:2: no type for node"


def test_a_macos_crash_report_is_not_read_as_a_headless_stack_dump():
    # clangd#186 is a crash report (its header, a crashed thread): apple's, whatever its frames look like.
    assert _sign("clangd/clangd#186").trace_format == "apple-crash"
    # A headless dump says nothing of being a compiler's: it is keyed within its target.
    assert _sign("swiftlang/swift#85116", "a").digest != _sign("swiftlang/swift#85116", "b").digest


def test_only_thinlto_s_numbered_suffix_is_dropped():
    from crashes.frames import normalize_function

    assert normalize_function("codegen.llvm.FuncGen.genBody", "native") == "codegen.llvm.FuncGen.genBody"
    assert normalize_function("tui_raw_line.llvm.5756000633998662627", "native") == "tui_raw_line"


def test_the_middle_cut_of_a_long_trace_joins_no_name():
    # The line put where the middle was cut is no rest of a name a cut-line join could take: the same
    # recursion signs alike whichever line ends the terminal used.
    frame = '  File "/app/conf/__init__.py", line 57, in __getattr__\n    self._setup(name)\n'
    body = "Traceback (most recent call last):\n" + frame * (300 * 1024 // len(frame)) + "RecursionError: x\n"
    lf, crlf = (signatures.compute(kind="crash", trace_text=t, target="t") for t in (body, body.replace("\n", "\r\n")))
    assert lf.frames == ("conf/__init__.py:__getattr__",) and lf.digest == crlf.digest


def test_a_rendered_diagnostic_is_cleaned_as_the_text_is():
    # rust-analyzer asks cargo for json-diagnostic-rendered-ansi: colours inside the JSON string.
    plain = '{"rendered":"error: internal compiler error: src/a.rs:1:2: no type for node `x`\\n"}'
    coloured = plain.replace("error: internal", "\\u001b[1m\\u001b[31merror\\u001b[0m: internal")
    assert extract.clean(coloured).text == extract.clean(plain).text
    # A lone surrogate escaped in the JSON would reach the database, which refuses it.
    lone = extract.clean('{"rendered":"error: internal compiler error: \\ud800 boom\\n"}').text
    assert lone.encode("utf-8") and "\ud800" not in lone


def test_file_names_are_masked_whole_and_fields_are_not():
    from crashes.traces.text import mask_message

    assert mask_message("index out of range in src/a/b.rs and fmt/mod.rs") == "index out of range in <path> and <path>"
    assert (
        mask_message("assertion failed: self.cfg.is_some() in lib.rs")
        == "assertion failed: self.cfg.is_some() in <path>"
    )


def test_a_headless_dump_showing_llvms_signal_handlers_stays_llvms():
    # clangd#1614 starts at frame 0 with llvm::sys::PrintStackTrace: LLVM's, keyed as LLVM's crashes are.
    clangd = _sign("clangd/clangd#1614")
    assert (clangd.trace_format, clangd.crash_type) == ("llvm", "SEGV")


def test_a_crash_handlers_own_site_fields_tell_apart_crashes_that_share_a_stock_message():
    # c3c prints "Should be unreachable" for every unreachable branch, then "- Function:" and
    # "- Source file:": #2131, #3477, #1797 and #2398 are four bugs, each filed on its own.
    ids = ["c3lang/c3c#2131", "c3lang/c3c#3477", "c3lang/c3c#1797", "c3lang/c3c#2398"]
    assert all('"Should be unreachable"' in RECORDS[i]["trace"] for i in ids)
    signed = [_sign(i) for i in ids]
    assert len({s.digest for s in signed}) == 4
    assert signed[0].message.endswith("| at sema_cast_ident_rvalue (sema_expr.c)")
    # The line number and the checkout's directory are not part of it: one assert in one
    # function stays one identity (c3c#1824 at compiler_internal.h:2930, #2044 at :2893).
    assert _sign("c3lang/c3c#1824").digest == _sign("c3lang/c3c#2044").digest


def test_the_fields_describe_the_message_just_above_them_not_a_preamble():
    # c3c#2706 first says where in the user's file it was ("Assert analysing 'main.c3' at row 3,
    # col 10."), then the assert its fields belong to.
    signature = _sign("c3lang/c3c#2706")
    assert "analysing" not in signature.message
    assert signature.message == (
        '⚠️ The compiler encountered an unexpected error: "Violated assert: !decl->is_template" '
        "| at unit_register_global_decl (context.c)"
    )


def test_coreclrs_assert_is_keyed_by_its_expression_and_site_not_by_the_dump_log():
    # dotnet/runtime#129724: "ASSERT FAILED" then Expression, Location and Function fields, then
    # createdump's log, which every crash of the runtime prints.
    signature = _sign("dotnet/runtime#129724")
    assert "createdump" not in signature.message
    assert signature.message.endswith("| at DoJITFailFast (jithelpers.cpp)")
    assert "About to FailFast" in signature.message


def test_the_site_fields_win_however_far_down_the_crash_message_is():
    from crashes.signatures.unparsed import identity_line

    text = RECORDS["c3lang/c3c#2131"]["trace"]
    alone = identity_line(text)
    assert alone.endswith("| at sema_cast_ident_rvalue (sema_expr.c)")
    # A log's own failure line before it, near or far, takes nothing over.
    for gap in (0, 9, 30):
        logged = "Job 12 failed on the second attempt of compiling mylib\n" + "build step\n" * gap + text
        assert identity_line(logged) == alone
    # Nor does a terminal cutting the long "Source file:" path at 80 columns.
    assert identity_line(hard_wrap(text, 80)) == alone


def test_coreclrs_expression_field_gives_one_identity_whatever_precedes_it():
    from crashes.signatures.unparsed import identity_line

    assert_block = (
        'ASSERT FAILED\n\tExpression: !"Unexpected error in stub generation"\n'
        "\tLocation:   /src/coreclr/vm/stubgen.cpp:943\n\tFunction:   ILStubLinker::Emit\n"
    )
    alone = identity_line(assert_block)
    assert alone.endswith("| at ILStubLinker::Emit (stubgen.cpp)")
    assert identity_line("Test Interop/StubGen failed in 3s\n" + assert_block) == alone


def test_fields_of_ordinary_log_output_name_no_site():
    from crashes.signatures.unparsed import identity_line

    # A request's method and a configuration file are no crash site.
    assert identity_line("Error: request to backend failed with status 500\nMethod: GET\n") == (
        identity_line("Error: request to backend failed with status 500\nMethod: POST\n")
    )
    assert " | at " not in identity_line("Error: loading settings failed\nFile: /etc/app/config.yaml:12\n")
    assert " | at " not in identity_line("Assertion failed in checker\nFunction: NONE\n")


def test_llvms_in_function_field_names_the_compiled_program_and_is_no_site():
    # Halide#8341: "LLVM ERROR: Cannot select: …" and "In function: Convolve", the user's pipeline.
    from crashes.signatures.unparsed import identity_line, site_fields

    text = RECORDS["halide/Halide#8341"]["trace"]
    assert "In function: Convolve" in text
    assert site_fields(text.split("\n"), 0, 100) is None
    assert "Convolve" not in identity_line(text)


def test_rustcs_llvm_error_is_read_as_llvms():
    # rustc's fatal-error handler joins its name to LLVM's words: "rustc-LLVM ERROR: Cannot select: …"
    # (the form quoted in Xtensa and RISC-V Rust reports). It says what LLVM could not select, as
    # "LLVM ERROR: …" does, and the function it was compiling (the user's) is no part of it.
    def selecting(node: str, function: str) -> str:
        return f"rustc-LLVM ERROR: Cannot select: 0x723e68d8b150: {node}\nIn function: {function}\n"

    cmp = "i64 = X86ISD::CMP 0x55d5c8d0a5e0, Constant:i64<0>"
    one = signatures.compute(kind="crash", trace_text=selecting(cmp, "_ZN3foo4main17h1234E"), target="t")
    assert one.trace_format == "llvm" and one.crash_type.startswith("LLVM ERROR: Cannot select: ")
    assert "no identifying line: a bucket of its own" not in one.repairs
    plain = signatures.compute(kind="crash", trace_text=selecting(cmp, "_ZN3bar3run17h99E")[6:], target="t")
    assert plain.digest == one.digest
    wrapper = signatures.compute(kind="crash", trace_text=selecting("i32 = XtensaISD::PCREL_WRAPPER", "f"), target="t")
    assert wrapper.digest != one.digest


def test_gccs_recog_ices_are_told_apart_by_the_instruction_the_back_end_lacks():
    # "unrecognizable insn" and "insn does not satisfy its constraints" end in recog's checks
    # whatever the bug. gcc-xtensa#14 (GCC 8, recog.c) and esp-tflite-micro#31 (GCC 12, recog.cc)
    # are one bug (the same SFmode load from the constant pool) by the reporter's link in
    # esp-tflite-micro#31 (no maintainer's word: the record says so).
    xtensa, tflite = _sign("jcmvbkbc/gcc-xtensa#14"), _sign("espressif/esp-tflite-micro#31")
    assert "at recog.c:" in RECORDS["jcmvbkbc/gcc-xtensa#14"]["trace"]
    assert "at recog.cc:" in RECORDS["espressif/esp-tflite-micro#31"]["trace"]
    assert xtensa.digest == tflite.digest
    assert xtensa.crash_type.endswith("in extract_constrain_insn, at recog.cc [set reg:SF mem:SF symbol_ref:SI]")
    # Three different back-end bugs failing in extract_insn, each filed and fixed on its own.
    others = ["riscvarchive/riscv-gcc#14", "openwall/john#251", "riscv-collab/riscv-gnu-toolchain#33"]
    assert len({_sign(i).digest for i in others}) == 3


def test_an_instructions_shape_ignores_its_registers_flags_location_and_notes():
    from crashes.traces import gcc

    ice = "x.c:9:1: internal compiler error: in extract_insn, at recog.cc:2791"
    one = '(insn 277 276 278 48 (set (reg:SI 205)\n        (const_int 2048 [0x800])) "x.c":1304:15 -1\n     (nil))'
    two = (
        "(insn 9 8 10 2 (set (reg/v:SI 99 [ n ])\n (const_int 7 [0x7])) -1\n"
        " (expr_list:REG_EQUAL (const_int 7)\n (nil)))"
    )
    shapes = {
        gcc.parse(f"error: unrecognizable insn:\n{dump}\nduring RTL pass: vregs\n{ice}").crash_type
        for dump in (one, two)
    }
    assert shapes == {"internal compiler error: in extract_insn, at recog.cc [set reg:SI const_int]"}
    # Cut short by the paste: what there is of it, not the backtrace's "(char const*" after the ICE line.
    backtrace = "0x619df0 _fatal_insn(char const*, rtx_def const*)\n0x619e12 extract_insn(rtx_insn*)"
    cut = gcc.parse(f"(insn 1 2 3 4 (set (mem:DI (plus:SI (reg:SI 2)\n{ice}\n{backtrace}").crash_type
    assert cut.endswith("[set mem:DI plus:SI reg:SI]")
    # A MEM's attributes name the program's types ("(int *)p_2"), however GCC prints them.
    for attributes in ("[1 MEM[(int *)p_2(D)]+0 S4 A32]", "[1 *p_2(D)+0 S4 A32]", "[2 MEM[(struct foo *)q]+8 S4 A32]"):
        dump = f"(insn 5 4 6 2 (set (mem:SI (reg/f:DI 100) {attributes})\n (reg:SI 101)) -1\n (nil))"
        assert gcc.parse(f"{dump}\n{ice}").crash_type.endswith("[set mem:SI reg:DI reg:SI]")
    # Modes are read whole: SVE's VNx4SI and VNx2DI are two, CC_FP is not CC.
    sve = [
        gcc.parse(f"(insn 5 4 6 2 (set (reg:{mode} 100) (reg:CC_FP 7)) -1 (nil))\n{ice}").crash_type
        for mode in ("VNx4SI", "VNx2DI")
    ]
    assert sve[0].endswith("[set reg:VNx4SI reg:CC_FP]") and sve[0] != sve[1]


@pytest.mark.parametrize("record_id", ["nginx/njs#595", "php/php-src#21245"])
@pytest.mark.parametrize("width", [80, 120])
def test_a_sanitizer_frame_a_terminal_cut_goes_on_with_the_frames_after_it(record_id, width):
    # "#0 0x7f23 in __interceptor_memmove …/sanitizer_common_intercepto" / "rs.inc:773": the stack
    # used to end at the cut, keyed on the cut frame alone.
    wrapped = hard_wrap(RECORDS[record_id]["trace"], width)
    assert signatures.compute(kind="crash", trace_text=wrapped, target="t").digest == _sign(record_id).digest


def test_a_frame_that_ends_as_frames_end_is_never_joined_to_the_next_line():
    from crashes.traces.native_frames import first_stack

    lines = [
        "    #0 0x55d2e1f3b2a8 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/bin/clang+0x2c4e2a8)",
        "clang: error: clang frontend command failed with exit code 134 (use -v to see invocation)",
    ]
    frames, end = first_stack(lines)
    assert len(frames) == 1 and frames[0].module == "/usr/bin/clang" and end == 1


def test_a_quote_indented_as_a_whole_is_unquoted_after_the_indentation():
    # NixOS/security#74: a mail reply quoting ASan's report, the whole of it indented four blanks.
    from crashes.traces.extract import clean

    assert RECORDS["NixOS/security#74"]["trace"].startswith("    On Wed")
    assert _sign("NixOS/security#74").trace_format == "sanitizer"
    # Its mail client wrapped the frames at words ("#1 0x41da34 in" / "__asan::Allocator::…"): read whole.
    frames = parse(clean(RECORDS["NixOS/security#74"]["trace"]).text).frames
    assert [f.function.split("(")[0] for f in frames] == [
        "atomic_compare_exchange_strong",
        "__asan::Allocator::AtomicallySetQuarantineFlagIfAllocated",
        "__asan::Allocator::Deallocate",
    ]
    assert frames[1].file.endswith("compiler-rt/lib/asan/asan_allocator.cc") and frames[1].line == 468
    # A quoted report pasted again as a code block signs as the quoted one.
    for record_id in ("rustls/rustls#1971", "lutris/lutris#2833"):
        block = "\n".join("    " + line for line in RECORDS[record_id]["trace"].split("\n"))
        assert signatures.compute(kind="crash", trace_text=block, target="t").digest == _sign(record_id).digest


@pytest.mark.parametrize(
    ("record_id", "form"),
    [
        # "UNREACHABLE executed at …/WebAssemblyCFG" / "Stackify.cpp:252!"
        ("rustwasm/team#168/c1", lambda text: hard_wrap(text, 80)),
        # llvm_unreachable() with no message: the line before is the prompt, not a message.
        ("rustwasm/team#168/c1", lambda text: "$ cargo build --target wasm32-unknown-unknown\n" + text),
        # A terminal padding every line with blanks: a Go file line ending "+0x157   " is still whole.
        ("golang/go#45693", lambda text: "\n".join(line + "   " for line in text.split("\n"))),
        # One blank at the width is where a cut fell: "CharPos(0) " / "} to Loc { …".
        ("rust-lang/rustfmt#1184", lambda text: hard_wrap(text, 80)),
        # A browser's copy leaving one blank at each line's end: no line is cut there.
        ("spyder-ide/spyder#22811", lambda text: "\n".join(line + " " for line in text.split("\n"))),
        # A list item holding a fence, a quote or inline code: "- ```", "- > thread …", "- `internal …`".
        *(
            (record_id, lambda text: "- " + text.replace("\n", "\n  "))
            for record_id in ("rustwasm/team#168/c1", "antonWetzel/typst-languagetool#55", "msys2/MINGW-packages#4409")
        ),
        # A report hard-wrapped as posted (at 152), pasted again with every line padded: the cuts
        # still show once the padding is gone.
        ("dafny-lang/dafny#4823", lambda text: "\n".join(line + "   " for line in text.split("\n"))),
        # A console padding every line to 80: "goroutine 1 [running]:" and its padding is not cut.
        ("golang/go#45693", lambda text: "\n".join(line.ljust(80) for line in text.split("\n"))),
    ],
)
def test_a_paste_keeps_its_signature_through_a_prompt_padding_or_a_cut(record_id, form):
    pasted = form(RECORDS[record_id]["trace"])
    assert signatures.compute(kind="crash", trace_text=pasted, target="t").digest == _sign(record_id).digest


def test_prose_after_a_stack_cut_mid_frame_is_no_part_of_its_last_frame():
    from crashes.traces.native_frames import first_stack

    lines = [
        "    #0 0x4f3c2a in png_read_row /src/libpng/pngread.c:123:5",
        "    #1 0x4f1000 in LLVMFuzzerTestOneInput /src/libpng/contrib/oss-fuzz/libpng_read_fuzzer.cc",
        "The poc file is attached.",
    ]
    frames, _ = first_stack(lines)
    assert [f.function for f in frames] == ["png_read_row", "LLVMFuzzerTestOneInput"]
    assert frames[1].file.endswith("libpng_read_fuzzer.cc")


@pytest.mark.parametrize(
    ("record_id", "site"),
    [
        ("swiftlang/swift#68380/c1", "site ASTContext.cpp"),  # swift-ide-test on Windows, then LLVM's stack dump
        ("KhronosGroup/glslang#4339", "site Types.h"),  # pasted alone, as inline code
    ],
)
def test_msvcs_assertion_is_read_with_its_file_as_the_site(record_id, site):
    # "Assertion failed: expr, file S:\\…\\ASTContext.cpp, line 1317": MSVC's C runtime names no function.
    signature = _sign(record_id)
    assert signature.trace_format == "llvm" and signature.frames[0] == site
    assert signature.crash_type.startswith("Assertion `") and signature.crash_type.endswith("' failed")


def test_an_ice_line_without_its_error_prefix_is_rustcs_when_only_rustcs_marks_are_there():
    # cargo-dist#105: a GitHub Actions annotation ("test (ubuntu-latest, nightly)internal compiler
    # error: …") with rustc's delay_span_bug and DefIds, and nothing of GCC's.
    signature = _sign("axodotdev/cargo-dist#105")
    assert signature.trace_format == "rustc-ice" and signature.crash_type.startswith("ICE: broken MIR in Item(")
    # gccrs, GCC's own Rust front end, stays GCC's: its ICE names Rust's types, not rustc's marks.
    assert _sign("Rust-GCC/gccrs#4618").trace_format == "gcc-ice"


def test_a_located_ice_line_stays_its_compilers_whatever_rustc_words_are_near():
    # A Go ICE ("./a.go:5:6: internal compiler error: …") or gccrs's ("crab1: internal compiler error")
    # in a text that also prints a rustc version stays Go's or GCC's: a location or a tool's name first.
    go = RECORDS["golang/go#45693"]["trace"] + "\nrustc 1.70.0 (90c541806 2023-05-31)\n"
    assert signatures.compute(kind="crash", trace_text=go, target="t").trace_format == "go-ice"
    gccrs = "crab1: internal compiler error: Segmentation fault\nnote: rustc 1.49.0 and DefId(0:3) in the input\n"
    assert signatures.compute(kind="crash", trace_text=gccrs, target="t").trace_format != "rustc-ice"


def test_msvcs_assertion_may_open_with_a_parenthesis_and_macos_form_stays_macos():
    from crashes.traces import parse

    msvc = parse(
        'Assertion failed: (!Node || ResNo < N) && "Invalid result", file D:\\llvm\\SelectionDAGNodes.h, line 1150'
    )
    assert msvc.crash_type == 'Assertion `(!Node || ResNo < N) && "Invalid result"\' failed'
    assert msvc.site == "SelectionDAGNodes.h"
    mac = parse("Assertion failed: (x > 0), function frob, file a.c, line 3.")
    assert mac.site == "frob"


def test_a_one_line_fence_keeps_the_text_inside_it():
    # intel/llvm#8719: the whole assertion line fenced on one line, "```clang++: …' failed.```".
    assert _sign("intel/llvm#8719").crash_type == "Assertion `idx < size()' failed"
    from crashes.traces.extract import clean

    assert (
        clean("```rust\nthread 'main' panicked at src/a.rs:1:1:\n```").text == "thread 'main' panicked at src/a.rs:1:1:"
    )


def test_a_frame_in_llvms_anonymous_namespace_keeps_its_name():
    # "(anonymous namespace)::" opens the name; a frame opening on "(" is otherwise a cut module.
    from crashes.traces.native_frames import parse_frame

    frame = parse_frame("#2 0x55 in (anonymous namespace)::Foo::bar() /x.cpp:3:1")
    assert frame.function == "(anonymous namespace)::Foo::bar()" and frame.file == "/x.cpp"
    assert parse_frame("#5 0x55d2 (/usr/bin/clang+0x2c4e5e9").module == "/usr/bin/clang+0x2c4e5e9"


def test_an_llvm_helpers_assertion_with_only_the_abort_paths_frames_keeps_its_site():
    # iree-org/iree#13475's assertion in SmallVector's operator[], as a paste cut below
    # __assert_fail would show it: the C library's frames decide nothing, what was asked for does.
    head = next(line for line in RECORDS["iree-org/iree#13475"]["trace"].split("\n") if "Assertion `" in line)
    frames = (
        "#0 0x7f1 in raise (/lib/x86_64-linux-gnu/libc.so.6+0x3bf1)\n"
        "#1 0x7f2 in abort (/lib/x86_64-linux-gnu/libc.so.6+0x22cf)\n"
    )
    cut = signatures.compute(kind="crash", trace_text=head + "\n" + frames)
    assert cut.frames == ("site llvm::SmallVectorTemplateCommon::operator[]<long>",)


def test_a_rustc_ice_cut_to_its_thread_start_frames_names_nothing():
    # facebookexperimental/MIRAI#755 and paritytech/substrate#4016: the heads cut off, only
    # "start_thread", "__clone" and "error: internal compiler error: unexpected panic" left. Two bugs.
    mirai, substrate = _sign("facebookexperimental/MIRAI#755"), _sign("paritytech/substrate#4016")
    assert "__clone" not in mirai.frames + substrate.frames
    assert mirai.digest != substrate.digest


def test_a_relative_path_in_a_message_is_masked_whole():
    # jerryscript-project/jerryscript#380 ran a checkout named jerryscript/, #740 one under
    # /home/eg/dev/jr/: the same assertion ("Duplicate of #380").
    first, second = _sign("jerryscript-project/jerryscript#380"), _sign("jerryscript-project/jerryscript#740")
    assert "jerryscript<path>" not in first.message
    assert first.digest == second.digest


def test_syslogs_and_journalds_line_heads_are_log_prefixes():
    # etcd-io/etcd#6787 ("Nov 02 19:04:52 10-10-237-29 dockerd[28586]: ") and hashicorp/nomad#2266/c1
    # ("Feb  9 20:45:46 ip-10-101-25-243 nomad-runner.sh: ", no pid): a Go panic read from the journal.
    etcd, nomad = _sign("etcd-io/etcd#6787"), _sign("hashicorp/nomad#2266/c1")
    assert etcd.trace_format == nomad.trace_format == "go"
    assert etcd.frames[0] == "github.com/coreos/etcd/raft.raft.maybeCommit"
    assert nomad.frames[0] == "github.com/hashicorp/nomad/nomad.Node.DeriveVaultToken"
    assert "log prefixes removed" in etcd.repairs
    # go-gitea/git#141: the month in the machine's language ("ian 22 19:13:51 evo gitea[9633]: ").
    gitea = extract.clean(RECORDS["go-gitea/git#141"]["trace"]).text
    assert "\n[Macaron] PANIC: runtime error" in gitea and "gitea[9633]" not in gitea
    # A line that only starts like one ("Nov 02 was the day: …") in a text that is not a log stays.
    prose = "Nov 02 19:04:52 is when it broke: see below\nthread 'main' panicked at src/main.rs:1:1:\nboom\n"
    assert extract.clean(prose).text == prose


def test_a_goroutine_stack_without_its_panic_line_is_read_by_its_frames():
    # golang/go#60551/c1 and k1LoW/sheer-heart-attack#19 pasted "goroutine N [running]:" and the
    # frames, not the panic line above them: a Go stack all the same, keyed by its top frames.
    gopls, cobra = _sign("golang/go#60551/c1"), _sign("k1LoW/sheer-heart-attack#19")
    assert gopls.trace_format == cobra.trace_format == "go"
    assert gopls.frames[0] == "golang.org/x/tools/gopls/internal/lsp/cache.snapshot.Analyze"
    assert cobra.frames[0] == "github.com/k1LoW/sheer-heart-attack/cmd.glob"


@pytest.mark.parametrize("record_id", ["etcd-io/etcd#6787", "hashicorp/nomad#2266/c1", "kubernetes/kubernetes#86676"])
def test_a_journal_a_terminal_cut_signs_as_the_whole_one(record_id):
    # Cut at 80 columns, a journal's lines go on below without their prefix: etcd's and nomad's
    # are mostly prefixed still (the cut lines are rejoined before the prefixes go); in
    # kubernetes#86676 the continuations outnumber them (taken off once the text is unwrapped).
    whole = _sign(record_id)
    assert whole.trace_format == "go"
    assert _sign_text(hard_wrap(RECORDS[record_id]["trace"], 80)).digest == whole.digest


def test_logurus_traceback_signs_as_cpythons():
    # loguru's logger.exception() (its documented form, and ignis-sh/ignis#221's): a blank between
    # frames, each value under its name ("└ 0"), and "> " before the frame that caught it.
    loguru = (
        "2024-01-04 10:44:02.288 | ERROR    | __main__:nested:10 - division by zero\n"
        "Traceback (most recent call last):\n\n"
        '  File "main.py", line 13, in <module>\n    nested(0)\n    └ <function nested at 0x1036a1080>\n\n'
        '> File "main.py", line 8, in nested\n    return divide(5, c)\n'
        "           │         └ 0\n           └ <function divide at 0x10364a340>\n\n"
        '  File "main.py", line 4, in divide\n    return a / b\n           │   └ 0\n           └ 5\n\n'
        "ZeroDivisionError: division by zero\n"
    )
    plain = (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 13, in <module>\n    nested(0)\n'
        '  File "main.py", line 8, in nested\n    return divide(5, c)\n'
        '  File "main.py", line 4, in divide\n    return a / b\n'
        "ZeroDivisionError: division by zero\n"
    )
    assert [frame.function for frame in parse(loguru).frames] == ["divide", "nested", "<module>"]
    assert _sign_text(loguru).digest == _sign_text(plain).digest


def test_an_unrecognizable_insn_pasted_without_its_ice_line_is_that_ice():
    # riscv-gnu-toolchain#1397 pasted "ldtoa.c:1413:1: error: unrecognizable insn:" and the instruction,
    # not the "internal compiler error: in extract_insn, at recog.cc" below them; #1236 (GCC PR
    # 106532, the same bug) pasted it all.
    cut, whole = _sign("riscv-collab/riscv-gnu-toolchain#1397"), _sign("riscv-collab/riscv-gnu-toolchain#1236")
    assert cut.trace_format == "gcc-ice"
    assert (
        cut.crash_type
        == whole.crash_type
        == "internal compiler error: in extract_insn, at recog.cc [set reg:SI const_int]"
    )
    assert cut.digest == whole.digest
    # The words alone, with no instruction below them, are not GCC's.
    assert parse("x.c:1:1: error: unrecognizable insn:\nsomething else\n") is None


@pytest.mark.parametrize(
    ("record_id", "site"),
    [
        # A test runner's prefix before the thread: "[x86    ] thread 'main' panicked at …".
        ("bytecodealliance/wasmtime#10929", "site codegen/src/opts.rs:189"),
        # The paste cut the line's head off: "polars-0' panicked at …".
        ("pola-rs/polars#16915", "site polars-io/src/parquet/read/read_impl.rs:733"),
        # ruff's hook prints the old form without the thread: "panicked at '…', crates/…:175:18".
        ("astral-sh/ruff#9542", "site ruff_linter/src/rules/pycodestyle/rules/invalid_escape_sequence.rs:175"),
    ],
)
def test_a_panic_line_is_read_from_its_thread_on(record_id, site):
    signature = _sign(record_id)
    assert signature.trace_format == "rust"
    assert signature.frames[0] == site


def test_a_panic_line_cut_inside_thread_is_read():
    # alacritty/alacritty#1847 begins "hread 'main' panicked at 'called `Option::unwrap()`…', libcore/…".
    signature = _sign("alacritty/alacritty#1847")
    assert signature.trace_format == "rust"
    assert signature.frames[0] == "andrew::text::Text::get_width"
    # Prose that says "panicked at" is no panic.
    assert parse("It said that it panicked at the disco, 'twice'\n") is None


def test_a_log_message_logged_twice_is_no_terminals_cut():
    # Two ERROR lines of one text are of one length: the exception below each is its own line.
    log = (
        "2024-03-01 10:00:01,000 INFO  c.e.Main - starting\n"
        "2024-03-01 10:00:03,000 ERROR c.e.Worker - job failed, will retry\n"
        "java.lang.IllegalStateException: queue closed\n\tat com.example.Worker.run(Worker.java:42)\n"
        "2024-03-01 10:00:04,000 INFO  c.e.Main - retrying\n"
        "2024-03-01 10:00:05,000 ERROR c.e.Worker - job failed, will retry\n"
        "java.lang.IllegalStateException: queue closed\n\tat com.example.Worker.run(Worker.java:42)\n"
    )
    assert _sign_text(log).crash_type == "java.lang.IllegalStateException"


def test_journal_heads_with_fractions_of_a_second_and_months_in_other_languages():
    panic = (
        "panic: boom\n\ngoroutine 1 [running]:\n"
        "main.crash()\n\t/src/app/main.go:9 +0x1d\nmain.main()\n\t/src/app/main.go:5 +0x17\n"
    )
    plain = _sign_text(panic)
    for head in ("Nov 02 19:04:52.123456 host app[7]: ", "févr. 3 19:04:52 host app[7]: ", "Mär 3 19:04:52 host app: "):
        journal = "".join(head + line + "\n" for line in panic.split("\n") if line)
        assert _sign_text(journal).digest == plain.digest, head


def test_a_dump_of_every_goroutine_without_a_panic_is_no_go_crash():
    # A pprof or SIGQUIT dump starts with the dumper's own goroutine: two such dumps share it.
    dumper = (
        "goroutine 2051 [running]:\n"
        "runtime/pprof.writeGoroutineStacks(0x1)\n\t/usr/local/go/src/runtime/pprof/pprof.go:703 +0x6a\n"
        "net/http/pprof.handler.ServeHTTP(0x1)\n\t/usr/local/go/src/net/http/pprof/pprof.go:267 +0x4a5\n"
        "net/http.HandlerFunc.ServeHTTP(0x1)\n\t/usr/local/go/src/net/http/server.go:2136 +0x29\n\n"
    )
    one = dumper + "goroutine 1 [semacquire]:\ngithub.com/acme/store.(*DB).Close(0x1)\n\t/src/acme/store.go:42 +0x88\n"
    other = dumper + "goroutine 1 [semacquire]:\ngithub.com/acme/queue.(*Q).Drain(0x1)\n\t/src/acme/queue.go:7 +0x88\n"
    assert parse(one) is None
    assert _sign_text(one).digest != _sign_text(other).digest


def test_an_unsymbolized_frame_decides_no_llvm_helpers_site():
    # The cast<> assertion cut below __assert_fail, with libLLVM's signal handler printed without a symbol.
    text = (
        "opt: /llvm/include/llvm/Support/Casting.h:578: decltype(auto) llvm::cast(From *) "
        '[To = llvm::MDNode, From = llvm::Metadata]: Assertion `isa<To>(Val) && "cast<Ty>() argument of '
        "incompatible type!\"' failed.\n"
        " #0 0x7f1 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) "
        "(/usr/lib/llvm-17/lib/libLLVM-17.so.1+0xd7d7e1)\n"
        " #1 0x7f2 (/usr/lib/llvm-17/lib/libLLVM-17.so.1+0xd7f37b)\n"
        " #2 0x7f3 (/lib/x86_64-linux-gnu/libc.so.6+0x3bf90)\n"
    )
    assert _sign_text(text).frames == ("site llvm::cast<llvm::MDNode>",)


def test_masking_keeps_the_standard_librarys_items_and_lists_that_are_no_paths():
    from crashes.traces.text import mask_message

    assert mask_message("DefId(2:3 ~ core[abcd]::marker::Sized)") == "DefId(N:N ~ core::marker::Sized)"
    assert mask_message("expected UInt8/UInt16/UInt32", quoted=False) != mask_message(
        "expected Int8/Int16/Int32", quoted=False
    )
    # rustc's own crates not named rustc_*: one file in both forms.
    relative = "thread 'rustc' panicked at compiler/stable_mir/src/mir/body.rs:12:5:\nboom\n"
    absolute = relative.replace("compiler/", "/rustc/0123456789abcdef/compiler/")
    assert _sign_text(relative).frames[0] == _sign_text(absolute).frames[0] == "site stable_mir/src/mir/body.rs"


def test_the_kotlin_compilers_codegen_wrapper_gives_way_to_what_it_wrapped():
    # FunctionCodegen.generate rethrows whatever failed as "RuntimeException: Exception while generating
    # code for: FUN …", and the root-cause line names that wrapper for every such bug. rusmonster's
    # KBugSample (tests/traces/jvm) goes on to the cause: "AssertionError: Next value after NEW should be
    # one generated by DUP" in the coroutine transformer. That is the crash.
    text = (TRACES / "jvm" / "kotlin_backend_ir_lowering_inline_suspend.txt").read_text()
    signature = _sign_text(text)
    assert signature.crash_type == "java.lang.AssertionError"
    assert signature.frames[0].endswith("UninitializedStoresProcessor.getUninitializedValueForConstructorCall")
    assert not any("FunctionCodegen" in frame for frame in signature.frames if frame.startswith("site "))
    # Another bug under the same wrapper (its cause thrown elsewhere) is another bucket.
    head = text[: text.index("Caused by: java.lang.AssertionError")]
    other = _sign_text(
        head + "Caused by: java.lang.IllegalStateException: Unbound symbol: IrSimpleFunctionSymbolImpl\n"
        "\tat org.jetbrains.kotlin.ir.symbols.impl.IrBindableSymbolBase.getOwner(IrPrivateSymbolBase.kt:54)\n"
        "\tat org.jetbrains.kotlin.backend.jvm.codegen.ExpressionCodegen.visitCall(ExpressionCodegen.kt:600)\n"
    )
    assert other.crash_type == "java.lang.IllegalStateException" and other.digest != signature.digest


def test_the_kotlin_codegen_wrapper_named_by_its_site_alone_names_no_crash():
    # JetBrains/kotlin#4806: the root-cause line names FunctionCodegen.generate, the wrapper's own block
    # left out ("...."), the cause below it pasted: that cause is the crash.
    head = (
        "e: org.jetbrains.kotlin.backend.common.BackendException: Backend Internal error: Exception during IR "
        "lowering\nFile being compiled: /w/src/A.kt\nThe root cause java.lang.RuntimeException was thrown at: "
        "org.jetbrains.kotlin.backend.jvm.codegen.FunctionCodegen.generate(FunctionCodegen.kt:50)\n"
        "  at org.jetbrains.kotlin.backend.common.CodegenUtil.reportBackendException(CodegenUtil.kt:239)\n....\n"
    )
    cause = (
        "Caused by: java.lang.IllegalStateException: Unbound symbol: IrSimpleFunctionSymbolImpl\n"
        "\tat org.jetbrains.kotlin.ir.symbols.impl.IrBindableSymbolBase.getOwner(IrPrivateSymbolBase.kt:54)\n"
    )
    signature = _sign_text(head + cause)
    assert signature.crash_type == "java.lang.IllegalStateException"
    assert signature.frames[0] == "org.jetbrains.kotlin.ir.symbols.impl.IrBindableSymbolBase.getOwner"
    # Cut below the wrapper's line (Kotlin/kotlinx.serialization#1646 and #1943, two bugs): nothing names
    # the crash, and the compiler's banners and Gradle's task line do not either.
    assert "no identifying line: a bucket of its own" in _sign("Kotlin/kotlinx.serialization#1646").repairs
    assert _sign("Kotlin/kotlinx.serialization#1646").digest != _sign("Kotlin/kotlinx.serialization#1943").digest
    for line in (
        "> Task :app:compileDebugKotlin FAILED",
        "e: org.jetbrains.kotlin.backend.common.BackendException: Backend Internal error: Exception during IR lowering",
        "e: org.jetbrains.kotlin.codegen.CompilationException: Back-end (JVM) Internal error: Couldn't transform "
        "method node:",
        "Kotlin: [Internal Error] org.jetbrains.kotlin.backend.common.BackendException:",
    ):
        assert unparsed.identity_line(line) == "", line


def test_the_kotlin_compilers_root_cause_in_a_module_or_the_jdk():
    # kotest/kotest-intellij-plugin#129: "…was thrown at: jdk.zipfs/jdk.nio.zipfs.ZipFileSystem.newInputStream(…)",
    # the function after its Java module as a frame names it; Kotlin/kotlinx.serialization#3179's was thrown by
    # the JDK's own bounds check, behind every ArrayList.get out of range: no site, the chain's frames decide.
    head = (
        "e: org.jetbrains.kotlin.backend.common.BackendException: Backend Internal error: "
        "Exception during IR lowering\nFile being compiled: /p/src/A.kt\nThe root cause {type} was thrown at: {at}\n"
        "\tat org.jetbrains.kotlin.backend.common.CodegenUtil.reportBackendException(CodegenUtil.kt:253)\n"
    )
    zipfs = head.format(
        type="java.nio.file.NoSuchFileException",
        at="jdk.zipfs/jdk.nio.zipfs.ZipFileSystem.newInputStream(ZipFileSystem.java:591)",
    )
    assert parse(zipfs).crash_type == "java.nio.file.NoSuchFileException"
    bounds = head.format(
        type="java.lang.IndexOutOfBoundsException",
        at="java.base/jdk.internal.util.Preconditions.outOfBounds(Preconditions.java:64)",
    ) + (
        "Caused by: java.lang.IndexOutOfBoundsException: Index 1 out of bounds for length 1\n"
        "\tat java.base/jdk.internal.util.Preconditions.outOfBounds(Preconditions.java:64)\n"
        "\tat java.base/java.util.ArrayList.get(ArrayList.java:427)\n"
        "\tat org.jetbrains.kotlin.backend.jvm.codegen.IrInlineCodegen.genValueAndPut(IrInlineCodegen.kt:88)\n"
    )
    signature = _sign_text(bounds)
    assert signature.crash_type == "java.lang.IndexOutOfBoundsException"
    assert not any(frame.startswith("site ") for frame in signature.frames)
    assert signature.frames[0] == "org.jetbrains.kotlin.backend.jvm.codegen.IrInlineCodegen.genValueAndPut"


def test_the_kotlin_compilers_root_cause_line_names_the_crash_and_its_site():
    # maxkeppeler/sheets#73 pasted BackendException's head alone: "The root cause java.lang.X was thrown at:
    # f(F.kt:N)" is the crash. (JetBrains/compose-multiplatform#3858, cut one frame later, names only the
    # code generator's wrapper there: a bucket of its own, test_the_kotlin_codegen_wrapper_…)
    sheets, compose = _sign("maxkeppeler/sheets#73"), _sign("JetBrains/compose-multiplatform#3858")
    assert (sheets.crash_type, sheets.frames) == (
        "java.lang.AssertionError",
        ("site org.jetbrains.kotlin.ir.util.TypeTranslator.toIrTypeAbbreviation",),
    )
    assert "no identifying line: a bucket of its own" in compose.repairs
    # The whole chain of sheets#73's crash finds the bucket of the head alone (same site and type).

    whole = RECORDS["maxkeppeler/sheets#73"]["trace"].rstrip("\n") + (
        "\n\tat org.jetbrains.kotlin.backend.common.CodegenUtil.reportBackendException(CodegenUtil.kt:253)\n"
        "Caused by: java.lang.AssertionError: Unexpected type\n"
        "\tat org.jetbrains.kotlin.ir.util.TypeTranslator.toIrTypeAbbreviation(TypeTranslator.kt:167)\n"
        "\tat org.jetbrains.kotlin.ir.util.TypeTranslator.translateType(TypeTranslator.kt:120)\n"
    )
    full = _sign_text(whole)
    assert full.crash_type == "java.lang.AssertionError"
    score = similarity.similarity(similarity.shape_of(full), similarity.shape_of(sheets)).score
    assert score >= similarity.THRESHOLD


def test_a_dotnet_stack_pasted_without_its_exception_is_read_by_its_frames():
    # dafny-lang/dafny#3615 pasted the frames alone: "   at Microsoft.Dafny.Cloner.CloneExpr(Expression expr)".
    signature = _sign("dafny-lang/dafny#3615")
    assert signature.trace_format == "dotnet"
    assert signature.frames[:2] == ("Microsoft.Dafny.Cloner.CloneExpr", "Microsoft.Dafny.Cloner.CloneExprInner")
    # JavaScript's frames, and prose that starts with "at", are not .NET's.
    js = "    at foo (/app/a.js:1:2)\n    at bar (/app/b.js:3:4)\n    at baz (/app/c.js:5:6)\n"
    prose = "at first we tried it\nat least it works\nat the end it crashed\n"
    assert parse(js).format == "javascript" and parse(prose) is None


def test_the_kotlin_root_cause_line_a_terminal_cut_is_read_whole():
    text = RECORDS["maxkeppeler/sheets#73"]["trace"]
    cut = hard_wrap(text, 100)
    assert cut != text
    assert _sign_text(cut).digest == _sign("maxkeppeler/sheets#73").digest


def test_a_stock_rust_panic_at_the_standard_librarys_location_names_nothing():
    # rust-lang/rustfmt#197 ("called `Option::unwrap()` on a `None` value', ../src/libcore/option.rs:364")
    # and nushell/nushell#707 (index out of bounds in libcore/slice): the thread's name and the standard
    # library's path made the line look specific, so every such panic of a target shared one bucket.
    for record_id in ("rust-lang/rustfmt#197", "nushell/nushell#707"):
        signature = _sign(record_id)
        assert signature.repairs[-1] == "no identifying line: a bucket of its own"
    # The value unwrap() found does name something (alacritty#2720/c1: Os { kind: NotFound }).
    found = _sign("alacritty/alacritty#2720/c1")
    assert "NotFound" in found.message and "no identifying line: a bucket of its own" not in found.repairs


def test_a_rustc_ice_with_a_stock_message_keeps_its_sites_line():
    # rustls#1971: "index out of bounds" at rustc_codegen_ssa/src/back/link.rs, no backtrace: the file
    # holds many indexings, so its line says which. kani#1593: assert_eq!'s operands name nothing.
    assert _sign("rustls/rustls#1971").frames[0] == "site rustc_codegen_ssa/src/back/link.rs:2700"
    kani = _sign("model-checking/kani#1593").frames[0]
    assert kani == "site kani-compiler/src/codegen_cprover_gotoc/codegen/rvalue.rs:883"
    # With its backtrace too (rustc_codegen_gcc#47, "not implemented" in src/builder.rs), so that the
    # report pasted without it still finds the bucket by its site.
    codegen = RECORDS["rust-lang/rustc_codegen_gcc#47"]["trace"]
    framed, frameless = _sign_text(codegen), _sign_text(codegen.split("stack backtrace:")[0])
    assert frameless.frames == ("site src/builder.rs:1527",)
    assert framed.frames == ("site src/builder.rs:1527", "rustc_codegen_ssa::mir::codegen_mir")
    match = similarity.similarity(similarity.shape_of(frameless), similarity.shape_of(framed))
    assert match.score >= similarity.THRESHOLD
    # A message that names the bug keeps the file alone, as rustc's triagers do (serde#623).
    assert _sign("serde-rs/serde#623").frames[0] == "site librustc_metadata/decoder.rs"


@pytest.mark.parametrize(
    "message",
    [
        "assertion failed: `(left == right)`\n  left: `1`,\n right: `2`",
        "assertion `left == right` failed\n  left: 1\n right: 2",
        "no entry found for key",
        "already borrowed: BorrowMutError",
        "already mutably borrowed: BorrowError",
        "byte index 5 is not a char boundary; it is inside 'x' (bytes 4..6) of `abc`",
        "internal error: entered unreachable code",
        "attempt to divide by zero",
        "LLVM ERROR: Broken function found, compilation aborted!",
        "fatal error: all goroutines are asleep - deadlock!",
    ],
)
def test_a_runtimes_stock_message_names_no_bug(message):
    assert unparsed.is_generic(mask_message(message, 160))


def test_a_stock_message_with_the_programs_own_words_still_names_one():
    # bevy#170: assert_eq! with its own message after the operands.
    assert not unparsed.is_generic(_sign("bevyengine/bevy#170").crash_type)
    assert not unparsed.is_generic(mask_message("internal error: entered unreachable code: no sizeof", 160))


def test_llvms_verifier_banner_alone_names_nothing():
    # Every verifier failure prints "LLVM ERROR: Broken function found, compilation aborted!": the check above
    # its IR dump says what was broken (rust-lang/cargo#1667: "Attributes 'readnone and readonly' are
    # incompatible!", then the function's type; crashes.traces.llvm_verifier, v23).
    assert (
        _sign("rust-lang/cargo#1667").crash_type == "LLVM ERROR: Broken function found: Attributes '?' are incompatible"
    )
    detail = "Instruction does not dominate all uses!\nLLVM ERROR: Broken function found, compilation aborted!\n"
    assert _sign_text(detail).message == "LLVM ERROR: Broken function found: Instruction does not dominate all uses"
    alone = "$ make\nLLVM ERROR: Broken function found, compilation aborted!\n"
    assert _sign_text(alone).repairs[-1] == "no identifying line: a bucket of its own"


def test_the_standard_librarys_raising_frames_give_way_to_the_programs():
    # rustfmt#5739: core::str::slice_error_fail_rt raised; FmtVisitor::format_missing_indent sliced.
    assert _sign("rust-lang/rustfmt#5739").frames[1] == "rustfmt_nightly::visitor::FmtVisitor::format_missing_indent"
    # gfx-rs/wgpu#8389: Option::unwrap is where the panic was raised, not the bug.
    assert _sign("gfx-rs/wgpu#8389").frames[1] == "naga::proc::emitter::Emitter::finish"


def test_rustcs_plumbing_before_2020_is_no_frame():
    # Before the 2020 split, rustc_middle's bug machinery was rustc::util::bug and rustc::ty::context::tls.
    old = (
        "error: internal compiler error: unexpected panic\n\n"
        "thread 'rustc' panicked at 'Box<Any>', src/librustc_errors/lib.rs:892:9\n"
        "stack backtrace:\n"
        "   0: rustc_errors::HandlerInner::span_bug\n"
        "   1: rustc::util::bug::opt_span_bug_fmt::{{closure}}\n"
        "   2: rustc::ty::context::tls::with_opt::{{closure}}\n"
        "   3: rustc::util::bug::span_bug_fmt\n"
        "   4: rustc_typeck::check::FnCtxt::check_expr_kind\n"
        "query stack during panic:\n#0 [typeck_tables_of] processing `main`\nend of query stack\n"
    )
    assert _sign_text(old).frames == ("query typeck_tables_of", "rustc_typeck::check::FnCtxt::check_expr_kind")


def test_rusts_stock_panic_message_joins_no_bucket_by_itself():
    # alacritty#3683 (unwrap() in winit's Wayland window) and #1847 (in andrew's text width): two bugs whose
    # only common ground is "called `Option::unwrap()` on a `None` value", backticks and all.
    wayland, text = _sign("alacritty/alacritty#3683"), _sign("alacritty/alacritty#1847")
    assert wayland.fuzzy_message == text.fuzzy_message == ""
    score = similarity.similarity(similarity.shape_of(wayland), similarity.shape_of(text)).score
    assert score < similarity.THRESHOLD


def test_a_gdb_call_whose_arguments_run_on_is_named_by_its_function():
    # iree-org/iree#19785: "#5 … in __assert_fail_base (fmt=… \"%s%s…\", assertion=… \"idx < size()\"," went on
    # to the next line; the piece after its last blank ('size()",') was read as a function that decided it.
    parsed = parse(RECORDS["iree-org/iree#19785"]["trace"])
    assert parsed.frames[-1].function == "__assert_fail_base"
    assert _sign("iree-org/iree#19785").frames == ("site llvm::SmallVectorTemplateCommon::operator[]<long>",)


def test_the_panic_hooks_frames_above_rust_panic_with_hook_are_no_frames():
    # astral-sh/ruff#13392: ruff's server hook (Server::run::{{closure}}) printed the panic; the crash is
    # LineIndex::line_range. rust-lang/rls#609: the hook's allocation (_rdl_grow_in_place).
    assert _sign("astral-sh/ruff#13392").frames[1] == "ruff_source_file::line_index::LineIndex::line_range"
    assert _sign("rust-lang/rls#609").frames[0] == "rustc_save_analysis::sig::assoc_type_signature"


def test_a_line_rust_prints_after_the_panic_message_is_no_message():
    # oferchen/rsync#6585 (a CI log): the location's line and rustc's banner, the message lost between.
    text = "thread 'rustc' panicked at compiler/rustc_ast/src/attr/mod.rs:307:36\n"
    text += "error: the compiler unexpectedly panicked. this is a bug.\n"
    signature = _sign_text(text)
    assert signature.crash_type == "ICE:"
    assert signature.frames == ("site rustc_ast/src/attr/mod.rs:307",)


def test_a_tools_panic_banner_and_a_bare_panic_location_name_nothing():
    # model-checking/kani#3596 ends with Kani's banner after a backtrace tail of rustc's thread plumbing
    # (a Rust impl cut before its brackets close, "<<std[…]::thread::Builder>::spawn_unchecked_<…").
    kani = (
        "  27:     0x7763dafebf3a - <<std[30db60597c87498f]::thread::Builder>::spawn_unchecked_<rustc_interface"
        "[9081e2b11a975511]::util::run_in_thread_with_globals<rustc_interface[9081e2b11a975511]::util::run_in_"
        "thread_pool_with_globals<\n"
        "  28:     0x7763dafec32b - std::sys::pal::unix::thread::Thread::new::thread_start::h44e9704e75fad799\n"
        "  29:     0x7763d54a339d - <unknown>\n\n"
        "Kani unexpectedly panicked during compilation.\n"
        "Please file an issue here: https://github.com/model-checking/kani/issues/new?labels=bug\n"
    )
    assert _sign_text(kani).repairs[-1] == "no identifying line: a bucket of its own"
    # viperproject/prusti-dev#1493: Rust 1.73's panic line holds the location alone (here rustc_errors',
    # which only raised it); its message, "Box<dyn Any>", names nothing either.
    prusti = (
        "thread 'rustc' panicked at /rustc/ca2b74f1ae5075d62e223c0a91574a1fc3f51c7c/compiler/rustc_errors/src/"
        "lib.rs:995:33:\nBox<dyn Any>\n"
    )
    assert _sign_text(prusti).repairs[-1] == "no identifying line: a bucket of its own"


def test_what_unwrap_found_still_names_a_bucket_for_the_fuzzy_stage():
    text = (
        "thread 'main' panicked at src/render.rs:88:41:\ncalled `Result::unwrap()` on an `Err` value: "
        'ShaderCompile("missing uniform block camera_matrices in terrain.wgsl")\n'
    )
    assert "ShaderCompile" in _sign_text(text).fuzzy_message


def test_a_c_assertion_with_its_expression_quoted_still_names_a_bug():
    # Rust's assert_eq! operands name nothing; GLib's or systemd's "Assertion 'fd >= 0' failed" does.
    assert not unparsed.is_generic(mask_message("Assertion 'fd >= 0' failed", 160))


def test_cores_indexing_implemented_for_a_type_is_no_frame():
    # nushell/nushell#12969: "<usize as core::slice::index::SliceIndex<[T]>>::index" read "usize::index".
    # (Its miette report's site comes first since v19.)
    assert _sign("nushell/nushell#12969").frames[1] == "nu_parser::parser::parse_builtin_commands"


def test_an_llvm_crash_is_keyed_within_its_target():
    # ziglang/zig#12022: LLVM's DwarfExpression assertion reached through Zig's frontend. LLVM is a
    # library every language's compiler embeds; the same assertion filed against another project (a
    # Rust or Swift frontend handing LLVM its own bad debug info) is that project's bug.
    zig = _sign("ziglang/zig#12022", target="ziglang/zig")
    elsewhere = _sign("ziglang/zig#12022", target="swiftlang/swift")
    assert zig.frames == elsewhere.frames and zig.digest != elsewhere.digest
    # A rustc ICE names a place in rustc and stays shared (test_a_programs_crash_is_keyed_within_its_target…).
    # llvm/torch-mlir#2096 and ROCm/triton#725 (its line from the report): cast<mlir::RankedTensorType>
    # failed for whatever code called it, and nothing says which: one bug per program, not one for all.
    triton = (
        "python: /root/.triton/llvm/llvm-1188b1ff-ubuntu-x64/include/llvm/Support/Casting.h:566: decltype(auto) "
        "llvm::cast(const From&) [with To = mlir::RankedTensorType; From = mlir::Type]: Assertion `isa<To>(Val) && "
        '"cast<Ty>() argument of incompatible type!"\' failed.\n'
    )
    torch = signatures.compute(kind="crash", trace_text=RECORDS["llvm/torch-mlir#2096"]["trace"], target="torch")
    rocm = signatures.compute(kind="crash", trace_text=triton, target="triton")
    assert torch.frames[0] == rocm.frames[0] == "site llvm::cast<mlir::RankedTensorType>"
    assert torch.digest != rocm.digest
    assert signatures.compute(kind="crash", trace_text=triton, target="torch").digest == torch.digest
    # macOS names the helper bare: oclint/oclint#121's and cppit/libclangmm#13's "function doit" is
    # isa_impl_cl<…>::doit, no site of its own.
    oclint = (
        'Assertion failed: (Val && "isa<> used on a null pointer"), function doit, file '
        "/Users/lqi/Projects/LQRDG/oclint-0.7/build/llvm-install/include/llvm/Support/Casting.h, line 97.\n"
    )
    assert parse(oclint).site == ""
    assert _sign_text(oclint, "oclint").digest != _sign_text(oclint.replace("line 97", "line 95"), "libclangmm").digest


def test_libfuzzers_user_hooks_are_the_programs_frames():
    # LLVMFuzzerCustomMutator is the fuzz target's own code, not LLVM's C API.
    text = (
        "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020000000b1\n"
        "READ of size 1 at 0x6020000000b1 thread T0\n"
        "    #0 0x55d1 in LLVMFuzzerCustomMutator /src/proj/fuzz/mutator.cc:41:12\n"
        "    #1 0x55d2 in fuzzer::MutationDispatcher::Mutate(unsigned char*, unsigned long, unsigned long)\n"
    )
    assert "LLVMFuzzerCustomMutator" in _sign_text(text).frames


def test_llvms_c_api_is_no_frame():
    # ziglang/zig#7503: gdb's backtrace through LLVMVerifyModule, which Zig's do_code_gen called.
    zig = (
        "#4  0x00007ffff3245d39 in llvm::verifyModule(llvm::Module const&, llvm::raw_ostream*, bool*) () from "
        "/usr/lib/libLLVM-11.so\n#5  0x00007ffff441830c in LLVMVerifyModule () from /usr/lib/libLLVM-11.so\n"
    )
    assert "LLVMVerifyModule" not in " ".join(_sign_text("Program received signal SIGSEGV\n" + zig).frames)


def test_a_crash_reporters_own_log_lines_are_no_identity():
    # modular/modular#2958 and #1868: crashpad's "tag not found" under every Mojo crash.
    log = "[38691:38691:20240605,083724.595583:ERROR elf_dynamic_array_reader.h:64] tag not found\n"
    assert unparsed.identity_line(log) == ""
    # Chromium's own log (an Electron app's) says what crashed.
    gpu = "[12345:12345:0605/083724.595583:ERROR:gpu_process_host.cc(1005)] GPU process exited unexpectedly\n"
    assert "GPU process exited unexpectedly" in unparsed.identity_line(gpu)


@pytest.mark.parametrize(
    "line",
    [
        "lto-wrapper.exe: fatal error: avr-gcc returned 1 exit status",  # FastLED/FastLED#874
        "collect2.exe: error: ld returned 1 exit status",  # FastLED/FastLED#732
        "clang: error: linker command failed with exit code 1 (use -v to see invocation)",
        "error: linking with `cc` failed: exit status: 1",  # rustc's, since 1.58
        "error: linking with `link.exe` failed: exit code: 1120",
    ],
)
def test_a_driver_saying_a_tool_it_ran_failed_names_no_bug(line):
    assert unparsed.identity_line(line) == ""


def test_the_linkers_own_line_names_what_rustcs_link_step_lacked():
    # Below rustc's "linking with `cc` failed", the linker says why: two such failures of one target
    # are told apart by it, never put together by rustc's line.
    def failed(why: str) -> str:
        return f'error: linking with `cc` failed: exit status: 1\n  |\n  = note: "cc" "-m64" "x.o"\n  = note: {why}\n'

    ssl = signatures.compute(
        kind="crash", trace_text=failed("/usr/bin/ld: cannot find -lssl: No such file or directory"), target="t"
    )
    gcc = signatures.compute(
        kind="crash", trace_text=failed("/usr/bin/ld: cannot find -lgcc_s: No such file or directory"), target="t"
    )
    assert "cannot find -lssl" in ssl.message and ssl.digest != gcc.digest


def test_a_gcc_segfault_with_nothing_but_the_drivers_lines_is_a_bucket_of_its_own():
    # FastLED/FastLED#874: "internal compiler error: Segmentation fault" and lto-wrapper's exit status.
    assert _sign("FastLED/FastLED#874").repairs[-1] == "no identifying line: a bucket of its own"


def test_stock_lines_of_zig_and_a_compilers_input_position_name_no_bug():
    # ziglang/zig#18442 (Asahi Linux's page size) and #21099 (generic poison): different bugs, each
    # "thread N panic: reached unreachable code" with no frames; #18442 adds Zig's "Panicked during a
    # panic" and its build runner's "the following build command crashed". None names the bug.
    for record_id in ("ziglang/zig#18442", "ziglang/zig#21099"):
        signature = _sign(record_id)
        assert signature.crash_type == "unidentified crash", record_id
    assert _sign("ziglang/zig#18442").digest != _sign("ziglang/zig#21099").digest
    # golang/go#54165 and #54169: two bugs, each a bare "x.go:85:45: internal compiler error: assertion
    # failed" with no stack; the position is in the user's program, the assertion is any of many.
    first, second = _sign("golang/go#54165"), _sign("golang/go#54169")
    assert RECORDS["golang/go#54165"]["bug"] != RECORDS["golang/go#54169"]["bug"]
    assert "no identifying line: a bucket of its own" in first.repairs
    assert first.digest != second.digest


def test_a_failure_word_inside_a_name_reports_no_failure():
    # oven-sh/bun#28781 and #24895: Bun's crash header lists "abort_signal(4268)" among its features
    # and "node:assert" among its builtins; neither line says what failed (the crash is a segfault).
    for record_id in ("oven-sh/bun#28781", "oven-sh/bun#24895"):
        signature = _sign(record_id)
        assert not signature.message.startswith(("Features:", "Builtins:")), record_id
    assert not unparsed._reports_failure('Builtins: "bun:main" "node:assert" "node:buffer"')
    assert not unparsed._reports_failure("Features: abort_signal(4268) fetch(37892) jsc")
    assert unparsed._reports_failure("Assertion failed: x, file a.c, line 3")
    assert unparsed._reports_failure("thread 'main' panicked at src/main.rs:4:5")


def test_a_python_file_is_one_key_installed_or_checked_out():
    # pylint-dev/pylint#6037 ran pylint and astroid from checkouts (/home/florian/proj/pylint/astroid/
    # astroid/nodes/node_ng.py), #6048 from site-packages (c:\program files\python37\lib\site-packages\
    # astroid\nodes\node_ng.py); one fix closed both.
    checkout, installed = _sign("pylint-dev/pylint#6037"), _sign("pylint-dev/pylint#6048")
    assert checkout.frames == installed.frames
    assert checkout.frames[0] == "node_ng.py:child_sequence"
    assert checkout.digest == installed.digest
    # A top-level module is the file's own name, wherever the package manager put it.
    assert normalize_path("/usr/lib/python3/dist-packages/six.py") == "six.py"
    assert normalize_path("C:\\Python37\\Lib\\site-packages\\six.py") == "six.py"
    assert normalize_path("/home/u/six/six.py") == "six/six.py"


def test_android_studios_logcat_columns_and_pytests_marks_are_log_prefixes():
    # InsertKoinIO/koin#1237: copied from Android Studio's Logcat panel, every line behind its tag column
    # (blank where it repeats) and level ("E  "); the same crash as #1188, pasted bare.
    pasted = _sign("InsertKoinIO/koin#1237")
    assert "log prefixes removed" in pasted.repairs
    assert pasted.trace_format == "jvm" and pasted.crash_type == "java.lang.NoSuchMethodError"
    assert pasted.frames[:2] == _sign("InsertKoinIO/koin#1188").frames[:2]
    # tsnlab/connx#75: pytest's "E   " before each line of the failure.
    assert _sign("tsnlab/connx#75").message == "TypeError: Descriptors cannot not be created directly"


def test_a_stack_overflow_is_keyed_by_its_recursion_whichever_call_ran_out():
    # Kotlin/kotlinx.coroutines#2371: three people's StackOverflowError in one cycle of four toString
    # calls, each run out of stack in another of them (one fix closed it).
    ids = ("Kotlin/kotlinx.coroutines#2371", "Kotlin/kotlinx.coroutines#2371/c1", "Kotlin/kotlinx.coroutines#2371/c2")
    tops = {_sign(record_id).frames[0] for record_id in ids}
    assert len({_sign(record_id).digest for record_id in ids}) == 1
    assert tops == {"kotlinx.coroutines.CancellableContinuationImpl.toString"}
    # Another exception in the same calls is thrown where it is: that place is no chance.
    thrown = RECORDS["Kotlin/kotlinx.coroutines#2371/c1"]["trace"].replace(
        "java.lang.StackOverflowError", "java.lang.IllegalStateException"
    )
    assert _sign_text(thrown).frames[0] == "kotlinx.coroutines.DisposeOnCancel.toString"


def test_the_kotlin_ir_backends_compilation_exception_is_the_error_it_details():
    # realm/realm-kotlin#1024: "CompilationException: Back-end: Please report this problem", the file,
    # then "Details: Internal error in file lowering: java.lang.NoSuchMethodError: …"; another user's
    # paste in the thread starts at that line. One crash of Realm's plugin on a new Kotlin release.
    wrapped, bare = _sign("realm/realm-kotlin#1024"), _sign("realm/realm-kotlin#1024/c1")
    assert wrapped.crash_type == bare.crash_type == "java.lang.NoSuchMethodError"
    assert wrapped.digest == bare.digest


def test_a_frame_cut_inside_its_name_at_the_end_of_a_paste_is_no_frame():
    # rust-lang/miri#4698, #4706 and bevyengine/bevy#21874 (closed by the Miri fix of #4698): rustc's
    # assertion at teardown, each stored cut inside a frame of the panic machinery ("11: 0x115fde5ac - co",
    # "8: 0x72f5d68fc3f9 - std::"). A piece of a name is not a frame: the three are one bucket.
    signed = [_sign(rid) for rid in ("rust-lang/miri#4698", "rust-lang/miri#4706", "bevyengine/bevy#21874")]
    assert len({signature.digest for signature in signed}) == 1
    assert "co" not in signed[2].frames and "std" not in signed[0].frames
    # A last frame whole (its hash printed) stays a frame.
    whole = "thread 'main' panicked at src/a.rs:1:1:\nboom\nstack backtrace:\n   0: app::f::h0123456789abcdef\n"
    assert "app::f" in _sign_text(whole).frames
    # With no hashes printed at all (a v0 build), nothing tells a cut: the frame stays.
    assert "app::f" in _sign_text(whole.replace("::h0123456789abcdef", "")).frames
    cut = whole + "   1: 0x1 - ap"
    assert _sign_text(cut).frames == _sign_text(whole).frames


def test_msvcs_names_read_as_gcc_and_clang_print_them():
    # qgis/QGIS#32592 (a Windows build's crash dialog): "QgsNetworkContentFetcherTask::`vector deleting
    # destructor' :", the wrapper MSVC emits around the destructor, just below it in the stack.
    wrapper = "QgsNetworkContentFetcherTask::`vector deleting destructor'"
    assert normalize_function(wrapper, "native") == "QgsNetworkContentFetcherTask::~QgsNetworkContentFetcherTask"
    signed = "void * __ptr64 __cdecl Foo::`scalar deleting destructor'(unsigned int) __ptr64"
    assert normalize_function(signed, "native") == "Foo::~Foo"
    # MSVC's anonymous namespace, like GCC's "(anonymous namespace)::", names no part of the function.
    assert normalize_function("`anonymous namespace'::Walker::visit", "native") == normalize_function(
        "(anonymous namespace)::Walker::visit(int)", "native"
    )
    assert normalize_function("Foo::bar() const __ptr64", "native") == "Foo::bar"


def test_an_assertion_cut_inside_its_expression_finds_the_whole_one_by_its_start():
    # swiftlang/swift#75311 (AnthonyLatsis: "Duplicate of #66392"), stored cut inside the expression of
    # glibc's assertion line; #66392 printed it whole, in macOS's form. Both fail in extractElements.
    cut, whole = _sign("swiftlang/swift#75311"), _sign("swiftlang/swift#66392")
    assert cut.crash_type == "Assertion `!tupleTy.containsPackExpansionType("  # kept open: its start
    match = similarity.similarity(similarity.shape_of(cut), similarity.shape_of(whole))
    assert match.score >= similarity.THRESHOLD and match.matched == ("site extractElements",)
    # Another assertion in the same function that merely starts alike is not the cut one's whole.
    other = replace(whole, fuzzy_crash_type="Assertion `!tupleTy.containsPackExpansionTypes()' failed")
    assert similarity.similarity(similarity.shape_of(cut), similarity.shape_of(other)).score < similarity.THRESHOLD
    # A start too short to say anything alone matches nothing.
    short = replace(cut, fuzzy_crash_type="Assertion `!tupleTy.c")
    assert similarity.similarity(similarity.shape_of(short), similarity.shape_of(whole)).score < similarity.THRESHOLD


def test_a_stock_message_with_its_type_and_a_sanitizers_notes_are_no_identity():
    # Frameless .NET reports saying only "System.NullReferenceException: Object reference not set…": two
    # programs' different crashes shared a bucket by that line.
    nre = "System.NullReferenceException: Object reference not set to an instance of an object.\n"
    one, other = _sign_text("I clicked save.\n" + nre, "app"), _sign_text("Export failed.\n" + nre, "app")
    assert one.digest != other.digest
    assert "no identifying line: a bucket of its own" in one.repairs
    # A sanitizer report cut before its frames: its headline and notes are every SEGV's.
    for asan in (
        "==12==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x55 bp 0x7ff sp 0x7ff T0)\n",
        "==9==ERROR: AddressSanitizer: SEGV on unknown address 0x10 (pc 0x5 bp 0x7 sp 0x7 T0)\n"
        "==9==The signal is caused by a READ memory access.\n==9==Hint: address points to the zero page.\n",
    ):
        assert "no identifying line: a bucket of its own" in _sign_text(asan, "app").repairs
    # Its SUMMARY line names the function: that is an identity.
    summary = "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/png.c:12 in png_read_row\n"
    assert "png_read_row" in _sign_text(summary, "app").message
    # A macOS report's header fields are every crash's.
    header = "VM Region Info: 0 is not in any region.  Bytes before following region: 4413186048\n"
    assert "no identifying line: a bucket of its own" in _sign_text(header, "app").repairs


def test_a_sanitizer_report_cut_before_its_frames_is_no_bucket_of_its_kind():
    # libjpeg-turbo#670 and #669: two different heap-use-after-free bugs in djpeg, each pasted up to its
    # ASan headline. The kind of error ("heap-use-after-free READ") is every such report's.
    one, other = _sign("libjpeg-turbo/libjpeg-turbo#670"), _sign("libjpeg-turbo/libjpeg-turbo#669")
    assert one.crash_type == other.crash_type == "heap-use-after-free READ"
    assert one.digest != other.digest
    assert "no identifying line: a bucket of its own" in one.repairs


def test_a_frame_line_cut_inside_its_address_names_nothing():
    # libjpeg-turbo#675, stored cut at "    #0 0": no frame named "0".
    assert "0" not in _sign("libjpeg-turbo/libjpeg-turbo#675").frames
    assert _sign("libjpeg-turbo/libjpeg-turbo#674").frames[0] == "quantize_ord_dither"
