"""Kotlin backends: kotlinc with the K1 frontend and with K2, each file run on the JVM.

kotlinc comes from the npm ``kotlin-compiler`` package, unpacked by the
Makefile into ``.tools/kotlin-compiler`` (``FUZZWEB_KOTLINC`` names another).
Kotlin 2.x compiles with K2; ``-language-version 1.9`` selects the K1
frontend in the same compiler, so the two backends differ in the frontend
only. Both run the compiled ``ProgramKt`` on the same JVM: a difference in
output is then the frontends' (or the lowering they feed) doing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from engines.differential.backends import Backend

KOTLIN_VERSION = "2.1.21"
_BUNDLED = Path(__file__).resolve().parents[2] / ".tools" / "kotlin-compiler" / "bin" / "kotlinc"
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
    """Where kotlinc is: ``FUZZWEB_KOTLINC``, the copy the Makefile unpacked, or PATH."""
    named = os.environ.get("FUZZWEB_KOTLINC")
    if named:
        return named
    if _BUNDLED.exists():
        return str(_BUNDLED)
    return shutil.which("kotlinc") or "kotlinc"


def _stdlib(compiler: str) -> str:
    home = Path(os.path.realpath(shutil.which(compiler) or compiler)).parents[1]
    return str(home / "lib" / "kotlin-stdlib.jar")


class _KotlinBackend(Backend):
    def available(self) -> bool:
        return super().available() and shutil.which("java") is not None


def _frontend(name: str, compiler: str, flags: tuple[str, ...]) -> Backend:
    return _KotlinBackend(
        name=name,
        compile=(compiler, *flags, "-nowarn", "{source}", "-d", "{binary}"),
        run=(*RUN_JVM, "-cp", f"{{binary}}:{_stdlib(compiler)}", "ProgramKt"),
        version=(compiler, *flags, "-version"),
        compile_timeout=300.0,
        run_timeout=30.0,
        crash_markers=CRASH_MARKERS,
        crash_exit_codes=(INTERNAL_ERROR,),
        memory_bytes=JVM_ADDRESS_SPACE,
        environment=(("JAVA_OPTS", COMPILER_JAVA_OPTS),),
    )


def backends() -> list[Backend]:
    """K1 and K2; ``backends.available`` keeps them where kotlinc and java are installed."""
    compiler = kotlinc()
    return [
        _frontend("kotlin-k1", compiler, ("-language-version", "1.9")),
        _frontend("kotlin-k2", compiler, ()),
    ]
