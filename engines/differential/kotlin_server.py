"""A warm kotlinc: one long-lived compiler JVM per installed version, in the sandbox, compiling file after file.

A cold kotlinc spends seconds of every compile starting a JVM and warming up
its JIT; a JVM that keeps the compiler loaded (``KotlinCompileServer.kt``,
built by kotlinc itself into ``.tools/``) compiles a generated file in a few
hundred milliseconds once warm. It calls kotlinc's own entry point with the
same arguments the cold command has, so messages, exit statuses and crash
traces come out as they would from the command line.

Confinement is the cold compile's: the JVM runs under bubblewrap
(:func:`engines.sandbox.confine`) with the campaign's rlimits and a scratch
directory of its own as the only writable place, watched by a
:class:`~engines.sandbox.ScratchGuard`. The program's work directory is out
of its reach: for each request the scratch is emptied, the inputs copied in
(under the names they have in the work directory, so kotlinc's messages name
them as a cold compile does), and the class files moved out once it has
answered. So a compile sees only its own program, and a later compile
cannot touch an earlier one's output. What does carry over is the
compiler's memory, which is why the JVM is restarted

- after ``MAX_COMPILES`` compiles (memory growth),
- when a compile runs past its time limit (killed whole, as a cold one is),
- when it answers anything other than a plain success or compile error:
  an internal error, a crash marker, running out of memory, an unexpected
  line, dying. Such a file is then compiled again cold, and the cold result
  is the one returned, so every crash reported comes from a fresh compiler,
  never from whatever an earlier file left behind.

Where the server cannot be built or started (no writable ``.tools`` for the
first build, a broken JVM), compiles are cold, as before.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import secrets
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from engines import sandbox
from engines.differential import execute

SOURCE = Path(__file__).with_name("KotlinCompileServer.kt")
MAIN_CLASS = "KotlinCompileServerKt"
TOOLS = Path(sandbox.PROJECT_ROOT) / ".tools"
# The JIT needs some hundred compiles to reach its best (about 1 s a file
# after start, 0.3 s after 100): restarting more often throws that away.
MAX_COMPILES = 500
START_SECONDS = 120.0
# After this many starts in a row that fail, this server stays cold.
START_ATTEMPTS = 3
# A warm JVM keeps kotlinc's application environment (the JDK and library
# indexes) between compiles; kotlinc's own launcher opens java.util the same
# way. The JIT's code cache gets room for all of the compiler's hot code (a
# full cache stops compiling, and a long-lived server would slow down to the
# interpreter's pace): it overrides the cold compile's 128m.
#
# The heap doubles the cold compile's 1g, half of it young: what a compile
# allocates then dies young, instead of being promoted and filling the old
# generation with garbage that only a full collection (a second or more)
# frees; that cost one full collection every 7 compiles at 1g. A compile
# gets about the room a cold one has, beside what the server keeps (the
# environment, the JIT's code); a file that only runs out of memory cold
# may compile warm, the price of not collecting all the time.
SERVER_JVM_OPTIONS = (
    "--add-opens",
    "java.base/java.util=ALL-UNNAMED",
    "-Dkotlin.environment.keepalive=true",
    "-XX:ReservedCodeCacheSize=384m",
    "-Xmx2g",
    "-Xmn1g",
)
# Address space the server may reserve beyond a cold compile's (its bigger heap and code cache).
SERVER_EXTRA_ADDRESS_SPACE = 2 * 1024**3
# Exit statuses taken from a warm compile: success and a compile error. Anything else is compiled again cold.
TRUSTED_EXIT_STATUSES = (0, 1)
_JVM_MEMORY_MARKERS = ("OutOfMemoryError", "out of memory")
_PROTOCOL_FILES = (".stdout", ".stderr")


class BuildError(RuntimeError):
    """The compile server could not be built."""


def server_jar(compiler: str) -> Path:
    """The built server (``.tools/kotlin-compile-server-<digest>.jar``), built with ``compiler`` if missing.

    The digest is the source's, so an edited server is rebuilt. Raises
    :class:`BuildError` when it is missing and cannot be built (``.tools``
    not writable by this account, kotlinc failing).
    """
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:12]
    jar = TOOLS / f"kotlin-compile-server-{digest}.jar"
    if jar.exists():
        return jar
    try:
        TOOLS.mkdir(exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=".kotlin-compile-server-", suffix=".jar", dir=TOOLS)
        os.close(handle)
    except OSError as error:
        raise BuildError(f"cannot write {TOOLS}: {error}") from None
    try:
        # Our own source and the installed compiler: trusted, like `kotlinc -version`.
        done = subprocess.run(  # noqa: S603
            [compiler, "-nowarn", str(SOURCE), "-d", partial],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            raise BuildError(f"kotlinc could not build {SOURCE.name}: {done.stderr[-2000:]}")
        # Readable by the workers' account (mkstemp made it private); atomic, so workers
        # building at the same time each put the same thing in place.
        os.chmod(partial, 0o644)
        os.replace(partial, jar)
    except (OSError, subprocess.SubprocessError) as error:
        raise BuildError(f"kotlinc could not build {SOURCE.name}: {error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
    return jar


@dataclasses.dataclass
class _Running:
    """One started JVM and what belongs to it; kept apart from the server so a finalizer can stop it."""

    process: subprocess.Popen
    directory: str  # holds scratch/ (the sandbox's writable place) and server.log
    guard: sandbox.ScratchGuard
    configuration: tuple
    jvm_pid: int | None
    buffer: bytes = b""
    compiles: int = 0

    @property
    def scratch(self) -> str:
        return os.path.join(self.directory, "scratch")

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        sandbox.kill_group(self.process.pid)
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self.guard.stop()
        with contextlib.suppress(OSError):
            self.process.stdout.close()
        shutil.rmtree(self.directory, ignore_errors=True)


def _stop_all(holder: list[_Running]) -> None:
    while holder:
        holder.pop().stop()


@dataclasses.dataclass(frozen=True)
class _Request:
    arguments: list[tuple[str, bool]]  # (argument, whether it is a name in the scratch)
    inputs: list[tuple[str, str]]  # (path in the work directory, name in the scratch)
    outputs: list[tuple[str, str]]


class CompileServer:
    """A warm kotlinc for the compiler at ``compiler`` (one installed version), shared by its K1 and K2 backends.

    Started on the first compile, restarted as the module docstring says,
    stopped by :meth:`stop` or when the last backend holding it is gone.
    """

    def __init__(self, compiler: str, *, crash_markers: tuple[str, ...], max_compiles: int = MAX_COMPILES):
        self.compiler = compiler
        self.home = str(Path(os.path.realpath(shutil.which(compiler) or compiler)).parents[1])
        self.crash_markers = crash_markers
        self.max_compiles = max_compiles
        self.starts = 0  # JVMs started, for tests and the bench
        self.cold_compiles = 0  # requests answered by a cold compile instead
        self.failed_starts = 0
        self.last_error = ""
        self._lock = threading.Lock()
        self._holder: list[_Running] = []
        self._finalizer = weakref.finalize(self, _stop_all, self._holder)

    @property
    def running(self) -> bool:
        """Whether a JVM is up (between compiles)."""
        return bool(self._holder) and self._holder[0].process.poll() is None

    def stop(self) -> None:
        """Stop the JVM, if one runs; the next compile starts another."""
        with self._lock:
            _stop_all(self._holder)

    def compile(
        self,
        command: list[str],
        workdir: str,
        timeout: float,
        limits: sandbox.Limits,
        environment: dict[str, str] | None = None,
        readable: tuple[str, ...] = (),
    ) -> execute.Run:
        """Compile as ``execute.run(command, workdir, timeout, limits, environment, readable)`` would, warm if it can.

        ``command`` is the cold compile's (kotlinc and its arguments); a
        command for another compiler, or one this server cannot serve, runs
        cold.
        """

        def cold() -> execute.Run:
            self.cold_compiles += 1
            return execute.run(command, workdir, timeout, limits, environment, readable)

        request = self._request(command, workdir)
        if request is None or self.failed_starts >= START_ATTEMPTS:
            return cold()
        with self._lock:
            running = self._running(limits, dict(environment or {}), tuple(readable))
            if running is None:
                return cold()
            try:
                run = self._serve(running, request, timeout)
            except OSError as error:
                # The scratch directory or a pipe failed under it (its guard emptied it, the JVM died):
                # the JVM's state is unknown, so it goes, and the file is compiled cold.
                self.last_error = str(error)
                run = None
            running.compiles += 1
            if run is None or run.timed_out or running.compiles >= self.max_compiles:
                _stop_all(self._holder)
        return cold() if run is None else run

    def _request(self, command: list[str], workdir: str) -> _Request | None:
        """kotlinc's arguments with the work directory's paths moved into the scratch; None if not servable."""
        if not command or os.path.realpath(shutil.which(command[0]) or command[0]) != os.path.realpath(
            shutil.which(self.compiler) or self.compiler
        ):
            return None
        arguments, inputs, outputs = [], [], []
        prefixes = {os.path.join(workdir, ""), os.path.join(os.path.realpath(workdir), "")}
        for part in command[1:]:
            # -J and -D are options of the JVM the kotlinc script starts, not of the compiler.
            if any(character in part for character in "\t\r\n") or part.startswith(("-J", "-D")):
                return None
            if os.path.realpath(part) == os.path.realpath(workdir):
                return None  # the work directory itself: the server has no counterpart to give
            prefix = next((prefix for prefix in prefixes if part.startswith(prefix)), None)
            if prefix is None:
                arguments.append((part, False))
                continue
            relative = os.path.normpath(part[len(prefix) :])
            if relative.startswith("..") or relative in (".", *_PROTOCOL_FILES):
                return None
            (inputs if os.path.exists(part) else outputs).append((part, relative))
            arguments.append((relative, True))
        return _Request(arguments, inputs, outputs)

    def _running(
        self, limits: sandbox.Limits, environment: dict[str, str], readable: tuple[str, ...]
    ) -> _Running | None:
        # The JVM's rlimits, environment and binds are fixed at its start: a request with others gets a new one.
        configuration = (limits, tuple(sorted(environment.items())), readable)
        if self._holder and (self._holder[0].configuration != configuration or not self.running):
            _stop_all(self._holder)
        if not self._holder:
            started = self._start(limits, environment, readable, configuration)
            if started is None:
                self.failed_starts += 1
                return None
            self.failed_starts = 0
            self._holder.append(started)
        return self._holder[0]

    def _start(
        self, limits: sandbox.Limits, environment: dict[str, str], readable: tuple[str, ...], configuration: tuple
    ) -> _Running | None:
        try:
            jar = server_jar(self.compiler)
        except BuildError as error:
            self.last_error = str(error)
            return None
        directory = tempfile.mkdtemp(prefix="fuzzweb-kotlinc-")
        scratch = os.path.join(directory, "scratch")
        os.mkdir(scratch)
        env = sandbox.scrubbed_environment(environment)
        # kotlinc's launcher reads JAVA_OPTS; the server is started by java directly.
        java_options = env.get("JAVA_OPTS", "").split()
        argv = [
            "java",
            *java_options,
            *SERVER_JVM_OPTIONS,
            "-cp",
            f"{jar}:{self.home}/lib/kotlin-compiler.jar",
            MAIN_CLASS,
        ]
        confined = sandbox.confine(
            argv, scratch=scratch, environment=env, readable=(*readable, self.home, str(jar.parent))
        )
        # Its CPU time adds up over many compiles: the cold compile's budget
        # plus a few seconds for each warm one (the wall clock bounds each compile).
        server_limits = dataclasses.replace(
            limits,
            cpu_seconds=limits.cpu_seconds + 4 * self.max_compiles,
            memory_bytes=limits.memory_bytes + SERVER_EXTRA_ADDRESS_SPACE,
        )
        with open(os.path.join(directory, "server.log"), "wb") as log:
            process = subprocess.Popen(  # noqa: S603 - java and the project's own server
                confined,
                cwd=scratch,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=env,
                start_new_session=True,
                preexec_fn=lambda: sandbox.apply_limits(server_limits),
            )
        self.starts += 1
        running = _Running(
            process=process,
            directory=directory,
            guard=sandbox.ScratchGuard(scratch, process.pid),
            configuration=configuration,
            jvm_pid=None,
        )
        if self._line(running, time.monotonic() + START_SECONDS) != "ready":
            self.last_error = self._log_tail(running)
            running.stop()
            return None
        running.jvm_pid = sandbox.descendant(process.pid, MAIN_CLASS)
        return running

    def _serve(self, running: _Running, request: _Request, timeout: float) -> execute.Run | None:
        """The warm compile's result; None when it must be compiled cold (and the JVM restarted)."""
        scratch = running.scratch
        sandbox.scratch_empty(scratch)
        for path, relative in request.inputs:
            inside = os.path.join(scratch, relative)
            os.makedirs(os.path.dirname(inside), exist_ok=True)
            if os.path.isdir(path):
                shutil.copytree(path, inside, symlinks=True)
            else:
                shutil.copyfile(path, inside)
        nonce = secrets.token_hex(8)
        arguments = [os.path.join(scratch, part) if inside else part for part, inside in request.arguments]
        started = time.monotonic()
        try:
            running.process.stdin.write(("\t".join([nonce, *arguments]) + "\n").encode())
            running.process.stdin.flush()
        except OSError:
            return None
        answer = self._line(running, started + timeout)
        seconds = time.monotonic() - started
        out, err = (_read_output(os.path.join(scratch, name)) for name in _PROTOCOL_FILES)
        if answer is None:
            # Killed for taking too long, as a cold compile is: its partial output is what there is.
            return execute.Run(None, out, err, seconds, self._peak_kb(running))
        fields = answer.split(" ")
        if len(fields) != 2 or fields[0] != nonce or not fields[1].lstrip("-").isdigit() or running.buffer:
            self.last_error = f"unexpected answer {answer[:200]!r}"
            return None
        status = int(fields[1])
        if (
            running.guard.tripped
            or status not in TRUSTED_EXIT_STATUSES
            or any(marker in err for marker in (*self.crash_markers, *_JVM_MEMORY_MARKERS))
        ):
            self.last_error = f"kotlinc exited {status}"
            return None
        for path, relative in request.outputs:
            inside = os.path.join(scratch, relative)
            if os.path.lexists(inside):
                shutil.move(inside, path)
        return execute.Run(status, out, err, seconds, self._peak_kb(running))

    def _line(self, running: _Running, deadline: float) -> str | None:
        """The server's next line on stdout; None past ``deadline`` (the JVM is then killed), "" at its end."""
        stdout = running.process.stdout.fileno()
        while b"\n" not in running.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                sandbox.kill_group(running.process.pid)
                return None
            chunk = os.read(stdout, 65536)
            if not chunk:
                return ""
            running.buffer += chunk
            if len(running.buffer) > 65536:
                return ""  # no answer is that long
        line, _, running.buffer = running.buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def _peak_kb(self, running: _Running) -> int:
        # The JVM's peak resident memory so far: what a cold compile's wait4 reports, for a longer life.
        if running.jvm_pid is None:
            return 0
        try:
            with open(f"/proc/{running.jvm_pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            pass
        return 0

    def _log_tail(self, running: _Running) -> str:
        try:
            with open(os.path.join(running.directory, "server.log"), "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 4000))
                return handle.read().decode("utf-8", "replace")
        except OSError:
            return ""


def _read_output(path: str) -> str:
    """A compile's output file, capped as ``execute.run`` caps it; empty if the compiler never wrote it."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(execute.OUTPUT_LIMIT + 1)
    except OSError:
        return ""
    text = data[: execute.OUTPUT_LIMIT].decode("utf-8", "replace")
    return text + ("\n… [output truncated]" if len(data) > execute.OUTPUT_LIMIT else "")


def main(argv: list[str]) -> int:
    """``python -m engines.differential.kotlin_server build KOTLINC``: build the server (``make kotlin`` does)."""
    if len(argv) != 2 or argv[0] != "build":
        sys.stderr.write("usage: python -m engines.differential.kotlin_server build KOTLINC\n")
        return 2
    try:
        print(server_jar(argv[1]))
    except BuildError as error:
        sys.stderr.write(f"{error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
