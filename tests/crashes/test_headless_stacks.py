"""Stacks pasted without the lines above them (signature v17), on real reports of tests/data/dedup.

A reporter copies what looked like the crash: a Rust backtrace without its panic line (rustfmt#1464,
an old toolchain's frames, no source lines), a Python traceback's last frame and exception line
without the frames and the header above (mypy#16809, a comment quoting pydantic's plugin), or a
traceback indented by tabs as a whole, its first line's tab lost (spyder#11032, a comment). The
sources are each record's ``source``.
"""

from __future__ import annotations

from crashes import similarity
from crashes.traces import parse
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign, sign_record


def _joins(one, other) -> bool:
    score = similarity.similarity(similarity.shape_of(one), similarity.shape_of(other)).score
    return one.digest == other.digest or score >= similarity.THRESHOLD


def test_a_rust_backtrace_without_its_panic_line_is_read_by_its_frames():
    signature = sign_record("rust-lang/rustfmt#1464")
    assert signature.method == "stack"
    assert signature.trace_format == "rust"
    # std's panic machinery and core's slicing are no frames: rustfmt's own code is.
    assert signature.frames == ("rustfmt::utils::trim_newlines", "rustfmt::visitor::FmtVisitor::visit_item")


def test_the_same_panic_printed_with_its_panic_line_finds_the_headless_ones_bucket():
    headless = record_trace("rust-lang/rustfmt#1464")
    whole = "thread 'main' panicked at 'byte index 1 is out of bounds of ``', src/libcore/str/mod.rs:2215\n" + headless
    assert _joins(sign(whole), sign(headless))


def test_the_headless_backtrace_pasted_without_its_header_line_is_the_same_crash():
    headless = record_trace("rust-lang/rustfmt#1464")
    frames_only = headless.replace("stack backtrace:\n", "", 1)
    assert sign(frames_only).digest == sign(headless).digest


def test_numbered_lines_without_rusts_panic_machinery_or_sources_are_no_rust_stack():
    listing = "Steps:\n   0: open::the::file\n   1: read::the::header\n   2: write::the::output\n"
    parsed = parse(listing)
    assert parsed is None or parsed.format != "rust"


def test_a_pythons_last_frame_and_exception_of_any_class_are_a_traceback():
    # "_DeferAnalysis: " names neither Error nor Exception: it is still the line below the frame.
    signature = sign_record("python/mypy#16809/c1")
    assert signature.method == "stack"
    assert signature.crash_type == "_DeferAnalysis"
    assert signature.frames == ("mypy.py:expand_type",)


def test_the_last_frame_cut_after_its_in_by_a_terminal_is_still_a_traceback():
    text = record_trace("python/mypy#16809/c1")
    wrapped = hard_wrap(text, 80)
    assert wrapped.split("\n")[0].endswith(", in ")
    signature = sign(wrapped)
    assert signature.method == "stack"
    assert signature.digest == sign(text).digest


def test_a_capitalised_line_below_a_blank_after_a_frame_is_no_exception():
    text = (
        '  File "/srv/app/tasks.py", line 12, in run\n    result = step()\n\nNote: this happens on every second run\n'
    )
    assert sign(text).method != "stack"


def test_a_tab_indented_traceback_below_a_prompt_reads_as_pasted_alone():
    # The comment's traceback is indented by tabs, its first line one tab short; below a line at
    # column 0 the indentation is not removed as a whole, and its exception lines are as indented as
    # its first frame.
    text = record_trace("spyder-ide/spyder#11032/c1")
    alone = sign(text)
    assert alone.crash_type == "ValueError"
    below_a_prompt = sign("$ spyder\n" + text)
    assert below_a_prompt.digest == alone.digest


def test_a_frame_line_cut_short_below_a_source_line_is_no_exception():
    # A record stored cut inside its next frame line ("    Fi"): no exception named "Fi".
    text = (
        'Traceback (most recent call last):\n\t\tFile "/x/pip/_in_process.py", line 207, in <module>\n'
        "\t\t\tmain()\n\t\tFi"
    )
    assert sign(text).crash_type != "Fi"
