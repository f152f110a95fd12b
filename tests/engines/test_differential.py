"""The differential harness on real compilers: Csmith programs, and backends that misbehave on purpose."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from engines import events, sandbox
from engines.differential import backends, c, compare, csmith, engine, execute, findings, harness
from engines.differential.backends import Backend

LIMITS = sandbox.Limits()

HELLO = '#include <stdio.h>\nint main(void) { printf("checksum = 1234\\n"); printf("done\\n"); return 0; }\n'


def _gcc(name="gcc-O0", run=("{binary}",), compile_=None):
    return Backend(name=name, compile=compile_ or ("gcc", "-O0", "-o", "{binary}", "{source}"), run=run)


def test_execute_measures_time_memory_and_caps_output(tmp_path):
    done = execute.run(["python3", "-c", "x = bytearray(50_000_000); print('y' * 400_000)"], str(tmp_path), 30, LIMITS)
    assert done.returncode == 0
    assert done.peak_memory_kb > 50_000
    assert done.stdout.endswith("[output truncated]")
    slow = execute.run(["sleep", "5"], str(tmp_path), 0.3, LIMITS)
    assert slow.timed_out and slow.seconds < 2
    crashed = execute.run(
        ["python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], str(tmp_path), 30, LIMITS
    )
    assert crashed.signal == "SIGSEGV"


def test_first_difference_names_the_line():
    assert compare.first_difference("a\nb\nc\n", "a\nX\nc\n") == {"line": 2, "expected": "b", "actual": "X"}
    assert compare.first_difference("a\n", "a\nb\n") == {"line": 2, "expected": "<end of output>", "actual": "b"}


def test_corrupted_output_is_a_miscompilation_with_the_first_diverging_line():
    corrupt = _gcc("gcc-corrupt", run=("sh", "-c", "{binary} | sed 's/1234/1235/'"))
    results = harness.process(HELLO, ".c", [_gcc("gcc-O0"), _gcc("gcc-O2"), corrupt], LIMITS)
    verdict = compare.classify(results)
    assert verdict.reference == "gcc-O0"
    assert verdict.outcomes == {"gcc-O0": "ok", "gcc-O2": "ok", "gcc-corrupt": "wrong_output"}
    assert verdict.first_difference["gcc-corrupt"] == {
        "line": 1,
        "expected": "checksum = 1234",
        "actual": "checksum = 1235",
    }
    # A designated reference wins over the majority.
    assert compare.classify(results, reference="gcc-corrupt").outcomes["gcc-O0"] == "wrong_output"
    found = findings.findings(
        target="c", language="c", program=HELLO, reproducer="", verdict=verdict, results=results, metadata={}
    )
    assert [(f.kind, f.function) for f in found] == [(events.MISCOMPILATION, "gcc-corrupt")]
    assert "expected 'checksum = 1234', got 'checksum = 1235'" in found[0].message
    assert {b.name: b.outcome for b in found[0].backends}["gcc-corrupt"] == "wrong_output"


def test_compiler_crashes_rejections_and_timeouts_are_told_apart():
    segfaulting = _gcc("cc-segv", compile_=("sh", "-c", "kill -SEGV $$"))
    ice = _gcc(
        "cc-ice",
        compile_=("sh", "-c", "echo 'program.c:1: internal compiler error: in fold, at fold.c:12' >&2; exit 4"),
    )
    refusing = _gcc("cc-refuse", compile_=("sh", "-c", "echo 'program.c:1: error: expected ;' >&2; exit 1"))
    hanging = _gcc("run-hang", run=("sleep", "10"))
    hanging = Backend(name=hanging.name, compile=hanging.compile, run=hanging.run, run_timeout=0.5)
    results = harness.process(HELLO, ".c", [_gcc(), segfaulting, ice, refusing, hanging], LIMITS)
    verdict = compare.classify(results)
    assert verdict.outcomes == {
        "gcc-O0": "ok",
        "cc-segv": "compiler_crash",
        "cc-ice": "compiler_crash",
        "cc-refuse": "rejected",
        "run-hang": "timeout",
    }
    found = findings.findings(
        target="c", language="c", program=HELLO, reproducer="", verdict=verdict, results=results, metadata={}
    )
    kinds = {(f.kind, f.function, f.crash_type) for f in found}
    assert kinds == {
        (events.CRASH, "cc-segv", "SIGSEGV"),
        (events.CRASH, "cc-ice", "compiler crash"),
        (events.TIMEOUT, "run-hang", "Timeout"),
        # Refusing what the others compile is a finding of its own.
        (events.CRASH, "cc-refuse", "rejected by cc-refuse"),
    }
    ice_finding = next(f for f in found if f.function == "cc-ice")
    # The compiler's first error, without where it was: one bucket for every program that hits it.
    assert ice_finding.message.startswith("internal compiler error: in fold")
    refused = next(f for f in found if f.function == "cc-refuse")
    assert refused.message.startswith("cc-refuse rejected what gcc-O0, run-hang accepted: error: expected ;")


def test_a_program_every_backend_rejects_is_a_generator_bug():
    results = harness.process("int main(void) { return undeclared; }\n", ".c", [_gcc("gcc-O0"), _gcc("gcc-O2")], LIMITS)
    verdict = compare.classify(results)
    assert verdict.generator_bug
    (finding,) = findings.findings(
        target="c", language="c", program="", reproducer="", verdict=verdict, results=results, metadata={}
    )
    assert finding.crash_type == "GeneratorBug"
    assert "undeclared" in finding.message


def test_csmith_programs_agree_across_the_installed_c_compilers():
    available = backends.available(c.backends())
    names = {b.name for b in available}
    assert {"gcc-O0", "gcc-O3"} <= names
    chosen = [b for b in available if b.name in ("gcc-O0", "gcc-O3", "clang-O2", "tcc")]
    rng = random.Random(7)
    for _ in range(3):
        program = csmith.generate(rng)
        assert program.command.startswith(f"csmith --seed {program.seed}")
        results = harness.process(program.text, ".c", chosen, LIMITS)
        if compare.too_slow(results):
            continue
        verdict = compare.classify(results)
        assert set(verdict.outcomes.values()) == {"ok"}, verdict
        assert results[0].stdout.startswith("checksum = ")
        assert all(r.version for r in results)
    # Csmith's platform.info goes to a scratch directory, not the worker's.
    assert not Path("platform.info").exists()


def test_swarm_options_vary_per_program():
    rng = random.Random(3)
    sets = {csmith.swarm_options(rng) for _ in range(20)}
    assert len(sets) == 20
    dropped = [option for options in sets for option in options if option.startswith("--no-")]
    # Each feature is dropped about half of the time.
    assert 0.3 < len(dropped) / (20 * len(csmith.SWARM_FEATURES)) < 0.7
    assert all(option[len("--no-") :] in csmith.SWARM_FEATURES for option in dropped)


class _Sink:
    def __init__(self):
        self.found, self.progress, self.states = [], [], []

    def finding(self, finding):
        self.found.append(finding)

    def stats(self, stats):
        self.progress.append(stats)

    def should_stop(self):
        return False

    def checkpoint(self, state):
        self.states.append(state)


def test_a_c_campaign_runs_programs_through_the_chosen_backends_and_resumes():
    config = engine.Config(language="c", backends=["gcc-O0", "clang-O2", "tcc"], seed=5, max_programs=4)
    sink = _Sink()
    summary = engine.run(config, sink)
    assert summary.programs == 4
    assert summary.backends == ["gcc-O0", "clang-O2", "tcc"]
    assert sink.progress[-1].executions == 4
    # Resumed from its checkpoint, a run goes on from where it was.
    resumed = engine.run(dataclasses.replace(config, max_programs=5, resume=sink.states[-1]), _Sink())
    assert resumed.programs == 5


def test_unknown_backends_and_languages_are_refused_with_the_reason():
    with pytest.raises(engine.SetupError, match="not installed on this worker: gcc-O9"):
        engine.run(engine.Config(language="c", backends=["gcc-O0", "gcc-O9"]), _Sink())
    with pytest.raises(engine.SetupError, match="unknown language 'cobol'"):
        engine.run(engine.Config(language="cobol"), _Sink())
    assert {"gcc-O0", "gcc-O3", "clang-Os", "tcc"} <= set(engine.installed_backends("c"))


def _result(name: str, outcome: str, seconds: float, stage: str = "run", stdout: str = "") -> harness.Result:
    return harness.Result(name, stage, outcome, 0 if outcome == "ok" else None, "", stdout, "", seconds, 1000, "")


def test_slow_programs_are_skipped_and_only_hangs_another_backend_avoided_are_reported():
    # Most backends cut off; the two that "finished" in 5 ms had deleted the loop (seen with clang -O1/-O2).
    mostly = [_result(f"cc{i}", "timeout", 10.0) for i in range(4)] + [_result("clang-O2", "ok", 0.005)] * 2
    assert compare.too_slow(mostly)
    assert not compare.too_slow([_result("gcc-O0", "timeout", 10.0), *[_result("gcc-O3", "ok", 0.5)] * 2])

    slow_at_o0 = [_result("gcc-O0", "timeout", 10.0), _result("gcc-O3", "ok", 3.0), _result("clang-O2", "ok", 2.0)]
    assert not compare.is_suspicious_timeout(slow_at_o0[0], slow_at_o0)  # -O0 being slow is not a bug
    hang = [_result("gcc-O2", "timeout", 10.0), _result("gcc-O0", "ok", 0.01), _result("clang-O2", "ok", 0.01)]
    assert compare.is_suspicious_timeout(hang[0], hang)  # a quick program turned into a hang
    compile_hang = _result("gcc-O3", "timeout", 60.0, stage="compile")
    assert compare.is_suspicious_timeout(compile_hang, [compile_hang, _result("gcc-O0", "ok", 50.0)])

    verdict = compare.classify(slow_at_o0)
    assert (
        findings.findings(
            target="c", language="c", program="", reproducer="", verdict=verdict, results=slow_at_o0, metadata={}
        )
        == []
    )


def test_a_reductions_candidates_get_a_few_times_the_originals_slowest_run_and_timeouts_keep_theirs():
    def result(outcome: str, seconds: float, stage: str = "run") -> harness.Result:
        return harness.Result("b", stage, outcome, 0, "", "", "", seconds, 0, "")

    assert harness.candidate_timeout([result("ok", 0.05), result("ok", 0.1)]) == harness.CANDIDATE_MIN_TIMEOUT
    assert harness.candidate_timeout([result("ok", 0.4), result("runtime_crash", 0.9)]) == pytest.approx(4.5)
    assert harness.candidate_timeout([result("ok", 3.0, stage="compile"), result("ok", 0.3)]) == pytest.approx(1.5)
    assert harness.candidate_timeout([result("ok", 0.1), result("timeout", 10.0)]) is None
