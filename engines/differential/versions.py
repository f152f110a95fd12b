"""Which releases of a compiler a program breaks: the version × level matrix of a wrong-code finding.

The reduced program is compiled by every installed release of the family
(``gcc-11``, ``gcc-12``, ``clang-13`` … on PATH, and the unversioned one)
at each optimisation level, with the backend's other options, and run; each
cell says whether it printed what the reference printed. Per level, the
first bad and the last good release follow, in version order.

Kotlin: every kotlinc release unpacked under .tools (``make kotlin
KOTLIN_VERSIONS=…`` fetches them from the npm registry), with each frontend
it offers (K1, K2) as the columns.

Python implementations have releases but no levels: the reduced program is
run by every installed interpreter (``python3.X`` and ``pypy3.X`` on PATH),
plainly and with ``-O`` (asserts off, the one switch that changes what a
program does); first bad and last good follow CPython's releases, PyPy's
rows come after them. Pure of Django; every compile and run goes through
the sandboxed harness.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace

from engines import sandbox
from engines.differential import harness
from engines.differential.backends import Backend

LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os")
_LEVEL = re.compile(r"-O[0-3sgz]?$|-Ofast$")
GOOD, BAD, CRASH, OTHER = "good", "bad", "crash", "other"


def _on_path(pattern: re.Pattern, skip_shims: bool = False) -> Iterator[tuple[re.Match, str]]:
    """(match, path) of every executable on PATH whose name ``pattern`` matches in full, in PATH's order."""
    for directory in os.environ.get("PATH", "/usr/bin").split(os.pathsep):
        if skip_shims and "shims" in directory.split(os.sep):
            continue  # version managers' shims are scripts that pick an interpreter by the current directory
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            match = pattern.fullmatch(name)
            if match and os.access(os.path.join(directory, name), os.X_OK):
                yield match, os.path.join(directory, name)


def installed(family: str) -> list[tuple[str, str]]:
    """(version, program) of every release of ``family`` on PATH, oldest first; "" versions last."""
    found: dict[str, str] = {}
    for match, path in _on_path(re.compile(rf"{family}-(\d+)")):
        found.setdefault(match.group(1), path)
    releases = sorted(found.items(), key=lambda item: int(item[0]))
    plain = shutil.which(family)
    if plain and all(os.path.realpath(plain) != os.path.realpath(p) for _, p in releases):
        releases.append((_version_of(plain) or "default", plain))
    return releases


def _version_of(program: str) -> str:
    try:
        text = subprocess.run([program, "-dumpversion"], capture_output=True, text=True, timeout=30).stdout  # noqa: S603
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return text.strip().split(".")[0]


def matrix(
    backend: Backend,
    family: str,
    program: str,
    suffix: str,
    bad: Callable[[harness.Result], bool],
    limits: sandbox.Limits | None = None,
    levels: tuple[str, ...] = LEVELS,
) -> dict:
    """Compile and run ``program`` with every installed release of ``family`` at each level.

    ``bad(result)`` says whether a run misbehaves as the finding did. Returns
    plain data: versions, levels, cells[version][level], and per level the
    first bad and last good version and the release that fixed it (the first
    good one after the last bad one), None where there is none.
    """
    limits = limits or sandbox.Limits()
    releases = installed(family)
    variants = [
        _variant(backend, program_path, level, f"{family}-{version}{level}")
        for version, program_path in releases
        for level in levels
    ]
    results = harness.process(program, suffix, variants, limits) if variants else []
    return _summary(family, [version for version, _ in releases], levels, results, bad)


