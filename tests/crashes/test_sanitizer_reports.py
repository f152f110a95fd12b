"""Sanitizer reports as fuzzers' users paste them (signature v22), on real reports of tests/data/dedup.

UBSan built without ASan reports a signal as the other sanitizers do ("==1==ERROR:
UndefinedBehaviorSanitizer: SEGV on unknown address", then the stack), nginx/njs#530 and #586: before v22
no reader knew the tool's name, and the report fell to the unidentified path, its whole text its key.
"""

from __future__ import annotations

import pytest

from crashes import traces
from tests.crashes.signing import record_trace, sign
from tests.traces import read_report


@pytest.mark.parametrize(
    ("record_id", "top"),
    [
        ("nginx/njs#530", ("njs_scope_valid_value", "njs_vmcode_await", "njs_vmcode_interpreter")),
        ("nginx/njs#586", ("njs_vmcode_try_start", "njs_vmcode_interpreter", "njs_await_fulfilled")),
    ],
)
def test_ubsans_report_of_a_signal_is_read_as_a_sanitizer_report(record_id, top):
    signed = sign(record_trace(record_id), "nginx/njs")
    assert signed.trace_format == "sanitizer"
    assert signed.crash_type == "SEGV"
    assert signed.frames[:3] == top


def test_the_same_signal_at_the_same_frames_is_one_bucket_whichever_sanitizer_caught_it():
    text = record_trace("nginx/njs#530")
    as_asan = text.replace("UndefinedBehaviorSanitizer", "AddressSanitizer")
    assert as_asan != text
    assert sign(text, "nginx/njs").digest == sign(as_asan, "nginx/njs").digest


def test_an_allocation_the_allocator_refused_is_read_however_asan_printed_it():
    # Before LLVM 8: a warning, the allocator's own CHECK and its frames, no ERROR line (tbeu/matio#141, cut
    # by its reporter above the program's frames; unrar's, quoted on google/oss-fuzz#951).
    for name in ("v22/asan_allocation_refused_matio_141", "v22/asan_allocation_refused_oss_fuzz_951"):
        signed = sign(read_report(name), "t")
        assert (signed.trace_format, signed.crash_type) == ("sanitizer", "failed to allocate")
        # The allocator's frames and notes are every such report's: no bucket of this kind of failure.
        assert signed.frames == ()
        assert "no identifying line: a bucket of its own" in signed.repairs
    # Since: the warning may still come first, and the ERROR line below it names the failure by its kind.
    signed = sign(read_report("v22/v1_unstable/asan_out_of_memory_after_warning_sanitizers_1720"), "t")
    assert signed.crash_type == "out-of-memory"


def test_the_program_frames_below_the_allocators_are_the_crash():
    text = read_report("v22/asan_allocation_refused_oss_fuzz_951")
    # The frame a fuller paste of the same report goes on with (unrar's Array<T>::Add calling realloc).
    text += "    #6 0x5a48c7 in Array<unsigned char>::Add(unsigned long) /src/unrar/array.hpp:149:20\n"
    assert sign(text, "unrar").frames[0] == "Array::Add"


def test_an_allocation_errors_sizes_are_the_inputs_not_the_bugs():
    # "requested allocation size 0x… exceeds maximum supported size of 0x…" and "allocator is out of memory trying
    # to allocate 0x… bytes" are named by their kind, as the report's SUMMARY line names them: the sizes are what
    # the input asked for.
    stack = "    #0 0x7f in malloc\n    #1 0x55 in read_header /src/p/reader.c:41:9\n"
    oom = "==7==ERROR: AddressSanitizer: allocator is out of memory trying to allocate {} bytes\n" + stack
    too_big = (
        "==7==ERROR: AddressSanitizer: requested allocation size {} exceeds maximum supported size of "
        "0x10000000000 (thread T0)\n" + stack
    )
    for template, kind in ((oom, "out-of-memory"), (too_big, "allocation-size-too-big")):
        first, second = sign(template.format("0x30000000000"), "p"), sign(template.format("0x5000"), "p")
        assert first.crash_type == second.crash_type == kind
        assert first.digest == second.digest


def test_a_refusal_the_program_went_on_from_is_no_crash_and_a_frameless_one_no_bucket_of_its_kind():
    # With allocator_may_return_null=1 the allocator warns and the program goes on: what failed next is the crash.
    warned = "==12==WARNING: AddressSanitizer failed to allocate 0x7fffffff bytes\n"
    python = 'Traceback (most recent call last):\n  File "a.py", line 3, in load\n    data = read()\nMemoryError\n'
    assert traces.parse(warned + python).format == "python"
    # An allocation error's kind with no frame of the program says nothing of which allocation.
    too_big = (
        "==7==ERROR: AddressSanitizer: requested allocation size 0x30000000000 exceeds maximum supported size of "
        "0x10000000000 (thread T0)\n    #0 0x7f in malloc\n"
    )
    assert "no identifying line: a bucket of its own" in sign(too_big, "p").repairs


def test_a_number_left_in_a_sanitizers_error_type_is_one_runs():
    # ASan's ODR violation names the global's address, which moves with every build.
    odr = (
        "==1==ERROR: AddressSanitizer: odr-violation ({}):\n  [1] size=40 'table' a.cc:3\n    #0 0x1 in init /a.cc:9\n"
    )
    one, other = sign(odr.format("0x000000ed3ce0"), "p"), sign(odr.format("0x0000005a1120"), "p")
    assert one.crash_type == "odr-violation (N)"
    assert one.digest == other.digest
