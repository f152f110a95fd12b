"""Compilers' crash messages as they differ between two reports of one bug (signatures v23 and v24), on real reports.

- LLVM's verifier ends every front end's bad IR with "LLVM ERROR: Broken function found, compilation
  aborted!": before v23 that line (or a prompt above it) was the key of every such bug of a target. The
  check the verifier printed above its IR dump says which (rust-lang/cargo#1667, rust-lang/git2-rs#119,
  ClangBuiltLinux/linux#954 in tests/data/dedup).
- GCC quotes with typographic quotes in a UTF-8 locale ("‘I’"), with ASCII ones in the C locale: the two
  reports of GCC PR 84785 (avast/yaramod#5, open-telemetry/opentelemetry-cpp#611) had two keys.
- A severity word opening the line ("error: [Hilt] …", Gradle's "e: ") is how the tool ran, not what failed
  (google/dagger#5001 and #5059: one bug, two keys).
- A diagnostic's location before its severity word ("code.dfy(2,7): Error: …", signature v24) is the user's
  file and line, one per reporter: dafny-lang/dafny#5209 and #5375 had two keys.
- GCC names the static constructors it makes for a file after the file ("global constructors keyed to
  65535_0_sketch.ino.cpp.o"): avr-gcc's LTO segfault had one key per sketch (arduino/Arduino#7949, v24).
- An issue template's Markdown heading ("### What does the crash message say?") was a report's identity (v24).
- An old-form Rust panic whose message runs over more than three lines was not read (v24).
- A symbolizer's frames with their module in square brackets ("f(…) [libLLVM-14.so.1+0x132a9f0]") were read as
  named by the module, whose address differs per run (v24).
- rustc prints the user's types into an ICE's message ("Failed to normalize <std::option::Option<…> as
  std::iter::Iterator>::Item"): the reports collected under rust-lang/rust-clippy#8662 each had their own.
- A Go frame's function line (its source on the next line) was a cut report's identity.
"""

from __future__ import annotations

import pytest

from crashes import similarity
from crashes.signatures import unparsed
from crashes.traces import llvm_verifier
from crashes.traces.rust import mask_types
from crashes.traces.text import mask_message
from tests.crashes.signing import record_trace, sign
from tests.traces import read_report

# -- LLVM's verifier -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record_id", "project", "crash_type"),
    [
        (
            "rust-lang/cargo#1667",
            "rust-lang/cargo",
            "LLVM ERROR: Broken function found: Attributes '?' are incompatible",
        ),
        # rustc printed the last dumped value without a newline: " i64LLVM ERROR: Broken function found…".
        (
            "rust-lang/git2-rs#119",
            "rust-lang/git2-rs",
            "LLVM ERROR: Broken function found: Stored value type does not match pointer operand type | store",
        ),
        (
            "ClangBuiltLinux/linux#954",
            "ClangBuiltLinux/linux",
            "LLVM ERROR: Broken module found: fragment covers entire variable",
        ),
    ],
)
def test_a_verifier_failure_is_named_by_the_check_it_printed(record_id, project, crash_type):
    signed = sign(record_trace(record_id), project)
    assert signed.trace_format == "llvm"
    assert signed.crash_type == crash_type


def test_two_checks_are_two_bugs_and_one_check_on_other_ir_is_one():
    text = record_trace("rust-lang/git2-rs#119")
    check = "Stored value type does not match pointer operand type!"
    other_check = text.replace(check, "Instruction does not dominate all uses!")
    other_values = text.replace("%2, i64* %7, align 8", "%5, i64* %9, align 4")
    assert other_values != text
    assert sign(other_check, "t").digest != sign(text, "t").digest
    assert sign(other_values, "t").digest == sign(text, "t").digest


def test_a_verifier_that_printed_no_check_keeps_its_line():
    # Cargo's output and a prompt above the fatal line: nothing of the verifier's to name the bug by.
    text = (
        "$ cargo build\n"
        "   Compiling aeon v0.0.1 (file:///home/u/aeon)\n"
        "LLVM ERROR: Broken function found, compilation aborted!\n"
    )
    lines = text.splitlines()
    assert llvm_verifier.failed_check(lines, llvm_verifier.broken_at(lines)[0]) is None
    assert sign(text).crash_type == "LLVM ERROR: Broken function found, compilation aborted!"
    # The same, as rustc prints it: glued to the dump's last value, which no "LLVM ERROR: " line pattern matches.
    glued = text.replace("LLVM ERROR", " i64LLVM ERROR")
    assert sign(glued).crash_type == "LLVM ERROR: Broken function found, compilation aborted!"


