"""Which releases of a compiler a program breaks: the version × level matrix of a wrong-code finding.

The reduced program is compiled by every installed release of the family
(``gcc-11``, ``gcc-12``, ``clang-13`` … on PATH, and the unversioned one)
at each optimisation level, with the backend's other options, and run; each
cell says whether it printed what the reference printed. Per level, the
first bad and the last good release follow, in version order. Pure of
Django; every compile and run goes through the sandboxed harness.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import replace

from engines import sandbox
from engines.differential import harness
from engines.differential.backends import Backend

LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os")
_LEVEL = re.compile(r"-O[0-3sgz]?$|-Ofast$")
GOOD, BAD, CRASH, OTHER = "good", "bad", "crash", "other"


def installed(family: str) -> list[tuple[str, str]]:
    """(version, program) of every release of ``family`` on PATH, oldest first; "" versions last."""
    found: dict[str, str] = {}
    for directory in os.environ.get("PATH", "/usr/bin").split(os.pathsep):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            match = re.fullmatch(rf"{family}-(\d+)", name)
            if match and os.access(os.path.join(directory, name), os.X_OK):
                found.setdefault(match.group(1), os.path.join(directory, name))
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
    first bad and last good version (None where there is none).
    """
    limits = limits or sandbox.Limits()
    releases = installed(family)
    variants = [
        _variant(backend, program_path, level, f"{family}-{version}{level}")
        for version, program_path in releases
        for level in levels
    ]
    results = harness.process(program, suffix, variants, limits) if variants else []
    cells: dict[str, dict[str, str]] = {}
    for (version, _), chunk in zip(releases, _chunks(results, len(levels)), strict=False):
        cells[version] = {level: _state(result, bad) for level, result in zip(levels, chunk, strict=True)}
    first_bad, last_good = {}, {}
    for level in levels:
        states = [(version, cells[version][level]) for version, _ in releases]
        bad_versions = [version for version, state in states if state in (BAD, CRASH)]
        first_bad[level] = bad_versions[0] if bad_versions else None
        before = (
            [v for v, s in states[: [v for v, _ in states].index(first_bad[level])] if s == GOOD]
            if bad_versions
            else []
        )
        last_good[level] = before[-1] if before else None
    return {
        "family": family,
        "versions": [version for version, _ in releases],
        "levels": list(levels),
        "cells": cells,
        "first_bad": first_bad,
        "last_good": last_good,
    }


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
