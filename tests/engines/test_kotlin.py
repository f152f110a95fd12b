"""Kotlin K1 against K2: generated files through the real kotlinc, and frontends that misbehave on purpose.

kotlinc starts a JVM for every compile (seconds each), so these tests
compile few files: the generator's files are checked ten at a time in one
kotlinc call per frontend, each file in its own package.
"""

from __future__ import annotations

import dataclasses
import random
import re
import subprocess

from engines import events, sandbox
from engines.differential import backends, compare, findings, harness, kotlin, kotlingen
from engines.differential.backends import Backend

# A frontend wrapper: refuses files with a sealed interface, otherwise the real K1.
SEALED_REFUSED = "program.kt:1:1: error: sealed interfaces are refused by this frontend."
ICE = (
    "exception: java.lang.IllegalStateException: planted frontend crash\\n"
    "\\tat org.jetbrains.kotlin.fir.resolve.Planted.resolve(Planted.kt:12)\\n"
    "\\tat org.jetbrains.kotlin.fir.resolve.Planted.run(Planted.kt:40)\\n"
    "\\tat org.jetbrains.kotlin.cli.jvm.compiler.KotlinToJVMBytecodeCompiler.compile(KotlinToJVMBytecodeCompiler.kt:99)"
)


def _wrapped(name: str, real: Backend, trigger: str, reaction: str) -> Backend:
    """``real``, except that a file containing ``trigger`` gets ``reaction`` (a shell snippet) instead."""
    script = f"if grep -q '{trigger}' {{source}}; then {reaction}; fi; exec " + " ".join(real.compile)
    return Backend(
        name=name,
        compile=("sh", "-c", script),
        run=real.run,
        compile_timeout=real.compile_timeout,
        crash_markers=real.crash_markers,
        crash_exit_codes=real.crash_exit_codes,
        memory_bytes=real.memory_bytes,
        environment=real.environment,
    )


def _file_with(*needles: str) -> kotlingen.Program:
    rng = random.Random(3)
    while True:
        program = kotlingen.generate(rng)
        if all(needle in program.text for needle in needles):
            return program


def test_generated_files_compile_with_both_frontends(tmp_path):
    rng = random.Random(11)
    programs = [kotlingen.generate(rng) for _ in range(10)]
    sources = []
    for index, program in enumerate(programs):
        path = tmp_path / f"file{index}.kt"
        path.write_text(f"package p{index}\n\n{program.text}")
        sources.append(str(path))
    # Swarm weights differ per file: some use sealed classes, some lambdas, ...
    assert len({program.options for program in programs}) == 10
    assert sum("sealed interface" in p.text for p in programs) not in (0, 10)
    for flags in ((), ("-language-version", "1.9")):
        done = subprocess.run(  # noqa: S603
            [kotlin.kotlinc(), *flags, "-nowarn", *sources, "-d", str(tmp_path / "out")],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        refused = set(re.findall(r"(file\d+)\.kt:\d+:\d+: error", done.stderr))
        assert len(refused) <= 1, done.stderr[-3000:]


def test_k1_and_k2_agree_on_a_generated_file_and_the_outcome_pair_is_recorded():
    program = kotlingen.generate(random.Random(5))
    results = harness.process(program.text, ".kt", kotlin.backends(), sandbox.Limits())
    outcomes = [(r.backend, r.stage, r.outcome) for r in results]
    assert outcomes == [("kotlin-k1", "run", "ok"), ("kotlin-k2", "run", "ok")]
    assert results[0].stdout == results[1].stdout
    assert re.match(r"f\d+: ", results[0].stdout)  # main printed what each function returned
    assert "kotlinc-jvm 2.1.21" in results[0].version
    assert compare.classify(results).interesting is False


def test_one_frontend_rejecting_or_crashing_is_a_finding_with_the_message_and_trace():
    k1, k2 = kotlin.backends()[:2]  # the default kotlinc's (others follow when more versions are installed)
    program = _file_with("sealed interface", "data class")
    refusing = _wrapped("k1-refuses-sealed", k1, "sealed interface", f"echo '{SEALED_REFUSED}' >&2; exit 1")
    crashing = _wrapped("k1-crashes-on-data", k1, "data class", f"printf '{ICE}\\n' >&2; exit 2")
    results = harness.process(program.text, ".kt", [k2, refusing, crashing], sandbox.Limits())
    verdict = compare.classify(results)
    assert verdict.outcomes == {
        "kotlin-k2": "ok",
        "k1-refuses-sealed": "rejected",
        "k1-crashes-on-data": "compiler_crash",
    }
    found = findings.findings(
        target="kotlin compilers",
        language="kotlin",
        program=program.text,
        reproducer=program.command,
        verdict=verdict,
        results=results,
        metadata={},
    )
    by_backend = {f.function: f for f in found}
    assert set(by_backend) == {"k1-refuses-sealed", "k1-crashes-on-data"}
    rejection = by_backend["k1-refuses-sealed"]
    assert rejection.kind == events.CRASH and rejection.crash_type == "rejected by k1-refuses-sealed"
    assert rejection.message == (
        "k1-refuses-sealed rejected what kotlin-k2 accepted: error: sealed interfaces are refused by this frontend."
    )
    crash = by_backend["k1-crashes-on-data"]
    assert "at org.jetbrains.kotlin.fir.resolve.Planted.resolve(Planted.kt:12)" in crash.trace
    assert crash.message.startswith("exception: java.lang.IllegalStateException: planted frontend crash")


def test_only_installed_frontends_are_offered():
    names = {b.name for b in backends.available(kotlin.backends())}
    assert names == {"kotlin-k1", "kotlin-k2"}
    # Named by FUZZWEB_KOTLINC or found nowhere: not offered.
    missing = [dataclasses.replace(b, compile=("/nonexistent/kotlinc", *b.compile[1:])) for b in kotlin.backends()]
    assert backends.available(missing) == []
