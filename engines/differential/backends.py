"""Backends: how a tool turns a program into output, as templated commands.

A backend is a compile command (None for an interpreter) and a run command.
Templates name ``{source}``, ``{binary}`` and ``{workdir}``. A backend is
available when its first program is on PATH; its version is read once, by
``version`` (a command whose first output line is kept).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from engines import sandbox
from engines.differential import execute


@dataclass(frozen=True)
class Backend:
    name: str
    run: tuple[str, ...]
    compile: tuple[str, ...] | None = None
    version: tuple[str, ...] = ()
    compile_timeout: float = 60.0
    run_timeout: float = 10.0
    # Substrings of a compiler's stderr that mean it crashed, not that it
    # refused the program (an ICE exits 1 or 4 like an ordinary error).
    crash_markers: tuple[str, ...] = ("internal compiler error", "PLEASE submit a bug report", "Segmentation fault")
    # Exit statuses that mean the compiler crashed (kotlinc's internal error is 2).
    crash_exit_codes: tuple[int, ...] = ()
    # Overrides the campaign's address-space limit (a JVM reserves gigabytes it never touches).
    memory_bytes: int | None = None
    environment: tuple[tuple[str, str], ...] = ()
    # Directories the commands may read besides the system's (a compiler installed under /opt).
    paths: tuple[str, ...] = ()

    def command(self, template: tuple[str, ...], **values: str) -> list[str]:
        return [part.format(**values) for part in template]

    def compile_step(
        self,
        command: list[str],
        workdir: str,
        timeout: float,
        limits: sandbox.Limits,
        environment: dict[str, str],
        readable: tuple[str, ...],
    ) -> execute.Run:
        """Compile: ``command`` as one sandboxed process (:func:`execute.run`, same arguments).

        A backend whose compiler stays up between programs overrides this to
        serve the same command warm, with a result of the same shape
        (``engines.differential.kotlin_server``).
        """
        return execute.run(command, workdir, timeout, limits, environment, readable)

    @property
    def program(self) -> str:
        # The tool that must be installed: for a shell pipeline, the first word of the script.
        template = self.compile or self.run
        if template[0] == "sh" and len(template) > 2:
            return template[2].split()[0].strip("'")
        return template[0]

    def available(self) -> bool:
        return shutil.which(self.program) is not None


_VERSIONS: dict[tuple[str, ...], str] = {}


def version_of(backend: Backend) -> str:
    """The first line ``backend.version`` prints, cached; empty if it cannot be read."""
    if not backend.version:
        return ""
    if backend.version not in _VERSIONS:
        try:
            result = subprocess.run(backend.version, capture_output=True, text=True, timeout=30, check=False)  # noqa: S603
            lines = (result.stdout or result.stderr).strip().splitlines()
            _VERSIONS[backend.version] = lines[0] if lines else ""
        except (OSError, subprocess.TimeoutExpired):
            _VERSIONS[backend.version] = ""
    return _VERSIONS[backend.version]


def available(backends: list[Backend]) -> list[Backend]:
    """The backends whose tools are installed here."""
    return [backend for backend in backends if backend.available()]
