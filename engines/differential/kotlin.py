"""Kotlin backends: kotlinc with the K1 frontend and with K2, each file run on the JVM, for every installed kotlinc.

kotlinc comes from the npm ``kotlin-compiler`` package, unpacked by the
Makefile into ``.tools/kotlin-compiler-<version>/``, one directory per
version of its ``KOTLIN_VERSIONS``; ``.tools/kotlin-compiler`` links to the
default one (``FUZZWEB_KOTLINC`` names another). Kotlin 2.x compiles with
K2; ``-language-version 1.9`` selects the K1 frontend in the same compiler,
so the two backends of a version differ in the frontend only. Both run the
compiled ``ProgramKt`` on the same JVM: a difference in output is then the
frontends' (or the lowering they feed) doing.

The default compiler's backends keep the names ``kotlin-k1`` and
``kotlin-k2`` (stored campaigns name them); every other installed version
adds ``kotlin-<version>-k1`` and ``kotlin-<version>-k2``. The default version
is not listed a second time under its number: a campaign over every
installed backend would compile each file twice with the same compiler and
count it twice in the majority vote.

Compiles are served by one warm compiler per version
(:mod:`engines.differential.kotlin_server`), shared by its two frontends,
with the same arguments and results of the same shape as a cold kotlinc.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path

from engines import sandbox
from engines.differential import execute, kotlin_server
from engines.differential.backends import Backend

# The default version: the Makefile's KOTLIN_VERSION (keep them in step).
KOTLIN_VERSION = "2.1.21"
TOOLS = Path(__file__).resolve().parents[2] / ".tools"
_BUNDLED = TOOLS / "kotlin-compiler" / "bin" / "kotlinc"
_INSTALLED = re.compile(r"^kotlin-compiler-(\d+\.\d+\.\d+(?:-[A-Za-z0-9.]+)?)$")
# A JVM reserves far more address space than it touches (heap, code cache,
# class space, mapped jars): the address-space limit is set for that, and
# the heap is what -Xmx caps.
JVM_ADDRESS_SPACE = 4 * 1024**3
COMPILER_JAVA_OPTS = "-Xmx1g -Xss8m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=128m"
RUN_JVM = ("java", "-Xmx256m", "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
# kotlinc's exit codes: 1 is a compilation error, 2 an internal error (a crash).
INTERNAL_ERROR = 2
CRASH_MARKERS = ("exception: ", "Exception while analyzing", "Back-end (JVM) Internal error", "StackOverflowError")


def kotlinc() -> str:
    """Where the default kotlinc is: ``FUZZWEB_KOTLINC``, the copy the Makefile unpacked, or PATH."""
    named = os.environ.get("FUZZWEB_KOTLINC")
    if named:
        return named
    if _BUNDLED.exists():
        return str(_BUNDLED)
    return shutil.which("kotlinc") or "kotlinc"


def _version_key(version: str) -> tuple:
    # 2.1.21 after 2.1.3; a release after its own pre-releases (2.1.0-Beta2 < 2.1.0).
    release, _, tag = version.partition("-")
    return (*(int(part) for part in release.split(".")), 0 if tag else 1, tag)


def installed_versions(tools: Path = TOOLS) -> dict[str, str]:
    """Version -> kotlinc of every compiler unpacked under ``tools/kotlin-compiler-<version>/``, oldest first."""
    found = {}
    for entry in tools.iterdir() if tools.is_dir() else ():
        match = _INSTALLED.match(entry.name)
        if match and (entry / "bin" / "kotlinc").exists():
            found[match.group(1)] = str(entry / "bin" / "kotlinc")
    return {version: found[version] for version in sorted(found, key=_version_key)}


def _home(compiler: str) -> Path:
    return Path(os.path.realpath(shutil.which(compiler) or compiler)).parents[1]


def version_of_compiler(compiler: str) -> str:
    """The version of the kotlinc at ``compiler``, from its distribution's ``build.txt`` (``2.1.21-release-317``).

    A kotlinc whose distribution does not say is taken for the default version.
    """
    try:
        build = (_home(compiler) / "build.txt").read_text().strip()
    except (OSError, IndexError):
        return KOTLIN_VERSION
    version = build.split("-release")[0]
    return version if re.match(r"^\d+\.\d+\.\d+", version) else KOTLIN_VERSION


def frontends(version: str) -> dict[str, tuple[str, ...]]:
    """The frontends ``version`` offers, with the flags that select each.

    K2 is the default from 2.0, and ``-language-version 1.9`` selects K1 up
    to 2.3 (2.2 and 2.3 warn that 1.9 is deprecated, which would be in every
    result; the flag hides it); 2.4 refuses 1.9. Before 2.0, K1 is the
    compiler and K2 an experiment, not offered.
    """
    release = _version_key(version)[:2]
    if release < (2, 0):
        return {"k1": ()}
    if release < (2, 2):
        return {"k1": ("-language-version", "1.9"), "k2": ()}
    if release < (2, 4):
        return {"k1": ("-language-version", "1.9", "-Xsuppress-version-warnings"), "k2": ()}
    return {"k2": ()}


@dataclasses.dataclass(frozen=True)
class _KotlinBackend(Backend):
    # The warm compiler serving this backend's compiles, shared with the other
    # frontend of its version; None: every compile is a cold kotlinc.
    server: kotlin_server.CompileServer | None = dataclasses.field(default=None, compare=False, repr=False)

    def available(self) -> bool:
        return super().available() and shutil.which("java") is not None

    def compile_step(
        self,
        command: list[str],
        workdir: str,
        timeout: float,
        limits: sandbox.Limits,
        environment: dict[str, str],
        readable: tuple[str, ...],
    ) -> execute.Run:
        """The compile, by the warm compiler when there is one (a cold kotlinc otherwise)."""
        if self.server is None:
            return super().compile_step(command, workdir, timeout, limits, environment, readable)
        return self.server.compile(command, workdir, timeout, limits, environment, readable)


def _frontend(name: str, compiler: str, flags: tuple[str, ...], server: kotlin_server.CompileServer | None) -> Backend:
    home = _home(compiler)
    stdlib = home / "lib" / "kotlin-stdlib.jar"
    return _KotlinBackend(
        name=name,
        compile=(compiler, *flags, "-nowarn", "{source}", "-d", "{binary}"),
        run=(*RUN_JVM, "-cp", f"{{binary}}:{stdlib}", "ProgramKt"),
        version=(compiler, *flags, "-version"),
        compile_timeout=300.0,
        run_timeout=30.0,
        crash_markers=CRASH_MARKERS,
        crash_exit_codes=(INTERNAL_ERROR,),
        memory_bytes=JVM_ADDRESS_SPACE,
        environment=(("JAVA_OPTS", COMPILER_JAVA_OPTS),),
        # The distribution, wherever it is unpacked: the run step reads its
        # standard library, which a path inside the class path does not bind.
        paths=(str(home),),
        server=server,
    )


def _version_backends(prefix: str, compiler: str, version: str, warm: bool) -> list[Backend]:
    server = kotlin_server.CompileServer(compiler, crash_markers=CRASH_MARKERS) if warm else None
    return [_frontend(f"{prefix}-{name}", compiler, flags, server) for name, flags in frontends(version).items()]


def releases(tools: Path = TOOLS) -> dict[str, dict[str, Backend]]:
    """Version -> frontend (k1, k2) -> a cold backend, for every kotlinc installed: the release matrix's rows."""
    compiler = kotlinc()
    found = {version_of_compiler(compiler): compiler, **installed_versions(tools)}
    return {
        version: {
            name: _frontend(f"{version} {name}", other, flags, None) for name, flags in frontends(version).items()
        }
        for version, other in sorted(found.items(), key=lambda item: _version_key(item[0]))
    }


def backends(*, warm: bool = True, tools: Path = TOOLS) -> list[Backend]:
    """K1 and K2 of the default kotlinc, then of every other version installed under ``tools``.

    ``backends.available`` keeps those whose kotlinc and java are installed.
    ``warm=False``: every compile starts its own kotlinc (the bench compares them).
    """
    compiler = kotlinc()
    default_home = _home(compiler)
    listed = _version_backends("kotlin", compiler, version_of_compiler(compiler), warm)
    for version, other in installed_versions(tools).items():
        if _home(other) != default_home:
            listed += _version_backends(f"kotlin-{version}", other, version, warm)
    return listed
