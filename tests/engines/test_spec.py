"""User-defined differential targets described as data: checking, round trips, and running them sandboxed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engines import sandbox
from engines.differential import csmith, harness, spec

PLANTED = Path(__file__).resolve().parents[1] / "data" / "planted"
GCC = {"name": "gcc-O0", "compile": "gcc -O0 -w -o {binary} {source}", "run": "{binary}"}


def test_a_description_survives_its_round_trip_and_keeps_commands_as_written():
    description = {
        "language": "c",
        "generator": {"kind": "csmith", "swarm": False, "options": "--max-funcs 2"},
        "backends": [GCC, {**GCC, "name": "gcc-O2", "compile": "sh -c 'gcc -O2 -w -o {binary} {source}'"}],
        "reference": "gcc-O0",
    }
    stored = spec.parse(description).to_dict()
    assert stored["backends"][1]["compile"] == "sh -c 'gcc -O2 -w -o {binary} {source}'"
    assert stored["generator"]["options"] == ["--max-funcs", "2"]
    assert spec.parse(stored).to_dict() == stored
    assert spec.parse(stored).backends[1].compile == ("sh", "-c", "gcc -O2 -w -o {binary} {source}")


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"language": "kotlin"}, "language: the csmith generator writes c"),
        ({"reference": "icc"}, "reference: 'icc' is not one of the backends"),
        ({"generator": {"kind": "yarpgen"}}, "generator.kind: one of"),
        ({"generator": {"kind": "pygen", "options": "-x"}}, "generator.options: only Csmith takes options"),
        ({"backends": [GCC, {**GCC, "name": "b", "compile": "cc -o {binary}"}]}, "compile must name {source}"),
        ({"backends": [GCC, {**GCC, "name": "b", "run_timeout": 0}]}, "run_timeout: between 1 and 3600"),
        ({"backends": [GCC, {**GCC, "name": "b", "compile": "cc 'unclosed {source}"}]}, "No closing quotation"),
        ({"backends": [GCC, {"name": "py", "run": "python3 prog.py"}]}, "interpreter's run command must name"),
        ({"backends": [GCC, {**GCC, "name": "b", "paths": ["relative"]}]}, "paths is a list of absolute"),
        # TOML's nan: a clear problem, not a crash of int(nan) after the check
        ({"backends": [GCC, {**GCC, "name": "b", "memory_mb": float("nan")}]}, "memory_mb: a number"),
    ],
)
def test_each_problem_is_named_by_its_field(change, problem):
    description = {"language": "c", "generator": "csmith", "backends": [GCC, {**GCC, "name": "gcc-O1"}], **change}
    with pytest.raises(spec.SpecError) as raised:
        spec.parse(description)
    assert any(problem in text for text in raised.value.problems), raised.value.problems


def test_a_command_generator_runs_sandboxed_and_its_failures_are_clear():
    rng = random.Random(1)
    limits = sandbox.Limits()
    good = spec.Generator("command", f"python3 {PLANTED}/gen_c.py {{seed}} {{out}}")
    program = spec.generate(good, ".c", rng, limits)
    assert "int main(void)" in program.text and str(program.seed) in program.command
    # Shown as a command that runs again as it is: the program is written to program.c.
    assert program.command.endswith(f"gen_c.py {program.seed} program.c")
    # The sandbox: the generator cannot write outside its scratch directory (here, the project).
    outside = PLANTED / "escaped"
    escaping = spec.Generator("command", f"sh -c 'echo x > {outside} && echo {{seed}}'")
    with pytest.raises(csmith.GeneratorError, match="exit status"):
        spec.generate(escaping, ".c", rng, limits)
    assert not outside.exists()
    with pytest.raises(csmith.GeneratorError, match="an empty program"):
        spec.generate(spec.Generator("command", "true {seed}"), ".c", rng, limits)


def test_a_compiler_under_its_own_prefix_finds_its_files(tmp_path):
    # A compiler installed under a prefix (here a wrapper reading its own lib/) works in the sandbox.
    prefix = tmp_path / "mycc"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    (prefix / "lib" / "flags").write_text("-O1\n")
    wrapper = prefix / "bin" / "mycc"
    wrapper.write_text(f'#!/bin/sh\nexec gcc $(cat {prefix}/lib/flags) -w "$@"\n')
    wrapper.chmod(0o755)
    backend = spec.parse(
        {"language": "c", "generator": "csmith",
         "backends": [GCC, {"name": "mycc", "compile": f"{wrapper} -o {{binary}} {{source}}", "run": "{binary}"}]}
    ).backends[1]  # fmt: skip
    result = harness.process(
        '#include <stdio.h>\nint main(void){puts("hi");return 0;}\n', ".c", [backend], sandbox.Limits()
    )
    assert result[0].outcome == "ok" and result[0].stdout == "hi\n", result[0].stderr
