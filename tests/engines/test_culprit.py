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


def printing(text: str) -> harness.Result:
    """A reference run that printed ``text``."""
    return harness.Result("reference", "run", "ok", 0, "", text, "", 0.1, 0, "")


def _wrong(result: harness.Result) -> bool:
    return result.stdout != "40\n"


def test_gcc_names_the_one_flag_whose_removal_makes_the_program_right():
    backend = _backend("planted-gcc-O2", str(PLANTED / "pass_gcc"), "-O2")
    assert harness.process(PROGRAM, ".c", [backend], sandbox.Limits())[0].stdout == "20\n"
    found = culprit.find(backend, PROGRAM, ".c", _wrong)
    assert (found.method, found.name) == ("flags", "-ftree-vrp"), found
    assert found.position > 50 and found.detail == "removing it alone makes the program right"
    # The whole set that suffices, not the first one reached: groups of flags, then each of a group that did.
    assert found.tests < found.position // culprit.GROUP + 2 * culprit.GROUP
    assert found.narrowed == ""  # narrowing to a debug counter is asked for (the bucket's search), or not done


def test_gcc_names_every_flag_that_suffices_alone_the_narrow_ones_first_at_every_level():
    # pass_gcc's second bug needs -ftree-pre, -fcode-hoisting and -finline (which gates all inlining).
    program = PROGRAM.replace("x << 3", "x % 7")
    levels = [_backend(f"planted-gcc{level}", str(PLANTED / "pass_gcc"), level) for level in ("-O2", "-O3")]

    def wrong(result: harness.Result) -> bool:
        return result.stdout != "5\n"

    found = culprit.find(levels[0], program, ".c", wrong, others=(levels[1],))
    assert (found.method, found.name) == ("flags", "-fcode-hoisting or -ftree-pre"), found
    assert "-finline, which switch whole groups of passes off" in found.detail
    assert "at each of the 2 levels" in found.detail
    assert culprit.cause_key("gcc", found.to_dict()) == "gcc:flags:-fcode-hoisting or -ftree-pre"


def test_gcc_narrows_a_flag_to_the_debug_counter_and_count_that_break_the_program():
    # Three planted rewrites; only the third is printed, so the first count that breaks the program is 3.
    program = PROGRAM.replace(
        '    printf("%d\\n", x << 3);', '    volatile int a = x << 3, b = x << 3;\n    printf("%d\\n", x << 3);'
    )
    backend = _backend("planted-gcc-O2", str(PLANTED / "pass_gcc"), "-O2")
    assert "ccp" in culprit.gcc_debug_counters(backend) and len(culprit.gcc_debug_counters(backend)) > 20
    found = culprit.find(backend, program, ".c", _wrong, narrow=True)
    assert (found.name, found.narrowed) == ("-ftree-vrp", "ccp:3"), found
    assert found.to_dict()["narrowed"] == "ccp:3" and found.tests < 80


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
    assert found["fixed_in"]["-O2"] is None  # still bad in the newest release


def test_the_version_matrix_names_the_release_that_fixed_a_bug():
    # gcc-11 wrong at -O1 and up, gcc-12 right everywhere: fixed in 12 (GCC PR 100740, docs/findings.md).
    def ran(stdout: str) -> harness.Result:
        return harness.Result("b", "run", harness.OK, 0, "", stdout, "", 0.01, 0, "gcc")

    levels = ("-O0", "-O1")
    results = [ran("ok\n"), ran("check failed\n"), ran("ok\n"), ran("ok\n")]
    found = versions._summary("gcc", ["11", "12"], levels, results, lambda result: result.stdout != "ok\n")
    assert found["first_bad"] == {"-O0": None, "-O1": "11"}
    assert found["last_good"] == {"-O0": None, "-O1": None}
    assert found["fixed_in"] == {"-O0": None, "-O1": "12"}


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


def test_the_python_matrix_runs_every_installed_interpreter_plainly_and_with_asserts_off():
    names = [version for version, _ in versions.interpreters()]
    assert "3.11" in [name.removeprefix("python") for name in names] and "pypy3.9" in names  # make test installs
    assert names.index("pypy3.9") > max(i for i, name in enumerate(names) if name.startswith("python"))

    # Only PyPy names itself otherwise: bad on PyPy's rows, good on CPython's, both levels.
    found = versions.python_matrix(
        "import sys\nprint(sys.implementation.name)\n", culprit.prints_otherwise_than(printing("cpython\n"))
    )
    assert found["levels"] == ["plain", "-O"] and found["cells"]["pypy3.9"] == {"plain": "bad", "-O": "bad"}
    assert found["cells"]["python3.11"] == {"plain": "good", "-O": "good"}
    assert found["first_bad"] == {"plain": None, "-O": None}  # PyPy is not a CPython release
    # An assert that -O removes: bad at -O on every interpreter, and CPython's first bad is its oldest.
    program = "try:\n    assert False\n    print('on')\nexcept AssertionError:\n    print('off')\n"
    found = versions.python_matrix(program, culprit.prints_otherwise_than(printing("off\n")))
    assert {row["-O"] for row in found["cells"].values()} == {"bad"}
    assert {row["plain"] for row in found["cells"].values()} == {"good"}
    assert found["first_bad"]["-O"] == names[0] and found["last_good"]["-O"] is None


def test_the_kotlin_matrix_compiles_with_every_installed_release_and_frontend():
    program = "fun main() {\n    println(listOf(1, 2, 3).sum() / 2)\n}\n"

    def printing(text: str) -> harness.Result:
        return harness.Result("reference", "run", "ok", 0, "", text, "", 0.1, 0, "")

    found = versions.kotlin_matrix(program, culprit.prints_otherwise_than(printing("3\n")))
    assert found["family"] == "kotlin" and found["levels"] == ["k1", "k2"]
    assert "2.1.21" in found["versions"]  # make test installs it (make kotlin)
    assert found["cells"]["2.1.21"] == {"k1": "good", "k2": "good"}  # two cold compiles: one look is enough
    assert found["first_bad"] == {"k1": None, "k2": None}


def test_only_python_3_interpreters_are_rows_of_the_matrix(tmp_path, monkeypatch):
    for name in ("python2.7", "python3.9", "python3.12", "pypy3.10", "python3.12-config", "pythonw"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert [version for version, _ in versions.interpreters()] == ["python3.9", "python3.12", "pypy3.10"]
