"""Python exceptions as cleo renders them (Poetry's crash output), on real reports."""

from __future__ import annotations

from pathlib import Path

from crashes import signatures
from crashes.traces import parse
from tests.crashes.pastes import hard_wrap
from tests.data.record_digests import dedup_records
from tests.traces import read_meta

FIXTURES = Path(__file__).parents[1] / "traces" / "cleo"


def test_the_last_exception_of_a_chain_is_the_crash_with_cpythons_frames():
    # python-poetry/poetry#8433 run with -vvv: a SolveFailure, then "The following error occurred when
    # trying to handle this error:" and the SolverProblemError that was raised while handling it.
    path = FIXTURES / "poetry_solver_problem_chain.txt"
    meta, parsed = read_meta(path), parse(path.read_text())
    assert (parsed.format, parsed.crash_type) == (meta["format"], meta["error"])
    assert parsed.message.startswith("Because gitfish (0.1.0)")
    # Innermost first, as a CPython traceback reads: the "at" line, then the numbered frames 1, 2, ...
    assert [frame.function for frame in parsed.frames[:3]] == [meta["innermost"], "solve", "_do_install"]
    assert parsed.frames[0].line == 161 and parsed.frames[-1].function == "run"
    # Only the last exception's stack: the SolveFailure's frames stay out.
    assert "_resolve_conflict" not in [frame.function for frame in parsed.frames]


def test_a_crash_rendered_by_cleo_signs_as_its_cpython_traceback_does():
    # gatorgrade#117: Poetry without -vvv, only the "at" frame (cachecontrol's serialize.py).
    cleo = signatures.compute(
        kind="crash", trace_text=dedup_records()["GatorEducator/gatorgrade#117"]["trace"], target="t"
    )
    traceback = signatures.compute(
        kind="crash",
        trace_text=(
            "Traceback (most recent call last):\n"
            '  File "/home/u/.local/share/pypoetry/venv/lib/python3.7/site-packages/cachecontrol/serialize.py", '
            "line 54, in dumps\n"
            '    u"strict": response.strict,\n'
            "AttributeError: 'HTTPResponse' object has no attribute 'strict'\n"
        ),
        target="t",
    )
    assert (cleo.method, cleo.frames) == ("stack", ("serialize.py:dumps",))
    assert cleo.digest == traceback.digest


def test_an_at_line_with_no_class_name_above_it_is_not_cleos():
    # Prose that happens to hold an "at FILE:N in F" line, its paragraphs laid out as cleo's are.
    for prose in ("Build log\n\n  at setup.py:12 in main\n", "Log\n\n  not a class\n\n  at setup.py:12 in main\n"):
        parsed = parse(prose)
        assert parsed is None or parsed.format != "python"


def test_a_message_ending_in_a_newline_or_in_paragraphs_is_read_whole():
    # Poetry's "The Poetry configuration is invalid:" ends its message with a newline: two blank
    # lines above "at" (as in ublue-os/website#488); a message of paragraphs has blank lines inside.
    invalid = (
        "  RuntimeError\n\n  The Poetry configuration is invalid:\n    - Additional properties are not allowed\n"
        "\n\n  at ~/.local/lib/python3.11/site-packages/poetry/core/factory.py:43 in create_poetry\n"
    )
    parsed = parse(invalid)
    assert (parsed.crash_type, parsed.frames[0].function) == ("RuntimeError", "create_poetry")
    assert parsed.message == "The Poetry configuration is invalid: - Additional properties are not allowed"
    paragraphs = parse("  ValueError\n\n  first\n\n  second\n\n  at a/b.py:3 in f\n")
    assert (paragraphs.crash_type, paragraphs.message) == ("ValueError", "first second")


def test_an_at_line_a_terminal_cut_is_joined_back():
    # gatorgrade#117's "at" line is 99 columns: an 80-column terminal cuts it in two.
    whole = dedup_records()["GatorEducator/gatorgrade#117"]["trace"]
    cut = hard_wrap(whole, 80)
    signed = signatures.compute(kind="crash", trace_text=cut, target="t")
    assert signed.digest == signatures.compute(kind="crash", trace_text=whole, target="t").digest
    assert "1 cut 'at' lines joined" in signed.repairs
