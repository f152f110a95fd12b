"""The pyfunc engine, run for real against the demo and hostile targets."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from crashes import signatures, traces
from engines import events, sandbox
from engines.demo import textkit
from engines.pyfunc.engine import Config, TargetError, run

BASE_DIR = Path(__file__).resolve().parents[2]


@dataclass
class RecordingSink:
    """Keeps every event; stops after ``stop_after`` findings if set."""

    stop_after: int | None = None
    findings: list[events.Finding] = field(default_factory=list)
    stats_seen: list[events.Stats] = field(default_factory=list)
    states: list[dict] = field(default_factory=list)

    def finding(self, finding):
        self.findings.append(finding)

    def stats(self, stats):
        self.stats_seen.append(stats)

    def should_stop(self):
        return self.stop_after is not None and len(self.findings) >= self.stop_after

    def checkpoint(self, state):
        self.states.append(state)


def _innermost_function(finding: events.Finding) -> str:
    return traces.parse(finding.trace).frames[0].function


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_finds_every_planted_bug_and_nothing_else(seed):
    sink = RecordingSink()
    summary = run(Config(target="engines.demo.textkit", seconds=60, seed=seed, max_executions=4000), sink)
    found = {(f.crash_type, _innermost_function(f)) for f in sink.findings}
    assert found == textkit.PLANTED_BUGS
    # Hundreds of raw findings, one signature per planted bug.
    digests = {
        signatures.compute(kind=f.kind, crash_type=f.crash_type, trace_text=f.trace).digest for f in sink.findings
    }
    assert len(sink.findings) > len(textkit.PLANTED_BUGS)
    assert len(digests) == len(textkit.PLANTED_BUGS)
    assert summary.executions == 4000
    assert summary.skipped == [{"name": "apply_all", "reason": summary.skipped[0]["reason"]}]
    assert "Callable" in summary.skipped[0]["reason"]


def test_same_seed_same_run():
    def calls(seed):
        sink = RecordingSink()
        run(Config(target="engines.demo.textkit", seconds=60, seed=seed, max_executions=600), sink)
        return [(f.function, f.input_text) for f in sink.findings]

    first = calls(7)
    assert first and first == calls(7)
    assert first != calls(8)


def test_reproducer_replays_the_crash():
    sink = RecordingSink(stop_after=20)
    run(Config(target="engines.demo.textkit", seconds=30, seed=4), sink)
    for finding in sink.findings[:5]:
        # The reproducer is a shell one-liner by design: run it as a user would.
        result = subprocess.run(  # noqa: S602
            finding.reproducer, shell=True, cwd=BASE_DIR, capture_output=True, text=True
        )
        assert result.returncode == 1
        last_line = result.stderr.strip().splitlines()[-1]
        assert last_line.startswith(finding.crash_type), (finding.reproducer, result.stderr)


def test_findings_carry_trace_input_and_versions():
    sink = RecordingSink(stop_after=1)
    run(Config(target="engines.demo.textkit", seconds=30, seed=5), sink)
    finding = sink.findings[0]
    assert finding.trace.startswith("Traceback (most recent call last):")
    # The harness's own frame is cut off: the trace starts at the target.
    assert "engines/pyfunc/child.py" not in finding.trace
    assert finding.input_text.startswith(f"{finding.function}(")
    assert finding.environment["python"].startswith("3.")
    assert finding.kind == events.CRASH


def test_hostile_target_is_a_finding_never_a_worker_crash():
    limits = sandbox.Limits(memory_bytes=512 * 1024 * 1024, call_timeout_seconds=0.5)
    sink = RecordingSink()
    summary = run(Config(target="tests.targets.hostile", seconds=120, seed=1, max_executions=80, limits=limits), sink)
    assert summary.executions == 80
    by_function = {f.function: f for f in sink.findings}
    assert set(by_function) == {
        "segfault",
        "hang_on_odd",
        "eat_memory",
        "exit_process",
        "chatter",
        "leave",
        "fork_bomb",
        "allocate_50_gb",
    }

    segfault = by_function["segfault"]
    assert (segfault.kind, segfault.crash_type) == (events.CRASH, "SIGSEGV")
    assert [f.function for f in traces.parse(segfault.trace).frames[:2]] == ["string_at", "segfault"]

    # A hang on some inputs is a finding; a function that never returns cannot be fuzzed.
    hang = by_function["hang_on_odd"]
    assert (hang.kind, hang.crash_type) == (events.TIMEOUT, "Timeout")
    assert hang.input_text.startswith("hang_on_odd(")
    # Innermost frame of the target's own (the harness's tracer may be above it).
    own = [f.function for f in traces.parse(hang.trace).frames if "engines/pyfunc/" not in f.file]
    assert own[0] == "hang_on_odd"
    assert "hang" not in summary.functions
    assert {"name": "hang", "reason": "hangs: its first 3 calls did not return within 0.5 s"} in summary.skipped

    assert by_function["eat_memory"].kind == events.OOM
    assert (by_function["allocate_50_gb"].kind, by_function["allocate_50_gb"].crash_type) == (events.OOM, "MemoryError")
    # The fork bomb hits the process cap (a pids cgroup, or RLIMIT_NPROC) and
    # every process it made is gone with the child's process group.
    assert (by_function["fork_bomb"].kind, by_function["fork_bomb"].crash_type) == (events.CRASH, "BlockingIOError")
    leftovers = subprocess.run(["pgrep", "-f", "engines.pyfunc.child tests.targets.hostile"], capture_output=True)
    assert leftovers.stdout == b""
    assert by_function["exit_process"].crash_type == "ExitStatus"
    assert by_function["chatter"].crash_type == "ValueError"
    assert by_function["leave"].crash_type == "SystemExit"
    assert summary.restarts >= 3


def test_stop_request_ends_the_run_early():
    sink = RecordingSink(stop_after=3)
    summary = run(Config(target="engines.demo.textkit", seconds=60, seed=6), sink)
    assert summary.stopped
    assert sink.stats_seen[-1].elapsed_seconds < 5


def test_unimportable_targets_are_a_clear_error():
    with pytest.raises(TargetError, match="missing native library"):
        run(Config(target="tests.targets.broken_import", seconds=5), RecordingSink())
    with pytest.raises(TargetError, match="No module named"):
        run(Config(target="no.such.module", seconds=5), RecordingSink())


def test_engines_import_nothing_from_django():
    offenders = []
    for path in (BASE_DIR / "engines").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(("import django", "from django")):
                offenders.append(f"{path.relative_to(BASE_DIR)}:{number}")
    assert offenders == []


def test_engine_runs_in_a_process_without_django():
    script = (
        "import sys\n"
        "from engines.pyfunc.__main__ import main\n"
        "code = main(['engines.demo.textkit', '--seconds', '1', '--seed', '3'])\n"
        "assert not [m for m in sys.modules if m == 'django' or m.startswith('django.')], 'django imported'\n"
        "sys.exit(code)\n"
    )
    result = subprocess.run(["python3", "-c", script], cwd=BASE_DIR, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "findings" in result.stdout


def test_a_resumed_run_continues_where_the_checkpoint_left_off():
    # One run of 1,200 calls, against 500 calls, then resuming from the
    # checkpoint for the remaining 700: the same calls, in the same order.
    whole = RecordingSink()
    run(Config(target="engines.demo.textkit", seconds=60, seed=9, max_executions=1200), whole)
    first = RecordingSink()
    run(Config(target="engines.demo.textkit", seconds=60, seed=9, max_executions=500), first)
    state = json.loads(json.dumps(first.states[-1]))  # as stored in the database
    assert state["executions"] == 500
    second = RecordingSink()
    summary = run(Config(target="engines.demo.textkit", seconds=60, seed=9, max_executions=1200, resume=state), second)
    assert summary.executions == 1200
    # Both end in the very same state: the resumed run drew exactly the calls
    # the uninterrupted one drew after its 500th.
    assert second.states[-1]["rng"] == whole.states[-1]["rng"]
    assert second.states[-1]["values_rng"] == whole.states[-1]["values_rng"]
    assert second.states[-1]["findings"] == whole.states[-1]["findings"]


def test_coverage_guidance_finds_what_random_generation_does_not():
    def bugs(guided: bool) -> set[str]:
        sink = RecordingSink()
        config = Config(target="tests.targets.nested", seconds=120, seed=3, max_executions=15_000, guided=guided)
        run(config, sink)
        return {f.crash_type for f in sink.findings}

    assert bugs(guided=False) == set()
    assert bugs(guided=True) == {"RuntimeError"}


def test_failing_inputs_are_shrunk_before_they_are_reported():
    sink = RecordingSink()
    run(Config(target="engines.demo.textkit", seconds=60, seed=2, max_executions=3000), sink)
    first = {}
    for finding in sink.findings:
        first.setdefault((finding.function, finding.crash_type), finding.input_text)
    # The simplest inputs that fail at each site.
    assert first[("mean", "ZeroDivisionError")] == "mean([])"
    assert first[("initials", "IndexError")] == "initials('')"
    assert first[("header_value", "AttributeError")] == "header_value({}, '', None)"
    assert len(first[("parse_duration", "KeyError")]) == len("parse_duration('0a')")
    assert len(first[("decode_label", "UnicodeDecodeError")]) == len("decode_label(b'\\x80')")


def test_coverage_and_corpus_are_reported_and_checkpointed():
    sink = RecordingSink()
    run(Config(target="engines.demo.textkit", seconds=60, seed=4, max_executions=2000), sink)
    assert sink.stats_seen[-1].coverage > 20
    assert 0 < sink.stats_seen[-1].corpus_size <= sink.stats_seen[-1].coverage
    state = json.loads(json.dumps(sink.states[-1]))
    assert len(state["search"]["coverage"]) == sink.stats_seen[-1].coverage
    assert sum(len(entries) for entries in state["search"]["corpus"].values()) == sink.stats_seen[-1].corpus_size


def test_targets_own_types_are_built_and_their_bugs_reproduce():
    sink = RecordingSink()
    config = Config(target="tests.targets.shapes", seconds=60, seed=1, max_executions=3000, exclude=["scale"])
    run(config, sink)
    found = {(f.function, f.crash_type): f for f in sink.findings}
    assert set(found) == {
        ("paint", "KeyError"),
        ("area", "ZeroDivisionError"),
        ("find_index", "ReturnTypeViolation"),
    }
    violation = found[("find_index", "ReturnTypeViolation")]
    assert violation.message == "declared int, returned NoneType"
    assert violation.input_text == "find_index([], 0)"  # shrunk
    area = found[("area", "ZeroDivisionError")]
    assert area.input_text.startswith("area(Canvas(Size(")
    # The reproducer imports the classes its call needs.
    result = subprocess.run(area.reproducer, shell=True, cwd=BASE_DIR, capture_output=True, text=True)  # noqa: S602
    assert "ZeroDivisionError" in result.stderr.strip().splitlines()[-1], result.stderr


def test_a_package_target_covers_its_submodules_and_reports_what_it_skipped():
    sink = RecordingSink()
    summary = run(Config(target="tests.targets.textpkg", seconds=60, seed=1, max_executions=1500), sink)
    assert summary.functions == ["top", "tests.targets.textpkg.units.to_meters"]
    assert any(s["name"] == "tests.targets.textpkg.broken" and "import failed" in s["reason"] for s in summary.skipped)
    bug = next(f for f in sink.findings if f.crash_type == "KeyError")
    assert bug.function == "tests.targets.textpkg.units.to_meters"
    assert "from tests.targets.textpkg.units import to_meters; to_meters(" in bug.reproducer
    result = subprocess.run(bug.reproducer, shell=True, cwd=BASE_DIR, capture_output=True, text=True)  # noqa: S602
    assert "KeyError" in result.stderr


def test_include_and_exclude_patterns_select_functions():
    summary = run(
        Config(target="engines.demo.textkit", seconds=5, max_executions=50, include=["*a*"], exclude=["parse_*"]),
        RecordingSink(),
    )
    assert summary.functions == ["clamp", "decode_label", "header_value", "initials", "mean"]


def test_a_source_file_can_be_the_target(tmp_path):
    source = tmp_path / "standalone.py"
    source.write_text("def halve(n: int) -> int:\n    return 10 // n\n")
    sink = RecordingSink()
    run(Config(target=str(source), seconds=30, seed=1, max_executions=300), sink)
    finding = next(f for f in sink.findings if f.crash_type == "ZeroDivisionError")
    assert finding.input_text == "halve(0)"
    result = subprocess.run(finding.reproducer, shell=True, capture_output=True, text=True)  # noqa: S602
    assert "ZeroDivisionError" in result.stderr


def test_explicit_raises_are_marked_expected_and_ignored_types_are_not_findings():
    sink = RecordingSink()
    run(Config(target="tests.targets.shapes", seconds=60, seed=1, max_executions=2000, include=["scale", "area"]), sink)
    by_type = {f.crash_type: f for f in sink.findings}
    assert by_type["ValueError"].expected is True  # `raise ValueError(...)` in scale itself
    assert by_type["ZeroDivisionError"].expected is False  # an operation failed: a bug
    quiet = RecordingSink()
    run(
        Config(
            target="tests.targets.shapes",
            seconds=60,
            seed=1,
            max_executions=2000,
            include=["scale", "area"],
            ignore_exceptions=["ValueError"],
        ),
        quiet,
    )
    assert {f.crash_type for f in quiet.findings} == {"ZeroDivisionError"}


def test_an_argument_another_package_cannot_build_is_no_finding_of_the_function():
    # validators 0.28.3's uuid(value: str | UUID) gave a dozen "crashes" in a 20-minute campaign, every one
    # of them uuid.UUID's own constructor refusing arguments drawn from its hints, before any call.
    sink = RecordingSink()
    summary = run(Config(target="tests.targets.foreign_args", seconds=5, seed=1, max_executions=400), sink)
    assert summary.executions > 100
    assert [f for f in sink.findings if "uuid.py" in f.trace] == []