def test_the_failing_call_names_its_callee():
    lines = [
        "inlinable function call in a function with debug info must have a !dbg location",
        '  call void @"*Foo#bar<Foo>:Nil"(%Foo* %self)',
        "LLVM ERROR: Broken module found, compilation aborted!",
    ]
    check = llvm_verifier.failed_check(lines, 2)
    assert check == (lines[0], 0)
    assert llvm_verifier.instruction(lines[1:]) == ' | call @"*Foo#bar<Foo>:Nil"'


@pytest.mark.parametrize(
    ("above", "check"),
    [
        # A check may open with "!dbg" or an opcode's name: it is at column 0, a sentence, unlike the dump.
        (
            '!dbg attachment points at wrong subprogram for function\n!12 = distinct !DISubprogram(name: "f")\n'
            "ptr @_ZN1a1fE\n",
            "!dbg attachment points at wrong subprogram for function",
        ),
        (
            "atomicrmw instructions cannot be unordered.\n  %1 = atomicrmw add ptr %p, i32 1 unordered\n",
            "atomicrmw instructions cannot be unordered",
        ),
        # Pasted as a Markdown quote.
        ("> Operand is null\n>   call void @f(ptr null)\n", "Operand is null"),
        # Types LLVM prints that are no words (x86_fp80), and a number the dump printed alone.
        (
            "Call parameter type does not match function signature!\n x86_fp80 %5\n 4\n",
            "Call parameter type does not match function signature",
        ),
    ],
)
def test_the_check_is_the_verifiers_sentence_above_its_dump(above, check):
    lines = (above + "LLVM ERROR: Broken function found, compilation aborted!\n").splitlines()
    at, _ = llvm_verifier.broken_at(lines)
    assert at == len(lines) - 1
    assert llvm_verifier.failed_check(lines, at)[0] == check


def test_a_reporter_quoting_the_fatal_line_is_not_it():
    text = (
        'Since nightly I get "LLVM ERROR: Broken function found, compilation aborted!":\n'
        "Instruction does not dominate all uses!\n"
        "  %5 = load i32, ptr %4\n"
        "LLVM ERROR: Broken function found, compilation aborted!\n"
    )
    assert sign(text).crash_type == "LLVM ERROR: Broken function found: Instruction does not dominate all uses | load"


def test_a_callee_is_named_without_its_builds_marks():
    # rust-lang/rust#117331: the callee's symbol carries its build's hash; a split-off part carries ".cold.N".
    assert llvm_verifier.instruction(["  invoke void @_ZN1a1f17h84769ced50b3359cE(i32 1)"]) == " | invoke @_ZN1a1fE"
    assert llvm_verifier.instruction(["  call void @f.cold.1(ptr %x)"]) == " | call @f"
    assert llvm_verifier.instruction(["  %3 = sext i8 %2 to i32"]) == " | sext"


# -- Quotes and severity words ------------------------------------------------------------------------------


def test_gccs_typographic_quotes_are_quotes():
    typographic = sign(read_report("v23/gcc_ice_typographic_quotes_yaramod_5"), "avast/yaramod")
    ascii_quotes = sign(
        read_report("v23/gcc_ice_ascii_quotes_opentelemetry_cpp_611"), "open-telemetry/opentelemetry-cpp"
    )
    assert typographic.trace_format == ascii_quotes.trace_format == "gcc-ice"
    assert typographic.crash_type == "internal compiler error: unexpected expression '?' of kind template_parm_index"
    # One GCC bug: its key is the compiler's, whichever project's build met it.
    assert typographic.digest == ascii_quotes.digest


def test_double_typographic_quotes_are_masked_too():
    assert mask_message("cannot convert “x” to “y”") == "cannot convert '?' to '?'"
    # An apostrophe alone is no quote.
    assert mask_message("can’t find the symbol table") == "can’t find the symbol table"


def test_a_severity_word_is_no_part_of_what_failed():
    with_word = sign(read_report("v23/hilt_error_prefix_dagger_5001"), "google/dagger")
    without = sign(read_report("v23/hilt_no_prefix_dagger_5059"), "google/dagger")
    assert with_word.message.startswith("[Hilt] Provided Metadata instance has version N.N")
    assert with_word.digest == without.digest


