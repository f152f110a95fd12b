"""Bucket titles name the target's own function: not a comprehension, a lambda, the harness or the standard library.

The titles come from real traces of the function engine; the signatures they
belong to are the same as before titles looked past the hashed frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from crashes import signatures, traces
from crashes.model import Frame
from crashes.origins import HARNESS, STDLIB, TARGET, origin_of, title_function
from engines import events
from engines.pyfunc.engine import Config, run


@dataclass
class Sink:
    findings: list[events.Finding] = field(default_factory=list)

    def finding(self, finding):
        self.findings.append(finding)

    def stats(self, stats):
        pass

    def should_stop(self):
        return False

    def checkpoint(self, state):
        pass


@pytest.fixture(scope="module")
def titled_findings() -> dict[tuple[str, str], events.Finding]:
    """The first finding per (crash type, fuzzed function) of a short run on tests/targets/titled.py."""
    sink = Sink()
    run(Config(target="tests.targets.titled", seconds=60, seed=1, max_executions=400), sink)
    found: dict[tuple[str, str], events.Finding] = {}
    for finding in sink.findings:
        found.setdefault((finding.crash_type.rsplit(".", 1)[-1], finding.function), finding)
    return found


def _signature(finding: events.Finding):
    return signatures.compute(kind=finding.kind, crash_type=finding.crash_type, trace_text=finding.trace)


def test_a_generator_expression_crash_is_titled_by_its_function(titled_findings):
    finding = titled_findings[("ZeroDivisionError", "spread")]
    parsed = traces.parse(finding.trace)
    assert parsed.frames[0].function == "<genexpr>"  # the premise: the innermost frame is the expression's
    signature = _signature(finding)
    assert signature.title == "ZeroDivisionError in spread"
    # The signature still hashes the expression's frame, as it always did.
    assert signature.frames[0].endswith("titled.py:<genexpr>")


def test_a_crash_inside_the_harness_is_titled_by_the_target_frame(titled_findings):
    finding = titled_findings[("RecursionError", "depth")]
    innermost = traces.parse(finding.trace).frames[0]
    assert origin_of(innermost.file) == HARNESS, innermost  # the premise: the tracer's frame is innermost
    assert _signature(finding).title == "RecursionError in depth"


def test_a_crash_inside_the_standard_library_is_titled_by_the_target_frame(titled_findings):
    finding = titled_findings[("JSONDecodeError", "parse")]
    innermost = traces.parse(finding.trace).frames[0]
    assert origin_of(innermost.file) == STDLIB, innermost
    assert _signature(finding).title == "json.decoder.JSONDecodeError in parse"


def test_origins():
    assert origin_of("/srv/fuzzweb/engines/pyfunc/coverage.py") == HARNESS
    assert origin_of("/srv/fuzzweb/engines/sandbox.py") == HARNESS
    assert origin_of("/usr/lib/python3.11/site-packages/hypothesis/core.py") == HARNESS
    assert origin_of("/usr/lib/python3.11/json/decoder.py") == STDLIB
    assert origin_of("<frozen runpy>") == STDLIB
    assert origin_of("/usr/lib/python3/dist-packages/requests/api.py") == TARGET
    # The demo target lives under engines/ but is fuzzed, not fuzzing.
    assert origin_of("/srv/fuzzweb/engines/demo/textkit.py") == TARGET
    assert origin_of("/home/a/project/engines_pyfunc.py") == TARGET


def test_lambda_and_comprehension_frames_pass_to_the_enclosing_function():
    frames = (
        Frame("<lambda>", "/src/app/sorting.py", 4),
        Frame("<listcomp>", "/src/app/sorting.py", 9),
        Frame("order", "/src/app/sorting.py", 9),
        Frame("run", "/srv/fuzzweb/engines/pyfunc/coverage.py", 67),
    )
    assert title_function(frames) == "order"
    # Nothing named in the target's code: its pseudo-frame is still better than the harness.
    assert title_function(frames[:1] + frames[3:]) == "<lambda>"


def test_a_fuzzed_standard_library_module_is_titled_by_its_own_frame():
    frames = (
        Frame("_split_chunks", "/usr/lib/python3.11/textwrap.py", 342),
        Frame("wrap", "/usr/lib/python3.11/textwrap.py", 353),
        Frame("run", "/srv/fuzzweb/engines/pyfunc/coverage.py", 67),
    )
    assert title_function(frames) == "_split_chunks"
    assert title_function(frames[2:]) == ""  # the harness alone names nothing


def test_titles_of_other_languages_are_unchanged():
    trace = (
        'Exception in thread "main" java.lang.IllegalStateException: boom\n'
        "\tat com.example.Parser.lambda$parse$0(Parser.java:12)\n"
        "\tat com.example.Parser.parse(Parser.java:20)\n"
    )
    signature = signatures.compute(kind="crash", trace_text=trace)
    assert signature.title_frame is None
    assert signature.title == f"java.lang.IllegalStateException in {signature.frames[0]}"
