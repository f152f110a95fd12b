"""The bucket page dims the frames of the fuzzing harness and the standard library in a trace, escaped as ever."""

from __future__ import annotations

import html as html_module
import re

import pytest
from django.urls import reverse

from engines.pyfunc.engine import Config, run
from tests.crashes.test_titles import Sink
from tests.integration.test_ingest import make_finding
from triage.highlight import highlighted_trace
from triage.ingest import finding_ingest
from triage.submission import submission_from_engine

XSS = "<script>alert(1)</script>"
# A dimmed frame: our span around one line of the highlighter's escaped markup.
DIMMED = re.compile(r'<span class="frame-(harness|stdlib)" title="[a-z]+ frame">(.*?)</span>\n', re.S)


@pytest.fixture(scope="module")
def real_traces() -> dict[str, object]:
    """Findings of the function engine on tests/targets/titled.py, by crash type."""
    sink = Sink()
    run(Config(target="tests.targets.titled", seconds=60, seed=1, max_executions=400), sink)
    found = {}
    for finding in sink.findings:
        found.setdefault(finding.crash_type.rsplit(".", 1)[-1], finding)
    return found


def _bucket_page(client, submission) -> str:
    bucket = finding_ingest(submission=submission).bucket
    response = client.get(reverse("triage:bucket", args=[bucket.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _text(markup: str) -> str:
    return html_module.unescape(re.sub(r"<[^>]*>", "", markup))


def _trace_block(html: str) -> str:
    return html.split('<div class="code" id="trace">', 1)[1].split("</code></pre></div>", 1)[0]


@pytest.mark.django_db
def test_harness_and_standard_library_frames_are_dimmed_on_the_bucket_page(logged_in, real_traces):
    html = _bucket_page(logged_in, submission_from_engine(real_traces["JSONDecodeError"], "pyfunc"))
    trace = _trace_block(html)
    dimmed = DIMMED.findall(trace)
    kinds = [kind for kind, _ in dimmed]
    # The coverage tracer's frame (its line, source line and carets), then json's own frames.
    headers = [(kind, text) for kind, text in dimmed if text.startswith("  File ")]
    assert [kind for kind, _ in headers] == ["harness", "stdlib", "stdlib", "stdlib"]
    assert "engines/pyfunc/coverage.py" in headers[0][1]
    assert all("/lib/python3" in text and "/json/" in text for _, text in headers[1:])
    assert kinds[:3] == ["harness"] * 3
    # The target's frame and the exception stay as they were.
    undimmed = DIMMED.sub("", trace)
    assert re.search(r'tests/targets/titled\.py", line \d+, in parse\n', _text(undimmed))
    assert '<span class="gr">json.decoder.JSONDecodeError</span>' in undimmed
    assert "tests/targets/titled.py" not in "".join(text for _, text in dimmed)
    assert 'id="trace-dimmed-note"' in html


@pytest.mark.django_db
def test_a_trace_of_target_frames_only_has_nothing_dimmed(logged_in):
    html = _bucket_page(logged_in, make_finding())
    assert "frame-harness" not in html and "frame-stdlib" not in html
    assert 'id="trace-dimmed-note"' not in html
    assert '<span class="gr">KeyError</span>' in html


@pytest.mark.django_db
def test_dimmed_frames_stay_escaped(logged_in):
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "/srv/fuzzweb/engines/pyfunc/coverage.py", line 67, in run\n'
        f"    return function({XSS})\n"
        f'  File "/usr/lib/python3.11/{XSS}.py", line 1, in {XSS}\n'
        f"    {XSS}\n"
        f'  File "/src/app/units.py", line 42, in lookup\n'
        f"    return TABLE[{XSS}]\n"
        f"KeyError: {XSS}\n"
    )
    html = _bucket_page(logged_in, make_finding(trace=trace, message=XSS))
    assert XSS not in html
    block = _trace_block(html)
    assert [kind for kind, _ in DIMMED.findall(block)] == ["harness", "harness", "stdlib", "stdlib"]
    # Our spans only wrap whole lines: without the markup, the text is the trace, every character of it.
    assert _text(block) == trace


def test_a_repeated_frame_note_belongs_to_its_frame_and_faulthandler_dumps_are_dimmed_too():
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/src/app/walk.py", line 9, in depth\n'
        "    return depth(n + 1) + 1\n"
        "  [Previous line repeated 988 more times]\n"
        '  File "/srv/fuzzweb/engines/pyfunc/coverage.py", line 54, in local\n'
        "    arcs.add((filename, last, line))\n"
        "RecursionError: maximum recursion depth exceeded in comparison\n"
    )
    html, dimmed = highlighted_trace(trace, "python")
    assert dimmed
    assert [kind for kind, _ in DIMMED.findall(html)] == ["harness", "harness"]
    assert "Previous line repeated" not in "".join(text for _, text in DIMMED.findall(html))
    dump = (
        "Fatal Python error: Segmentation fault\n\n"
        "Current thread 0x00007f (most recent call first):\n"
        '  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at\n'
        '  File "/src/app/native.py", line 4 in peek\n'
        '  File "/srv/fuzzweb/engines/pyfunc/child.py", line 265 in serve\n'
    )
    html, dimmed = highlighted_trace(dump, "python-faulthandler")
    assert [kind for kind, _ in DIMMED.findall(html)] == ["stdlib", "harness"]
    # Other formats are highlighted as before, nothing dimmed.
    html, dimmed = highlighted_trace("java.lang.IllegalStateException: x\n\tat a.B.c(B.java:1)\n", "jvm")
    assert not dimmed and "frame-" not in html


@pytest.mark.django_db
def test_a_faulthandler_dump_renders_with_its_frames_dimmed(logged_in):
    # Pygments' traceback lexer looped forever on faulthandler's 'line 4 in peek' frames:
    # the bucket page of every segfault or hang never answered.
    dump = (
        "Fatal Python error: Segmentation fault\n\n"
        "Current thread 0x00007f3a (most recent call first):\n"
        '  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at\n'
        f'  File "/src/app/{XSS}.py", line 4 in peek\n'
        '  File "/srv/fuzzweb/engines/pyfunc/coverage.py", line 67 in run\n'
        '  File "/srv/fuzzweb/engines/pyfunc/child.py", line 265 in serve\n'
    )
    submission = make_finding(trace=dump, crash_type="Segmentation fault", message="")
    html = _bucket_page(logged_in, submission)
    block = _trace_block(html)
    assert [kind for kind, _ in DIMMED.findall(block)] == ["stdlib", "harness", "harness"]
    assert XSS not in html and "/src/app/&lt;script&gt;alert(1)&lt;/script&gt;.py" in DIMMED.sub("", block)
