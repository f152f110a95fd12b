"""Generated Python programs: valid, deterministic, terminating; differences between backends detected."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from engines import sandbox
from engines.differential import backends, compare, harness, pygen, python
from engines.differential.backends import Backend

# Runs many programs in one interpreter, each in a fresh namespace with its
# output captured and a time limit; prints {index: [completed, output]}.
RUNNER = """
import contextlib, io, json, signal, sys
programs = json.load(sys.stdin)
def alarm(signum, frame):
    raise TimeoutError
signal.signal(signal.SIGALRM, alarm)
results = {}
for index, text in enumerate(programs):
    out = io.StringIO()
    signal.alarm(5)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(text, f"program{index}.py", "exec"), {"__name__": "__main__"})
        results[index] = [True, out.getvalue()]
    except BaseException as error:
        results[index] = [False, type(error).__name__]
    finally:
        signal.alarm(0)
print(json.dumps(results))
"""


def _run_all(programs: list[str], hash_seed: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(programs),
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"},
        check=True,
    )
    return json.loads(result.stdout)


def test_a_thousand_programs_complete_on_cpython_with_the_same_output_twice():
    rng = random.Random(2026)
    programs = [pygen.generate(rng).text for _ in range(1000)]
    # Two interpreters with different string hashing: set and dict order
    # must not leak into the output.
    first, second = _run_all(programs, "1"), _run_all(programs, "2")
    completed = [i for i in first if first[i][0]]
    identical = [i for i in completed if first[i] == second[i]]
    assert len(completed) >= 990, [first[i] for i in first if not first[i][0]][:10]
    assert len(identical) == len(completed)
    assert all(first[i][1] for i in completed)  # every program prints its checksum


def test_swarm_weights_make_programs_differ_in_their_constructs():
    rng = random.Random(4)
    counts = [pygen.generate(rng).counts for _ in range(40)]
    for feature in ("if", "for", "while", "function", "class", "try", "comprehension", "closure"):
        assert any(c[feature] for c in counts), feature
        assert not all(c[feature] for c in counts), feature  # switched off in some programs


def test_the_same_seed_gives_the_same_program():
    first = pygen.generate(random.Random(9))
    again = pygen.generate(random.Random(9))
    assert first.text == again.text and first.seed == again.seed
    assert pygen.Generator(random.Random(first.seed)).program() == first.text


PLANTED = "numbers = [-3, 4, -5]\nprint('total', sum(abs(n) for n in numbers))\nprint('first', abs(numbers[0]))\n"


def test_a_planted_implementation_difference_is_detected_against_cpython_and_pypy():
    available = {b.name: b for b in backends.available(python.backends())}
    assert {"cpython", "cpython-O", "pypy3", "cython"} <= set(available)
    # An "implementation" whose abs() forgets negative numbers.
    broken = Backend(
        name="cpython-broken-abs",
        run=(
            sys.executable,
            "-c",
            "import builtins, sys; builtins.abs = lambda x: x; exec(open(sys.argv[1]).read())",
            "{source}",
        ),
    )
    results = harness.process(PLANTED, ".py", [available["cpython"], available["pypy3"], broken], sandbox.Limits())
    verdict = compare.classify(results)
    assert verdict.outcomes == {"cpython": "ok", "pypy3": "ok", "cpython-broken-abs": "wrong_output"}
    assert verdict.first_difference["cpython-broken-abs"] == {"line": 1, "expected": "total 12", "actual": "total -4"}


def test_generated_programs_agree_across_cpython_optimised_pypy_and_cython():
    chosen = backends.available(python.backends())
    rng = random.Random(77)
    for _ in range(2):
        program = pygen.generate(rng)
        verdict = compare.classify(harness.process(program.text, ".py", chosen, sandbox.Limits()))
        assert set(verdict.outcomes.values()) == {"ok"}, (verdict, program.text)