def test_a_diagnostics_location_is_no_part_of_what_failed():
    # Dafny's internal error printed at each reporter's own file and line: one bug (fixed by dafny#5320).
    first = sign(read_report("v24/dafny_internal_error_location_5209"), "dafny-lang/dafny")
    second = sign(read_report("v24/dafny_internal_error_location_5375"), "dafny-lang/dafny")
    assert first.crash_type.startswith("Dafny encountered an internal error while waiting for this symbol")
    assert first.digest == second.digest


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("code.dfy(2,7): Error: Dafny encountered an internal error", "Dafny encountered an internal error"),
        (r"C:\src\a.cpp(12): fatal error C1001: An internal error has occurred", "An internal error has occurred"),
        ("pkg/a.py:9: error: Cannot determine type of 'x'", "Cannot determine type of 'x'"),
        ("a.c:1:2: error: insn does not satisfy its constraints:", "insn does not satisfy its constraints:"),
        # MSBuild's: a blank before the colon, or the tool's code.
        ("App.csproj(12,5): error : Generator failed", "Generator failed"),
        ("Program.cs(3,1): error CS8785: Generator 'G' failed", "Generator 'G' failed"),
        # Not a location and a severity word: the line is kept whole.
        ("see: error: x", "see: error: x"),
        ("Foo(12): warning: bar", "Foo(12): warning: bar"),
    ],
)
def test_what_a_located_severity_word_takes_off(line, kept):
    assert unparsed.without_severity(line) == kept


def test_a_function_gcc_named_for_the_users_file_is_named_without_it():
    # avr-gcc's LTO segfault in the static constructors it made for each sketch's object file: two sketches,
    # one bug (arduino/Arduino#7949; #9428 here, #8821 in tests/data/dedup).
    one = sign(read_report("v24/gcc_lto_keyed_constructors_arduino_9428"), "arduino/Arduino")
    other = sign(record_trace("arduino/Arduino#8821"), "arduino/Arduino")
    assert one.frames == ("input global constructors keyed to <file>",)
    assert one.digest == other.digest
    # The user's own function still names its crash.
    compiled = sign(
        "x.cpp: In function 'drawFastHLine':\nx.cpp:1565:1: internal compiler error: Segmentation fault\n",
        "arduino/Arduino",
    )
    assert compiled.frames == ("input drawFastHLine",)


@pytest.mark.parametrize(
    "heading",
    [
        "### Error output: the app crashed",
        "## What happened: fatal error at startup",
        "# opj_compress -i x.jp2 crashed",
    ],
)
def test_a_heading_a_root_prompt_or_a_comment_is_no_identity(heading):
    # An issue template's heading above a crash no reader knows is the report's frame, not what failed.
    signed = sign(f"{heading}\nassertion failed: glyph_cache.len() < capacity\n")
    assert signed.crash_type == "assertion failed: glyph_cache.len() < capacity"


def test_an_old_panics_message_may_run_over_many_lines():
    # Rust before 1.73 printed "panicked at '<message>', <file>:<line>:<col>", the message's own lines between:
    # wgpu's error chain ("Caused by:") runs over six (ruffle-rs/ruffle#13021).
    signed = sign(read_report("v24/rust_old_panic_long_message_ruffle_13021"), "ruffle-rs/ruffle")
    assert signed.trace_format == "rust"
    assert signed.crash_type.startswith("wgpu error: Validation Error Caused by: In Queue::write_buffer_with")
    assert signed.frames[0].startswith("site wgpu/src/backend/direct.rs:3019")


def test_a_frames_module_in_square_brackets_is_its_module():
    # A symbolizer's "#4  f(…) [libLLVM-14.so.1+0x132a9f0]" (and "[linux-vdso.so.1@0x7fa95497b0]" for the kernel's
    # signal trampoline): the function is what precedes the module. One LLVM 14 AArch64 crash (llvm/llvm-project#91166).
    one = sign(read_report("v24/v1_unstable/llvm_bracketed_modules_98503_c1"), "llvm/llvm-project")
    other = sign(read_report("v24/v1_unstable/llvm_bracketed_modules_70220_c1"), "llvm/llvm-project")
    assert one.frames[:2] == ("llvm::cl::opt::getExtraOptionNames", "llvm::raw_ostream::write")
    assert one.digest == other.digest


