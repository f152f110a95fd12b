"""The Python traceback parser on real tracebacks from public bug reports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from crashes.v1 import traces
from crashes.v1.traces import faulthandler, python
from tests.traces import read_meta

FIXTURES = Path(__file__).resolve().parent.parent / "traces" / "python"


REAL_TRACES = sorted(FIXTURES.glob("*.txt"))


def test_there_are_real_traces():
    assert len(REAL_TRACES) >= 7


@pytest.mark.parametrize("path", REAL_TRACES, ids=lambda p: p.stem)
def test_real_trace_exception_and_innermost_frame(path):
    text = path.read_text()
    meta = read_meta(path)
    assert meta["source"].startswith("https://")
    assert python.recognize(text)
    parsed = traces.parse(text)
    assert parsed.format == "python"
    assert parsed.crash_type == meta["exception"]
    assert parsed.frames, "no frames parsed"
    assert parsed.frames[0].function == meta["innermost"]


def test_chain_during_handling_keeps_cause():
    parsed = python.parse((FIXTURES / "chained_during_handling.txt").read_text())
    assert [cause.crash_type for cause in parsed.causes] == ["KeyError"]
    assert parsed.crash_type == "AttributeError"


def test_chain_direct_cause_keeps_cause():
    parsed = python.parse((FIXTURES / "chained_direct_cause.txt").read_text())
    assert [cause.crash_type for cause in parsed.causes] == ["ModuleNotFoundError"]
    assert parsed.crash_type == "RuntimeError"


def test_recursion_repeats_are_expanded_but_bounded():
    parsed = python.parse((FIXTURES / "recursion.txt").read_text())
    assert parsed.crash_type == "RecursionError"
    innermost = parsed.frames[0]
    repeats = [
        f for f in parsed.frames if (f.file, f.function, f.line) == (innermost.file, innermost.function, innermost.line)
    ]
    # "[Previous line repeated 790 more times]" is expanded, but capped so a
    # hostile count cannot make the parser allocate without bound.
    assert 2 <= len(repeats) <= 60


def test_syntax_error_location_is_a_frame():
    parsed = python.parse((FIXTURES / "syntax_error.txt").read_text())
    assert parsed.crash_type == "SyntaxError"
    assert parsed.message == "invalid syntax"
    assert parsed.frames[0].file.endswith("elevenlabslib/helpers.py")
    assert parsed.frames[0].line == 11
    assert parsed.frames[0].source == "match requestType:"


def test_multiline_message():
    parsed = python.parse((FIXTURES / "exception_with_multiline_message.txt").read_text())
    assert len(parsed.message.splitlines()) >= 3


def test_source_lines_and_caret_markers_are_not_frames():
    parsed = python.parse((FIXTURES / "simple_attributeerror.txt").read_text())
    assert all(not set(frame.function) <= set("^~") for frame in parsed.frames)
    assert all("^^^" not in frame.source for frame in parsed.frames)


def _traceback_of(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    return result.stderr


def test_live_chain_with_recursion_and_carets():
    # A traceback printed by this very interpreter, with 3.11 carets, both
    # chain separators and a recursion overflow.
    text = _traceback_of(
        "import json\n"
        "def dive(n):\n    return dive(n + 1)\n"
        "def load():\n    try:\n        json.loads('{')\n"
        "    except ValueError as e:\n        raise RuntimeError('bad config') from e\n"
        "try:\n    load()\nfinally:\n    dive(0)\n"
    )
    parsed = traces.parse(text)
    assert parsed.crash_type == "RecursionError"
    assert [c.crash_type for c in parsed.causes] == ["json.decoder.JSONDecodeError", "RuntimeError"]
    assert parsed.frames[0].function == "dive"
    assert parsed.causes[0].frames[0].function == "raw_decode"


def test_faulthandler_dump_of_a_segfault():
    text = _traceback_of(
        "import faulthandler, ctypes\nfaulthandler.enable()\n"
        "def read_null():\n    return ctypes.string_at(0)\n"
        "def outer():\n    read_null()\nouter()\n"
    )
    assert faulthandler.recognize(text)
    parsed = traces.parse(text)
    assert parsed.format == "python-faulthandler"
    assert parsed.crash_type == "Segmentation fault"
    functions = [frame.function for frame in parsed.frames]
    assert functions[:3] == ["string_at", "read_null", "outer"]


def test_unrecognised_text_parses_to_none():
    assert traces.parse("just some program output\nwith no trace in it\n") is None
    assert traces.parse("") is None


def test_garbage_and_huge_input_does_not_break_the_parser():
    garbage = "Traceback (most recent call last):\n" + '  File "x", line 1, in f\n' * 20000 + "\x00\ufffd\udcff"
    parsed = traces.parse(garbage)
    assert parsed.format == "python"
