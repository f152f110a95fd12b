"""RPython's fatal errors (crashes.traces.rpython), on PyPy's reports in tests/data/dedup/z3_wasmtime_dev.jsonl."""

from __future__ import annotations

from crashes import traces
from crashes.traces import rpython
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign


def test_a_fatal_rpython_error_is_its_class_and_functions_innermost_first():
    # pypy/pypy#3128: the JIT's optimizer failing an assert in a private method (Optimizer__maybe_…).
    parsed = traces.parse(record_trace("pypy/pypy#3128"))
    assert (parsed.format, parsed.crash_type) == (rpython.FORMAT, "AssertionError")
    assert [frame.function for frame in parsed.frames[:2]] == [
        "Optimizer__maybe_replace_guard_value",
        "Optimizer_emit_guard_operation",
    ]


def test_a_specialisations_suffix_is_no_part_of_a_function():
    # pypy/pypy#2147: maybe_compile_and_run__star_5_1 and jump_absolute__AccessDirect_None.
    functions = [frame.function for frame in traces.parse(record_trace("pypy/pypy#2147")).frames]
    assert "maybe_compile_and_run" in functions and "jump_absolute" in functions


def test_another_builds_numbered_files_and_lines_are_the_same_crash():
    # pypy/pypy#2923 as another build prints it: the generated C split into other parts, other lines.
    text = record_trace("pypy/pypy#2923")
    rebuilt = text.replace("rpython_jit_backend_x86_1.c", "rpython_jit_backend_x86_4.c").replace("line 2", "line 7")
    assert rebuilt != text
    assert sign(text).digest == sign(rebuilt).digest


def test_a_python_traceback_is_not_rpythons():
    text = 'Traceback (most recent call last):\n  File "a.py", line 1, in f\nAssertionError\n'
    assert not rpython.recognize(text)
    assert traces.parse(text).format == "python"


def test_a_frame_a_terminal_cut_is_joined_back():
    # pypy/pypy#2465 wrapped at 80 columns: its innermost frame cut inside the function's name, and
    # pypy/pypy#2923 at 60, frames cut before their line number.
    for record_id, width in (("pypy/pypy#2465", 80), ("pypy/pypy#2923", 60)):
        text = record_trace(record_id)
        assert hard_wrap(text, width) != text
        assert sign(hard_wrap(text, width)).digest == sign(text).digest
    # A word below a short last frame is not the rest of its name.
    text = 'RPython traceback:\n  File "a.c", line 1, in f\nAborted\n'
    assert [frame.function for frame in traces.parse(text).frames] == ["f"]