def test_cores_sort_is_machinery_as_its_iterators_are():
    # rustc's ICE at hir.rs:1165 (rust-lang/rust#137640), and the same filed at rust-clippy (#14318) with a Windows
    # backtrace whose first frame below std's capture is core's heapsort: it calls whatever comparator it was given.
    linux = sign(read_report("v24/rustc_ice_parsed_attribute_137640"), "rust-lang/rust")
    windows = sign(read_report("v24/rustc_ice_parsed_attribute_clippy_14318"), "rust-lang/rust-clippy")
    assert windows.frames == ("site rustc_hir/src/hir.rs",)
    assert linux.digest == windows.digest


@pytest.mark.parametrize(
    "message",
    [
        r"C:\Program Files\Go\src\go\types\stmt.go:932: assertion failed",
        "C:/Program Files (x86)/Go/src/go/types/stmt.go:932: assertion failed",
        "/usr/local/go/src/go/types/stmt.go:932: assertion failed",
    ],
)
def test_windows_folders_with_blanks_are_part_of_a_path(message):
    # "Program Files" was cut at its blank: "C:/Program <path>" kept a word of the install's place.
    assert mask_message(message) == mask_message(message, quoted=False) == "<path>:N: assertion failed"


# -- rustc's types ------------------------------------------------------------------------------------------


def test_the_types_rustc_printed_into_an_ice_are_masked():
    reports = [
        sign(read_report(f"v23/rustc_ice_types_clippy_{number}"), "rust-lang/rust-clippy") for number in (8320, 8659)
    ]
    assert reports[0].crash_type.startswith("ICE: Failed to normalize <T?>::Item, maybe try to call")
    assert reports[0].crash_type == reports[1].crash_type
    # One printed the query stack, the other was cut above it: the fuzzy stage joins them by site and message.
    shapes = [similarity.shape_of(report) for report in reports]
    assert similarity.similarity(shapes[1], shapes[0]).score >= similarity.THRESHOLD
    # Another type's normalization in another part of rustc is another bug (rust-lang/rust#110682).
    other = sign(read_report("v23/rustc_ice_types_lookalike_rust_110682_c1"), "rust-lang/rust-clippy")
    assert other.crash_type.startswith("ICE: Failed to normalize T?<T?>")
    assert similarity.similarity(similarity.shape_of(other), shapes[0]).score < similarity.THRESHOLD


@pytest.mark.parametrize(
    ("message", "masked"),
    [
        ("no type for <Self>::SC_NEGATE as core::ops::Neg", "no type for <Self>::SC_NEGATE as T?"),
        (
            "vtable not supported on type std::pin::Pin<&mut dyn Future<Output = ()>>",
            "vtable not supported on type T?<T?>",
        ),
        # A qualified path is a type whatever its names; the compiler's own types say which of its structures failed.
        ("Failed to normalize <Foo as Bar>::Out", "Failed to normalize <T?>::Out"),
        (
            "attempted to read from stolen value: rustc_middle::mir::Body",
            "attempted to read from stolen value: rustc_middle::mir::Body",
        ),
        # A closure's "-> B" inside the brackets closes none of them.
        ("expected <dyn std::ops::Fn(A) -> B as x::y::Z>::Output here", "expected <T?>::Output here"),
        # Words, comparisons and one enum's variant are no types.
        ("Box<Any>", "Box<Any>"),
        ("assertion failed: a < b && c <= d", "assertion failed: a < b && c <= d"),
        ("resolution.base_def != Def::Err", "resolution.base_def != Def::Err"),
    ],
)
def test_what_counts_as_a_type(message, masked):
    assert mask_types(message) == masked


def test_a_go_frames_function_line_is_no_identity():
    # hashicorp/terraform#34059, cut inside the stack below Terraform's crash handler: before v23 the handler's
    # frame ("github.com/hashicorp/terraform/internal/logging.PanicHandler()", its source on the next line)
    # was the key, as it is of every Terraform crash cut there.
    signed = sign(read_report("v23/go_frames_cut_terraform_34059"), "hashicorp/terraform")
    assert signed.crash_type == "unidentified crash"
    assert signed.repairs[-1] == "no identifying line: a bucket of its own"
