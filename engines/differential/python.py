"""Python backends: CPython, CPython -O, PyPy and Cython-compiled modules, all run as programs."""

from __future__ import annotations

import shlex
import sys
import sysconfig

from engines.differential.backends import Backend

CYTHON_CRASH_MARKERS = ("Traceback (most recent call last):", "Compiler crash in", "Segmentation fault")


def _cython_compile() -> tuple[str, ...]:
    # Cython turns the program into a C file with a main() (--embed); gcc
    # links it against this interpreter's libpython.
    include = sysconfig.get_config_var("INCLUDEPY")
    libdir = sysconfig.get_config_var("LIBDIR")
    version = sysconfig.get_config_var("VERSION")
    script = (
        f"{shlex.quote(sys.executable)} -m cython -3 --embed -o {{workdir}}/program_cy.c {{source}} && "
        f"gcc -O1 -w -I{shlex.quote(include)} -o {{binary}} {{workdir}}/program_cy.c "
        f"-L{shlex.quote(libdir)} -lpython{version} -Wl,-rpath,{shlex.quote(libdir)}"
    )
    return ("sh", "-c", script)


class _CythonBackend(Backend):
    def available(self) -> bool:
        try:
            import Cython  # noqa: F401 - only asking whether it is installed
        except ImportError:
            return False
        return super().available()


def backends() -> list[Backend]:
    """Every Python backend this module knows; ``backends.available`` picks the installed ones."""
    python = sys.executable
    return [
        Backend(name="cpython", run=(python, "{source}"), version=(python, "--version")),
        Backend(name="cpython-O", run=(python, "-O", "{source}"), version=(python, "--version")),
        Backend(name="pypy3", run=("pypy3", "{source}"), version=("pypy3", "--version")),
        _CythonBackend(
            name="cython",
            compile=_cython_compile(),
            run=("{binary}",),
            version=(python, "-m", "cython", "--version"),
            compile_timeout=120.0,
            # Cython rejects a program with "Error compiling Cython file"; its own failures
            # print a Python traceback or "Compiler crash in …" (seen in a 20-minute campaign:
            # an unreachable generator expression crashed Cython 0.29 with an AttributeError).
            crash_markers=CYTHON_CRASH_MARKERS,
        ),
    ]
