"""Valgrind's reports, as posted in public bug reports (tests/traces/valgrind/, sources in each .meta).

Before signature v5 no parser read them, and the unparsed path keyed a whole
report by its banner ("Memcheck, a memory error detector"), a line every
Valgrind run prints: every such report of a target would have shared one bucket.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crashes import traces
from crashes.signatures import unparsed
from tests.crashes.signing import sign as _sign
from tests.traces import ROOT, read_meta

FIXTURES = sorted((ROOT / "valgrind").glob("*.txt"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_each_report_reads_as_its_first_error_and_stack(path: Path):
    meta, text = read_meta(path), path.read_text()
    assert meta["source"].startswith("https://")
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == ("valgrind", meta["error"])
    assert parsed.frames[0].function == meta["innermost"]
    signature = _sign(text)
    assert signature.method == "stack" and signature.crash_type == meta["error"]
    # Valgrind's replacements of the C library and what called main are the tool's, not the bug's.
    # (A bare "main" is namespaced by its target.)
    assert signature.frames[0] in (meta["significant"], f"t:{meta['significant']}")


def test_enough_real_reports():
    assert len(FIXTURES) >= 6


def test_the_first_error_is_the_crash_not_the_signal_it_led_to():
    text = (ROOT / "valgrind" / "thor_rindex_invalid_read.txt").read_text()
    assert "Process terminating with default action of signal 11" in text
    assert traces.parse(text).crash_type == "Invalid read"


def test_a_memory_error_comes_before_the_leaks_printed_after_it():
    text = (ROOT / "valgrind" / "libyang_memcpy_overlap.txt").read_text()
    assert _sign(text).crash_type == "Source and destination overlap in memcpy"
    leaks = text[text.index("205 bytes") :]
    assert _sign(leaks).crash_type == "definitely lost"


def test_three_bugs_under_one_test_runner_are_three_buckets_and_a_rerun_is_one():
    # libfabric-cray #395, #406 and #402: one runner's frames below three different faulting functions.
    first = (ROOT / "valgrind" / "libfabric_av_teardown_invalid_read.txt").read_text()
    second = (ROOT / "valgrind" / "libfabric_vc_setup_invalid_read.txt").read_text()
    third = (
        "==9013== Invalid read of size 8\n"
        "==9013==    at 0x41F5C1: rdm_fi_pdc_setup (fi_endpoint.h:167)\n"
        "==9013==    by 0x43CAD6: run_test_child (runner.c:138)\n"
        "==9013==    by 0x43D229: run_worker (process.c:67)\n"
        "==9013==    by 0x43D34B: spawn_test_worker (process.c:93)\n"
        "==9013==    by 0x43CE3A: criterion_run_all_tests (runner.c:190)\n"
        "==9013==    by 0x403D03: main (main.c:184)\n"
        "==9013==  Address 0x10 is not stack'd, malloc'd or (recently) free'd\n"
    )
    assert len({_sign(text).digest for text in (first, second, third)}) == 3
    # Another run: other process id, addresses and sizes, pasted without the prefix and quoted.
    rerun = "\n".join("> " + line.split("== ", 1)[1] for line in first.replace("0x10", "0x18").splitlines())
    assert _sign(rerun.replace("of size 8", "of size 4")).digest == _sign(first).digest


def test_the_banner_names_nothing():
    banner = "==49== Memcheck, a memory error detector"
    assert unparsed.identity_line(banner + "\nSegmentation fault") == ""
    alone = _sign(banner + "\n==49== Command: ./a.out\n")
    assert alone.crash_type == "unidentified crash"


def test_forms_a_paste_leaves_and_the_tools_own_wrappers():
    # The process id cut out of the prefix.
    assert traces.parse("==== Invalid write of size 1\n====    at 0x1: put (a.c:3)\n").crash_type == "Invalid write"
    # Helgrind's pthread wrappers (hg_intercepts.c) are the tool's frames.
    lock_order = (
        '==7== Thread #3: lock order "0x601080 before 0x6010C0" violated\n'
        "==7==    at 0x4C3010C: mutex_lock_WRK (hg_intercepts.c:902)\n"
        "==7==    by 0x4C33F4D: pthread_mutex_lock (hg_intercepts.c:925)\n"
        "==7==    by 0x400837: thread_b (locks.c:31)\n"
    )
    signature = _sign(lock_order)
    assert signature.crash_type.startswith("Thread: lock order") and signature.frames[0] == "thread_b"


def test_the_c_library_with_or_without_its_debug_info_is_one_bucket():
    with_debug = (
        "==9== Conditional jump or move depends on uninitialised value(s)\n"
        "==9==    at 0x4E8A5F2: vfprintf (vfprintf.c:1642)\n"
        "==9==    by 0x4E92A08: printf (printf.c:33)\n"
        "==9==    by 0x4005E1: print_it (show.c:8)\n"
        "==9==    by 0x400601: main (show.c:14)\n"
    )
    without = with_debug.replace("vfprintf (vfprintf.c:1642)", "vfprintf (in /usr/lib/libc-2.27.so)").replace(
        "printf (printf.c:33)", "printf (in /usr/lib/libc-2.27.so)"
    )
    assert _sign(with_debug).frames[0] == "print_it"
    assert _sign(with_debug).digest == _sign(without).digest