def _summary(family: str, versions: list[str], levels, results, bad, ordered: int | None = None) -> dict:
    """The matrix as plain data; first bad and last good over the first ``ordered`` versions (default: all)."""
    cells: dict[str, dict[str, str]] = {}
    for version, chunk in zip(versions, _chunks(results, len(levels)), strict=False):
        cells[version] = {level: _state(result, bad) for level, result in zip(levels, chunk, strict=True)}
    history = versions[:ordered] if ordered is not None else versions
    first_bad, last_good, fixed_in = {}, {}, {}
    for level in levels:
        states = [(version, cells[version][level]) for version in history]
        bad_versions = [version for version, state in states if state in (BAD, CRASH)]
        first_bad[level] = bad_versions[0] if bad_versions else None
        before = (
            [v for v, s in states[: [v for v, _ in states].index(first_bad[level])] if s == GOOD]
            if bad_versions
            else []
        )
        last_good[level] = before[-1] if before else None
        # The release that fixed it: the first good one after the last bad one (a bug since fixed).
        after = (
            [v for v, s in states[[v for v, _ in states].index(bad_versions[-1]) + 1 :] if s == GOOD]
            if bad_versions
            else []
        )
        fixed_in[level] = after[0] if after else None
    return {
        "family": family,
        "versions": list(versions),
        "levels": list(levels),
        "cells": cells,
        "first_bad": first_bad,
        "last_good": last_good,
        "fixed_in": fixed_in,
    }


PYTHON_LEVELS = ("plain", "-O")
_INTERPRETER = re.compile(r"(python|pypy)(3)\.(\d+)")  # Python 3 only: a python2.7 would fail every program


def interpreters() -> list[tuple[str, str]]:
    """(version, program) of every Python interpreter on PATH: CPython oldest first, then PyPy ("pypy3.9")."""
    found: dict[tuple[str, int, int], str] = {}
    seen: set[str] = set()
    for match, path in _on_path(_INTERPRETER, skip_shims=True):
        if os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        found.setdefault((match.group(1), int(match.group(2)), int(match.group(3))), path)
    ordered = sorted(found.items(), key=lambda item: (item[0][0] == "pypy", item[0][1], item[0][2]))
    return [(f"{kind}{major}.{minor}", path) for (kind, major, minor), path in ordered]


def python_matrix(program: str, bad: Callable[[harness.Result], bool], limits: sandbox.Limits | None = None) -> dict:
    """Run ``program`` with every installed interpreter, plainly and with -O: the matrix of a Python finding."""
    limits = limits or sandbox.Limits()
    releases = interpreters()
    variants = [
        Backend(name=f"{version} {level}", run=(path, *(() if level == "plain" else (level,)), "{source}"))
        for version, path in releases
        for level in PYTHON_LEVELS
    ]
    results = harness.process(program, ".py", variants, limits) if variants else []
    versions = [version for version, _ in releases]
    cpython = sum(1 for version in versions if not version.startswith("pypy"))
    return _summary("python", versions, PYTHON_LEVELS, results, bad, ordered=cpython)


KOTLIN_FRONTENDS = ("k1", "k2")


def kotlin_matrix(program: str, bad: Callable[[harness.Result], bool], limits: sandbox.Limits | None = None) -> dict:
    """Compile and run ``program`` with every installed kotlinc release and frontend: a Kotlin finding's matrix."""
    from engines.differential import kotlin

    limits = limits or sandbox.Limits()
    releases = kotlin.releases()
    variants = [backend for frontends in releases.values() for backend in frontends.values()]
    ran = iter(harness.process(program, ".kt", variants, limits) if variants else [])
    # A frontend a release does not offer (K2 before 2.0, K1 from 2.4) is a cell that says nothing.
    absent = harness.Result("", "compile", harness.REJECTED, None, "", "", "", 0.0, 0, "")
    results = [
        next(ran) if frontend in frontends else absent
        for frontends in releases.values()
        for frontend in KOTLIN_FRONTENDS
    ]
    return _summary("kotlin", list(releases), KOTLIN_FRONTENDS, results, bad)


def _variant(backend: Backend, program_path: str, level: str, name: str) -> Backend:
    rest = [part for part in backend.compile[1:] if not _LEVEL.match(part)]
    return replace(backend, name=name, compile=(program_path, level, *rest), version=())


def _chunks(items: list, size: int):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _state(result: harness.Result, bad: Callable[[harness.Result], bool]) -> str:
    if result.outcome == harness.COMPILER_CRASH:
        return CRASH
    if not result.completed:
        return OTHER  # rejected, timed out: says nothing about this bug
    return BAD if bad(result) else GOOD
