"""The culprit of a wrong-code finding: the pass (clang's opt-bisect) or the flags (gcc) that break it.

The compilers are wrappers with a bug planted in one optimisation (tests/data/planted/pass_gcc,
pass_clang): real gcc and clang, except that a left shift by 3 becomes a shift by 2 while that
optimisation is in effect.
"""

from __future__ import annotations

from pathlib import Path

from engines import sandbox
from engines.differential import culprit, harness, versions
from engines.differential.backends import Backend

PLANTED = Path(__file__).resolve().parents[1] / "data" / "planted"
PROGRAM = (
    '#include <stdio.h>\nint main(void) {\n    volatile int x = 5;\n    printf("%d\\n", x << 3);\n    return 0;\n}\n'
)


def _backend(name: str, compiler: str, level: str) -> Backend:
    return Backend(
        name=name,
        compile=(compiler, level, "-w", "-o", "{binary}", "{source}"),
        run=("{binary}",),
        version=("gcc", "--version") if "gcc" in name else ("clang", "--version"),
    )


def _wrong(result: harness.Result) -> bool:
    return result.stdout != "40\n"


def test_gcc_names_the_one_flag_whose_removal_makes_the_program_right():
    backend = _backend("planted-gcc-O2", str(PLANTED / "pass_gcc"), "-O2")
    assert harness.process(PROGRAM, ".c", [backend], sandbox.Limits())[0].stdout == "20\n"
    found = culprit.find(backend, PROGRAM, ".c", _wrong)
    assert (found.method, found.name) == ("flags", "-ftree-vrp"), found
    assert found.position > 50 and found.tests < 40  # of the flags -O2 enables, a search, not one by one


def test_clang_names_the_first_pass_at_which_the_program_turns_wrong():
    backend = _backend("planted-clang-O2", str(PLANTED / "pass_clang"), "-O2")
    found = culprit.find(backend, PROGRAM, ".c", _wrong)
    assert (found.method, found.name) == ("opt-bisect", "InstCombinePass"), found
    assert found.tests < 20  # a binary search, not a walk through the pipeline


def test_no_culprit_where_the_program_is_not_wrong_or_no_pipeline_exists():
    backend = _backend("gcc-O2", "gcc", "-O2")
    assert culprit.find(backend, PROGRAM, ".c", _wrong).name == "does not misbehave again"
    python = Backend(name="py", run=("python3", "{source}"))
    assert culprit.find(python, "print(1)", ".py", lambda r: True).method == "none"


def test_the_version_matrix_names_the_first_bad_and_last_good_release(tmp_path, monkeypatch):
    # Releases 1 and 2 are plain gcc; release 3 is the planted one (bad from -O2 up).
    for release in ("1", "2"):
        (tmp_path / f"fakecc-{release}").symlink_to("/usr/bin/gcc")
    (tmp_path / "fakecc-3").symlink_to(PLANTED / "pass_gcc")
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    backend = _backend("planted-gcc-O2", str(PLANTED / "pass_gcc"), "-O2")
    found = versions.matrix(backend, "fakecc", PROGRAM, ".c", _wrong)
    assert found["versions"] == ["1", "2", "3"]
    assert found["cells"]["3"] == {"-O0": "good", "-O1": "good", "-O2": "bad", "-O3": "bad", "-Os": "good"}
    assert found["first_bad"] == {"-O0": None, "-O1": None, "-O2": "3", "-O3": "3", "-Os": None}
    assert found["last_good"]["-O2"] == "2"


def test_two_bugs_at_one_level_get_two_culprits_and_one_bug_at_two_levels_gets_one():
    # tests/data/planted/multi_clang: "% 7" is miscompiled in GVNPass, "* 9" in JumpThreadingPass.
    def program(operation: str) -> str:
        return PROGRAM.replace("x << 3", f"x {operation}").replace("int x = 5", "int x = 100")

    def right(expected: str):
        return lambda result: result.stdout != expected

    multi = str(PLANTED / "multi_clang")
    keys = {}
    for level, operation, expected in (("-O2", "% 7", "2\n"), ("-O2", "* 9", "900\n"), ("-O3", "% 7", "2\n")):
        backend = _backend(f"multi-clang{level}", multi, level)
        found = culprit.find(backend, program(operation), ".c", right(expected))
        keys[(level, operation)] = culprit.cause_key(culprit.family(backend), found.to_dict())
    assert keys[("-O2", "% 7")] == "clang:opt-bisect:GVNPass"
    assert keys[("-O2", "* 9")] == "clang:opt-bisect:JumpThreadingPass"
    assert keys[("-O3", "% 7")] == keys[("-O2", "% 7")]
