"""C backends: gcc and clang at each optimisation level, and tcc where installed."""

from __future__ import annotations

import dataclasses
import os
import resource
import shutil
import tempfile

from engines.differential import execute
from engines.differential.backends import Backend

CSMITH_INCLUDE = "/usr/include/csmith"
LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os")


def _compiler(name: str, program: str, level: str) -> Backend:
    return Backend(
        name=f"{name}{level}",
        compile=(program, level, "-w", f"-I{CSMITH_INCLUDE}", "-o", "{binary}", "{source}", "-lm"),
        run=("{binary}",),
        version=(program, "--version"),
    )


def backends() -> list[Backend]:
    """Every C backend this module knows; ``backends.available`` picks the installed ones."""
    table = [_compiler("gcc", "gcc", level) for level in LEVELS]
    table += [_compiler("clang", "clang", level) for level in LEVELS]
    table.append(
        Backend(
            name="tcc",
            compile=("tcc", "-w", f"-I{CSMITH_INCLUDE}", "-o", "{binary}", "{source}", "-lm"),
            run=("{binary}",),
            version=("tcc", "-v"),
        )
    )
    return table


# Warnings that mean a reduced program has left defined C behind (the list C-Reduce's
# documentation gives for wrong-code reductions): such a candidate "disagrees" only
# because it reads garbage, so it is never accepted as the same miscompilation.
_UB_WARNINGS = (
    "uninitialized",
    "control reaches end of non-void function",
    "return type defaults",
    "type defaults to",
    "implicit declaration",
    "incompatible implicit",
    "incompatible pointer",
    "pointer from integer",
    "integer from pointer",
    "comparison between pointer and integer",
    "ordered comparison of pointer with integer",
    "too few arguments",
    "excess elements",
    "without a cast",
    "no return statement",
    "is used uninitialized",
    "address of stack memory",
    "division by zero",
    # A main that returns no int exits with whatever its register held: another status at every level.
    "return type of 'main' is not",
    "return type of ‘main’ is not",
    "with no value, in function returning non-void",
)
_SANITIZER_MARKERS = ("runtime error:", "AddressSanitizer", "UndefinedBehaviorSanitizer")


def undefined_behaviour(program: str, limits, timeout: float = 30.0) -> str:
    """Why ``program`` may have undefined behaviour ("" if no check objects).

    gcc's warnings catch reads of uninitialised variables and missing
    returns; clang's address and undefined-behaviour sanitizers catch the
    rest at run time.
    """
    workdir = tempfile.mkdtemp(prefix="fuzzweb-ub-")
    try:
        source = os.path.join(workdir, "program.c")
        with open(source, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(program)
        warned = execute.run(
            ["gcc", "-O1", "-Wall", "-Wextra", f"-I{CSMITH_INCLUDE}", "-c", "-o", os.devnull, source],
            workdir,
            timeout,
            limits,
            {},
        )
        for line in warned.stderr.splitlines():
            if "warning" in line and any(marker in line for marker in _UB_WARNINGS):
                return line.split("warning:", 1)[-1].strip()
        binary = os.path.join(workdir, "sanitized")
        # AddressSanitizer reserves terabytes of address space it never touches.
        unlimited = dataclasses.replace(limits, memory_bytes=resource.RLIM_INFINITY)
        built = execute.run(
            [
                "clang", "-O1", "-w", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                f"-I{CSMITH_INCLUDE}", "-o", binary, source, "-lm",
            ],
            workdir,
            timeout,
            unlimited,
            {},
        )  # fmt: skip
        if built.returncode != 0:
            return ""  # not the sanitizer's to judge: the backends decide whether it compiles
        ran = execute.run([binary], workdir, timeout, unlimited, {})
        for line in ran.stderr.splitlines():
            if any(marker in line for marker in _SANITIZER_MARKERS):
                return line.split(": ", 1)[-1].strip()[:300] if line.startswith(source) else line.strip()[:300]
        return ""
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
