"""C backends: gcc and clang at each optimisation level, and tcc where installed."""

from __future__ import annotations

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
