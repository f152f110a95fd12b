"""Z3's assertion violations (crashes.traces.z3), on reports from its tracker (dedup/z3_wasmtime_dev.jsonl)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import z3
from tests.crashes.signing import record_trace, sign, sign_record


def test_a_violation_is_its_check_in_its_file_not_the_prompt_every_violation_prints():
    # Z3Prover/z3#3625: "ASSERTION VIOLATION / File: ../src/ast/ast.h / Line: 491 / m_ref_count > 0" and
    # the debug build's "(C)ontinue, (A)bort…" prompt, which once keyed eight different bugs alike.
    signature = sign_record("Z3Prover/z3#3625", "z3")
    assert (signature.trace_format, signature.crash_type, signature.frames) == (
        "z3",
        "m_ref_count > 0",
        ("site ast.h",),
    )
    assert sign_record("Z3Prover/z3#3025", "z3").digest != signature.digest


def test_one_check_is_one_bucket_whatever_the_path_and_the_header_pasted():
    # #3573 (two people), #3696, #3698 (maintainer: "dup") and #3723 ("File: theory_utvpi_def.h:802",
    # no header): one check of theory_utvpi_def.h, whose line moved from 778 to 802.
    ids = ("Z3Prover/z3#3573", "Z3Prover/z3#3573/c1", "Z3Prover/z3#3696", "Z3Prover/z3#3698", "Z3Prover/z3#3723")
    assert len({sign_record(record_id, "z3").digest for record_id in ids}) == 1
    moved = record_trace("Z3Prover/z3#3698").replace("Line: 778", "Line: 802")
    assert sign(moved, "z3").digest == sign_record("Z3Prover/z3#3698", "z3").digest


def test_a_release_builds_stock_sentence_is_keyed_by_its_file_and_line():
    # #5124 and a second run in its thread: "UNEXPECTED CODE WAS REACHED." at nlsat_explain.cpp:1450.
    first, second = sign_record("Z3Prover/z3#5124", "z3"), sign_record("Z3Prover/z3#5124/c1", "z3")
    assert first.digest == second.digest and first.frames == ("site nlsat_explain.cpp:1450",)
    elsewhere = record_trace("Z3Prover/z3#5124").replace("Line: 1450", "Line: 1012")
    assert sign(elsewhere, "z3").digest != first.digest


def test_fields_in_a_log_are_no_violation():
    log = "starting\nFile: src/main.cpp\nLine: 12\nall good\n"
    assert not z3.recognize(log)
    assert traces.parse("ASSERTION VIOLATION\nFile: ../src/a.cpp\nLine: 3\n").crash_type == "ASSERTION VIOLATION"


def test_a_violation_below_the_command_that_crashed_or_the_reporters_words_is_the_same_violation():
    # #3696 (the fields alone, no header) and #4204 (the header, indented): pasted below a prompt, or in a
    # block below a sentence, each is still its check in its file.
    for record_id in ("Z3Prover/z3#3696", "Z3Prover/z3#4204"):
        text = record_trace(record_id)
        alone = sign_record(record_id, "z3")
        assert alone.trace_format == "z3"
        for pasted in ("$ z3 -smt2 bug.smt2\n" + text, "It crashed:\n\n```\n" + text + "\n```\n\nThanks!"):
            assert sign(pasted, "z3").digest == alone.digest
    # A line of the reporter's just above the fields (no blank between) is not the violation's own block.
    assert not z3.recognize("Then I saw\nFile: ../src/smt/theory_utvpi_def.h\nLine: 786\nm_graph.is_feasible()\n")
