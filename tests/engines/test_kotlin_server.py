"""The warm Kotlin compiler and kotlinc versions side by side, with the real kotlinc, java and sandbox.

A cold kotlinc costs seconds per compile, so these tests compile few files:
the warm compiler is shared by the tests of this module, and counted
(``starts``, ``cold_compiles``) to see when it restarted or handed a file
to a cold kotlinc.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
from pathlib import Path

import pytest

from engines import sandbox
from engines.differential import backends, harness, kotlin, kotlin_server, kotlingen

ROOT = Path(__file__).resolve().parents[2]
# A second version to install beside the default one: 2.2 still has K1, behind a deprecation warning.
SECOND_VERSION = "2.2.21"
REFUSED = 'fun main() {\n    val x: Int = "a"\n    println(x)\n}\n'
# Nested deeper than kotlinc's parser has stack for, warm (JIT-compiled frames are smaller) or cold.
CRASHING = "fun main() {\n    val x = " + "(" * 40000 + "1" + ")" * 40000 + "\n    println(x)\n}\n"


def _by_name(listed: list[backends.Backend]) -> dict[str, backends.Backend]:
    return {backend.name: backend for backend in listed}


@pytest.fixture(scope="module")
def warm():
    listed = _by_name(kotlin.backends())
    yield listed
    listed["kotlin-k2"].server.stop()


def _generated(seed: int) -> str:
    return kotlingen.generate(random.Random(seed)).text


def _seen(result: harness.Result) -> tuple:
    return (result.backend, result.stage, result.outcome, result.exit_status, result.stdout, result.stderr)


def test_the_frontends_of_a_version_share_one_warm_compiler(warm):
    assert warm["kotlin-k1"].server is warm["kotlin-k2"].server is not None
    assert all(backend.server is None for backend in kotlin.backends(warm=False))


def test_warm_compiles_give_what_cold_ones_give(warm):
    cold = _by_name(kotlin.backends(warm=False))
    server = warm["kotlin-k2"].server
    starts, cold_compiles = server.starts, server.cold_compiles
    for program in (_generated(5), REFUSED):
        (warm_result,) = harness.process(program, ".kt", [warm["kotlin-k2"]], sandbox.Limits())
        (cold_result,) = harness.process(program, ".kt", [cold["kotlin-k2"]], sandbox.Limits())
        assert _seen(warm_result) == _seen(cold_result)
    # The refused file's message names it as a cold kotlinc does, relative to the work directory.
    assert warm_result.outcome == "rejected"
    assert warm_result.stderr.startswith("program.kt:2:18: error: initializer type mismatch")
    assert (server.starts, server.cold_compiles) in ((starts, cold_compiles), (starts + 1, cold_compiles))


def test_a_compiler_crash_is_confirmed_cold_and_the_next_file_gets_a_new_warm_compiler(warm):
    server = warm["kotlin-k2"].server
    (crashed,) = harness.process(CRASHING, ".kt", [warm["kotlin-k2"]], sandbox.Limits())
    assert (crashed.stage, crashed.outcome, crashed.exit_status) == ("compile", "compiler_crash", 2)
    assert crashed.stderr.startswith("exception: java.lang.StackOverflowError\n\tat ")
    # The crash's result is a cold kotlinc's, and the warm JVM it went through is gone.
    assert server.cold_compiles >= 1 and not server.running
    starts, cold_compiles = server.starts, server.cold_compiles
    (after,) = harness.process(_generated(6), ".kt", [warm["kotlin-k2"]], sandbox.Limits())
    assert (after.stage, after.outcome) == ("run", "ok")
    assert (server.starts, server.cold_compiles) == (starts + 1, cold_compiles)


def test_a_compile_past_its_time_limit_is_killed_and_the_server_restarted(warm):
    server = warm["kotlin-k2"].server
    impatient = dataclasses.replace(warm["kotlin-k2"], compile_timeout=0.5)
    # Thousands of functions: seconds of work even for a warm compiler.
    huge = "".join(f"fun f{i}(x: Int): Int = x * {i} + {i}\n" for i in range(6000)) + "fun main() = println(f1(2))\n"
    starts = server.starts
    (slow,) = harness.process(huge, ".kt", [impatient], sandbox.Limits())
    assert (slow.stage, slow.outcome, slow.exit_status) == ("compile", "timeout", None)
    assert not server.running
    (after,) = harness.process(_generated(7), ".kt", [warm["kotlin-k2"]], sandbox.Limits())
    assert (after.stage, after.outcome) == ("run", "ok")
    assert server.starts == starts + (1 if starts else 2)


def test_a_command_the_server_does_not_own_is_compiled_cold(warm):
    server = warm["kotlin-k2"].server
    other = dataclasses.replace(warm["kotlin-k2"], compile=("sh", "-c", "echo 'e: refused' >&2; exit 1"))
    cold_compiles = server.cold_compiles
    (result,) = harness.process(REFUSED, ".kt", [other], sandbox.Limits())
    assert (result.outcome, result.stderr) == ("rejected", "e: refused\n")
    assert server.cold_compiles == cold_compiles + 1


@pytest.fixture(scope="module")
def second_version(tmp_path_factory):
    tools = tmp_path_factory.mktemp("tools")
    done = subprocess.run(
        ["make", "-s", "kotlin", f"KOTLIN_TOOLS={tools}", f"KOTLIN_VERSION={SECOND_VERSION}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return tools


def test_every_installed_version_gets_its_backends_and_its_own_warm_compiler(second_version):
    # The default version, linked in as well, is not listed twice.
    (second_version / f"kotlin-compiler-{kotlin.KOTLIN_VERSION}").symlink_to(Path(kotlin.kotlinc()).parents[1])
    assert list(kotlin.installed_versions(second_version)) == [kotlin.KOTLIN_VERSION, SECOND_VERSION]
    listed = kotlin.backends(tools=second_version)
    assert [backend.name for backend in listed] == [
        "kotlin-k1",
        "kotlin-k2",
        f"kotlin-{SECOND_VERSION}-k1",
        f"kotlin-{SECOND_VERSION}-k2",
    ]
    assert listed[2].server is listed[3].server is not listed[0].server
    results = harness.process(_generated(5), ".kt", listed[2:], sandbox.Limits())
    try:
        assert [(r.backend, r.stage, r.outcome) for r in results] == [
            (f"kotlin-{SECOND_VERSION}-k1", "run", "ok"),
            (f"kotlin-{SECOND_VERSION}-k2", "run", "ok"),
        ]
        assert results[0].stdout == results[1].stdout
        assert all(f"kotlinc-jvm {SECOND_VERSION}" in result.version for result in results)
        # 2.2 warns that language version 1.9 is deprecated; the K1 backend's flags keep that out of its results.
        assert results[0].stderr == ""
        assert listed[2].server.starts == 1 and listed[2].server.cold_compiles == 0
    finally:
        listed[2].server.stop()


def test_frontends_follow_what_each_version_accepts():
    assert kotlin.frontends("1.9.25") == {"k1": ()}
    assert kotlin.frontends("2.1.21") == {"k1": ("-language-version", "1.9"), "k2": ()}
    assert kotlin.frontends("2.3.0") == {"k1": ("-language-version", "1.9", "-Xsuppress-version-warnings"), "k2": ()}
    assert kotlin.frontends("2.4.0") == {"k2": ()}
    assert sorted(["2.1.21", "2.1.3", "2.1.0-Beta2", "2.1.0"], key=kotlin._version_key) == [
        "2.1.0-Beta2",
        "2.1.0",
        "2.1.3",
        "2.1.21",
    ]


def test_the_server_is_built_where_kotlin_tools_live():
    jar = kotlin_server.server_jar(kotlin.kotlinc())
    assert jar.parent == kotlin_server.TOOLS and jar.stat().st_mode & 0o044 == 0o044
