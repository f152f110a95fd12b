#!/usr/bin/env python3
"""A program generator for a user-defined differential target: GCC's own run-time regression tests.

    gcc-torture-test --seed {seed} --out {out} [--suite DIR]

(installed on the workers as ``/usr/local/bin/gcc-torture-test``, see ``gcc-torture-releases.toml``).

Each seed picks one self-contained test of ``gcc.c-torture/execute`` and
``gcc.dg/torture`` (those that run, need no options, no other file and no
particular target), from the GCC sources Debian ships (``gcc-12-source``,
unpacked once; see ``gcc-torture-releases.toml``). A test checks its own
result and calls ``abort()`` when it is wrong; a line put before it makes
that check print and exit 1 instead, so a build that gets it wrong is wrong
output (re-runnable, reducible, bisectable), not a crash like any other.

Each test is a bug some release had: replayed against older releases than
the one they came with, they find the wrong code those releases still
ship. Only the standard library runs here: the generator is sandboxed.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

SUITE = Path("/usr/src/gcc-12/torture")
DIRECTORIES = ("gcc.c-torture/execute", "gcc.dg/torture")
# A test that needs options, other files, a particular target or a result it is
# allowed to get wrong cannot be judged from its exit status alone.
_UNFIT = re.compile(
    r"dg-(?:options|additional-options|additional-sources|require|skip-if|xfail|do (?!run)|shouldfail|output)"
    r'|#\s*include\s*"|\bmain\s*\(\s*int\b'
)
PRELUDE = (
    "/* fuzzweb: the test's own check prints and exits 1 instead of aborting. */\n"
    "__attribute__((noreturn)) static void fuzzweb_check_failed(void)\n"
    '{ __builtin_printf("check failed\\n"); __builtin_exit(1); }\n'
    "#define abort fuzzweb_check_failed\n"
    "#define __builtin_abort fuzzweb_check_failed\n"
)


# A regression test is named for its bug report: prNNNNNN.c, prNNNNNN-2.c.
_PR_NUMBER = re.compile(r"^pr(\d+)(?:-\d+)?$")


def runnable(suite: Path, since_pr: int = 0) -> list[Path]:
    """The suite's tests that run alone and say by their exit status whether they passed, in a fixed order.

    ``since_pr``: only regression tests for bug reports numbered that or higher (those filed after
    the release under test branched, which it is the most likely to fail).
    """
    found = []
    for directory in DIRECTORIES:
        for path in sorted((suite / directory).glob("*.c")):
            text = path.read_text(errors="replace")
            explicit_run = "dg-do run" in text
            if directory.endswith("torture") and not explicit_run:
                continue  # gcc.dg tests only compile unless they say otherwise
            if _UNFIT.search(text) or path.with_suffix(".x").exists() or "main" not in text:
                continue
            number = _PR_NUMBER.match(path.stem)
            if since_pr and (number is None or int(number[1]) < since_pr):
                continue
            found.append(path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--since-pr", type=int, default=0, help="only regression tests of bugs numbered this or higher")
    args = parser.parse_args()
    tests = runnable(args.suite, args.since_pr)
    if not tests:
        print(f"no runnable tests under {args.suite}: unpack gcc-12-source there first", file=sys.stderr)
        return 1
    chosen = random.Random(args.seed).choice(tests)
    args.out.write_text(f"/* {chosen.relative_to(args.suite)} */\n{PRELUDE}{chosen.read_text(errors='replace')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
