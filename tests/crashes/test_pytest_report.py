"""pytest's failure reports (crashes.traces.pytest_report), read as the CPython traceback they stand for."""

from __future__ import annotations

from crashes import traces
from crashes.traces import extract, pytest_report, python
from tests.crashes.signing import sign
from tests.traces import ROOT, read_meta

# One crash as a plain traceback, then as pytest prints it in its long and short forms.
TRACEBACK = """Traceback (most recent call last):
  File "tests/test_parser.py", line 12, in test_parse
    parse_header(b"")
  File "src/mylib/parser.py", line 40, in parse_header
    return data[0]
IndexError: index out of range
"""
BANNER = "=" * 33 + " FAILURES " + "=" * 33
LONG = f"""{"=" * 30} test session starts {"=" * 29}
platform linux -- Python 3.12.1, pytest-8.0.0, pluggy-1.4.0
collected 2 items

tests/test_parser.py FF                                                   [100%]

{BANNER}
{"_" * 34} test_parse {"_" * 34}

    def test_parse():
>       parse_header(b"")

tests/test_parser.py:12: {""}
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

data = b''

    def parse_header(data):
>       return data[0]
E       IndexError: index out of range

src/mylib/parser.py:40: IndexError
{"_" * 33} test_other {"_" * 34}

    def test_other():
>       assert 1 == 2
E       assert 1 == 2

tests/test_parser.py:20: AssertionError
{"=" * 26} short test summary info {"=" * 27}
FAILED tests/test_parser.py::test_parse - IndexError: index out of range
"""
SHORT = f"""{"_" * 34} test_parse {"_" * 34}
tests/test_parser.py:12: in test_parse
    parse_header(b"")
src/mylib/parser.py:40: in parse_header
    return data[0]
E   IndexError: index out of range
"""


def test_a_crash_from_pytest_long_and_short_and_from_cpython_is_one_bucket():
    parsed = traces.parse(LONG)
    assert (parsed.format, parsed.crash_type, parsed.message) == (python.FORMAT, "IndexError", "index out of range")
    assert [frame.function for frame in parsed.frames] == ["parse_header", "test_parse"]
    assert sign(LONG).digest == sign(SHORT).digest == sign(TRACEBACK).digest
    # The second failure of the session is not read; another failure first is another bucket.
    assert sign(LONG.replace("return data[0]", "return data[1]")).digest == sign(LONG).digest
    assert sign(SHORT.replace("in parse_header", "in parse_body")).digest != sign(LONG).digest


def test_a_report_cut_after_its_error_keeps_the_failing_section():
    # okken/pytest-check#127: --tb=auto's short entry, then the failing section's source, cut after "E".
    path = ROOT / "pytest" / "pytest_check_thread.txt"
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert meta["source"].startswith("https://")
    assert (parsed.format, parsed.crash_type) == (meta["format"], meta["error"])
    assert [frame.function for frame in parsed.frames] == [meta["innermost"], "_build_pseudo_trace_str"]


def test_pytests_full_width_rules_are_no_hard_wrapped_lines():
    # Eighty-column banners between 80-column frames once read as one line cut at the width.
    wrapped = "\n".join(["x" * 79 + "y"] * 3 + [BANNER, "_" * 80, "tail"])
    text, repair = extract._unwrap(wrapped)
    assert BANNER in text.split("\n") and "tail" in text.split("\n")
    assert not repair or BANNER + "_" * 80 not in text


def test_no_pytest_report_without_its_error_and_location_lines():
    assert not pytest_report.recognize("E   something\nno location here\n")
    assert not pytest_report.recognize("src/x.py:3: in f\n    return 1\n")
    # No failure header: the whole text is read.
    assert pytest_report.parse(SHORT.split("\n", 1)[1]).crash_type == "IndexError"


def test_the_qualified_type_a_nested_def_and_a_chain_are_read_as_cpython_reads_them():
    qualified = LONG.replace("E       IndexError: index out of range", "E       mylib.errors.ParseError: bad header")
    plain = TRACEBACK.replace("IndexError: index out of range", "mylib.errors.ParseError: bad header")
    assert traces.parse(qualified).crash_type == "mylib.errors.ParseError"
    assert sign(qualified).digest == sign(plain).digest
    # A helper defined inside the test does not name the test's frame.
    nested = LONG.replace(
        "    def test_parse():\n", "    def test_parse():\n        def fake(x):\n            return x\n"
    )
    assert [frame.function for frame in traces.parse(nested).frames] == ["parse_header", "test_parse"]
    # "raise … from e": the exception that ended the test is the chain's last, as in CPython's traceback.
    chained = (
        "    def test_c():\n        try:\n>           {}['k']\nE           KeyError: 'k'\n\n"
        "tests/test_c.py:3: KeyError\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "    def test_c():\n>           raise RuntimeError('boom') from e\nE           RuntimeError: boom\n\n"
        "tests/test_c.py:5: RuntimeError\n"
    )
    assert traces.parse(chained).crash_type == "RuntimeError"


def test_a_long_test_ids_header_has_one_underscore_a_side():
    first = "_ test_a_very_long_parametrized_name[" + "x" * 70 + "] _\n"
    text = (
        first
        + SHORT.split("\n", 1)[1]
        + "_" * 30
        + " test_other "
        + "_" * 30
        + "\n"
        + "E   KeyError: 'k'\nx.py:1: KeyError\n"
    )
    assert traces.parse(text).crash_type == "IndexError"
