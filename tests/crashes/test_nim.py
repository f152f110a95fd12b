"""Nim's tracebacks (crashes.traces.nim)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import nim
from tests.crashes.signing import sign
from tests.traces import read_report


def test_the_compilers_internal_error_is_read_with_the_frames_above_its_reporting():
    # nim-lang/Nim#4491: "bug.nim(7, 5) Error: internal error: genMagicExpr: mArrPut" above the traceback, which
    # ends in the compiler's messages (msgs.nim's internalError, liMessage, handleError, quit).
    parsed = traces.parse(read_report("v21/nim_internal_error_traceback_4491"))
    assert parsed.format == nim.FORMAT
    assert parsed.crash_type == "internal error: genMagicExpr: mArrPut"
    assert [frame.function for frame in parsed.frames[:3]] == [
        "ccgexprs.genMagicExpr",
        "ccgexprs.expr",
        "ccgstmts.genStmts",
    ]


def test_a_traceback_cut_before_its_end_keeps_no_frames():
    # nim-lang/Nim#12765: the paste stops after the driver's frames (nim, handleCmdLine, mainCommand), which
    # every crash of the compiler passes through; the internal error above it still names the crash.
    text = read_report("v21/nim_internal_error_cut_traceback_12765")
    parsed = traces.parse(text)
    assert parsed.format == nim.FORMAT and parsed.frames == ()
    assert "getTypeDescAux(tyGenericParam)" in sign(text, "nim-lang/Nim").message


PROGRAM = """Traceback (most recent call last)
/home/u/app/src/app.nim(40) app
/home/u/app/src/parser.nim(12) parseHeader
/home/u/.choosenim/toolchains/nim-1.6.0/lib/system/fatal.nim(53) sysFatal
Error: unhandled exception: index 3 not in 0 .. 2 [IndexDefect]
"""


def test_a_programs_unhandled_exception_is_its_type_and_own_frames():
    parsed = traces.parse(PROGRAM)
    assert (parsed.crash_type, parsed.message) == ("IndexDefect", "index 3 not in 0 .. 2")
    assert [frame.function for frame in parsed.frames] == ["parser.parseHeader", "app.app"]
    # Another install's paths and another line are the same crash.
    moved = PROGRAM.replace("/home/u/", "C:\\\\Users\\\\v\\\\").replace("(12)", "(14)")
    assert sign(moved).digest == sign(PROGRAM).digest
    assert not nim.recognize("see parser.nim(12) for details\n")


def test_one_frame_line_is_no_traceback_and_the_compilers_failure_line_ends_one():
    assert not nim.recognize("/home/u/app/src/parser.nim(12) parseHeader\nthen it stopped\n")
    # The compiler's "FAILURE" below its frames: the traceback ended there, its frames are whole.
    ended = "Traceback (most recent call last)\nmain.nim(254) mainCommand\nsemexprs.nim(12) semExpr\nFAILURE\n"
    assert [frame.function for frame in traces.parse(ended).frames] == ["semexprs.semExpr", "main.mainCommand"]
    # A program's own msgs.nim is its code, not the compiler's reporting.
    own = "/home/u/app/src/app.nim(9) run\n/home/u/app/src/msgs.nim(3) report\nSIGSEGV: Illegal storage access.\n"
    assert traces.parse(own).frames[0].function == "msgs.report"
