"""User-defined differential targets: backends and a generator described as data.

A team describes its own compilers and interpreters (a local build, a
release against the previous one, a new implementation against a reference)
and its own program generator, in the web form, through the API or in a
TOML/JSON file kept in version control. This module is the one reader of
that description: it checks it, says every problem at once, and turns it
into the ``Backend`` objects and the program generator the engine runs.

Commands are written as shell-like strings (split with :func:`shlex.split`,
never given to a shell: write ``sh -c '…'`` for a pipeline) with the
placeholders ``{source}``, ``{binary}`` and ``{workdir}``; a generator's
command has ``{seed}`` and ``{out}``. Every command runs in the sandbox, as
every other untrusted execution does (``engines.differential.execute``).
"""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass, field

from engines import sandbox
from engines.differential import csmith, execute, kotlingen, pygen
from engines.differential.backends import Backend

# A language's file suffix, for the compilers that look at it, and for highlighting and reduction.
SUFFIXES = {
    "c": ".c",
    "cpp": ".cpp",
    "python": ".py",
    "kotlin": ".kt",
    "java": ".java",
    "dafny": ".dfy",
    "rust": ".rs",
    "go": ".go",
    "javascript": ".js",
    "text": ".txt",
}
# The project's own generators, by the name a spec gives them, and the language they write.
BUILTIN_GENERATORS = {"csmith": "c", "pygen": "python", "kotlingen": "kotlin"}
GENERATOR_KINDS = (*BUILTIN_GENERATORS, "command")
BACKEND_PLACEHOLDERS = frozenset({"source", "binary", "workdir"})
GENERATOR_PLACEHOLDERS = frozenset({"seed", "out", "workdir"})
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
MAX_BACKENDS = 16
MAX_COMMAND = 2000
MAX_PROGRAM_BYTES = 1024 * 1024
DEFAULT_CRASH_MARKERS = Backend.__dataclass_fields__["crash_markers"].default
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_BARE = re.compile(r"[\w{}./=:,+%@-]+")


class SpecError(ValueError):
    """The description is wrong; ``problems`` lists every problem, each naming its field."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Generator:
    kind: str  # csmith, pygen, kotlingen or command
    command: str = ""  # kind == command: writes one program for {seed} to {out} (or prints it)
    swarm: bool = True  # csmith: a random feature set per program
    options: tuple[str, ...] = ()  # csmith: fixed options, after the swarm ones
    timeout: float = 30.0


@dataclass(frozen=True)
class TargetSpec:
    """A checked description: what :func:`parse` returns and :meth:`to_dict` stores."""

    language: str
    suffix: str
    generator: Generator
    backends: tuple[Backend, ...]
    reference: str = ""  # a backend's name; empty: the majority decides

    def to_dict(self) -> dict:
        """The canonical form, as stored on a target and snapshotted into a campaign."""
        return {
            "language": self.language,
            "suffix": self.suffix,
            "reference": self.reference,
            "generator": {
                "kind": self.generator.kind,
                "command": self.generator.command,
                "swarm": self.generator.swarm,
                "options": list(self.generator.options),
                "timeout": self.generator.timeout,
            },
            "backends": [_backend_dict(b) for b in self.backends],
        }


def join(parts: tuple[str, ...]) -> str:
    """A command as it is written: quoted only where the shell would need it, placeholders left bare."""
    return " ".join(part if _BARE.fullmatch(part) else shlex.quote(part) for part in parts)


def _backend_dict(backend: Backend) -> dict:
    return {
        "name": backend.name,
        "compile": join(backend.compile) if backend.compile else "",
        "run": join(backend.run),
        "version": join(backend.version),
        "compile_timeout": backend.compile_timeout,
        "run_timeout": backend.run_timeout,
        "memory_mb": backend.memory_bytes // (1024 * 1024) if backend.memory_bytes else None,
        "environment": dict(backend.environment),
        "crash_markers": list(backend.crash_markers),
        "crash_exit_codes": list(backend.crash_exit_codes),
        "paths": list(backend.paths),
    }


# --- reading ------------------------------------------------------------------------------------
def parse(data: dict) -> TargetSpec:
    """Check ``data`` (from a form, the API or a file) and build the spec; raises SpecError naming each problem."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise SpecError(["the description must be a table (a JSON object)"])
    generator = _generator(data.get("generator"), problems)
    language = str(data.get("language") or BUILTIN_GENERATORS.get(generator.kind, "")).strip().lower()
    if not language:
        problems.append("language: say which language the programs are in (c, python, kotlin, dafny, …)")
    elif generator.kind in BUILTIN_GENERATORS and BUILTIN_GENERATORS[generator.kind] != language:
        problems.append(f"language: the {generator.kind} generator writes {BUILTIN_GENERATORS[generator.kind]}")
    suffix = str(data.get("suffix") or SUFFIXES.get(language, "")).strip()
    if language and not re.fullmatch(r"\.[A-Za-z0-9]{1,10}", suffix or "-"):
        problems.append(f"suffix: a file suffix such as .c for {language!r} programs")
    raw_backends = data.get("backends", data.get("backend", []))
    if not isinstance(raw_backends, list):
        raw_backends = []
        problems.append("backends: a list of backends")
    backends = [_backend(raw, index, problems) for index, raw in enumerate(raw_backends)]
    backends = [b for b in backends if b is not None]
    # From what was written, so a backend with another problem still counts here.
    names = [str(raw.get("name") or "").strip() for raw in raw_backends if isinstance(raw, dict)]
    if len(raw_backends) < 2:
        problems.append("backends: differential testing needs at least two")
    if len(raw_backends) > MAX_BACKENDS:
        problems.append(f"backends: at most {MAX_BACKENDS}")
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        problems.append(f"backends: names used twice: {', '.join(duplicated)}")
    reference = str(data.get("reference") or "").strip()
    if reference and reference not in names:
        problems.append(f"reference: {reference!r} is not one of the backends")
    if problems:
        raise SpecError(problems)
    return TargetSpec(language, suffix, generator, tuple(backends), reference)


def _generator(raw, problems: list[str]) -> Generator:
    if isinstance(raw, str):
        raw = {"kind": raw}
    if not isinstance(raw, dict):
        problems.append(f"generator: one of {', '.join(GENERATOR_KINDS)}, or a table with kind and its options")
        return Generator("command")
    kind = str(raw.get("kind") or ("command" if raw.get("command") else "")).strip()
    if kind not in GENERATOR_KINDS:
        problems.append(f"generator.kind: one of {', '.join(GENERATOR_KINDS)}")
        kind = "command"
    command = str(raw.get("command") or "").strip()
    if kind == "command":
        _command(command, "generator.command", GENERATOR_PLACEHOLDERS, problems, required=True)
        if command and "{seed}" not in command:
            problems.append("generator.command: it must use {seed}, so each program can be made again")
    elif command:
        problems.append(f"generator.command: only for kind = command (the {kind} generator is built in)")
    options = raw.get("options", ())
    if isinstance(options, str):
        options = _split(options, "generator.options", problems)
    if options and kind != "csmith":
        problems.append("generator.options: only Csmith takes options")
    timeout = _number(raw.get("timeout", 30), "generator.timeout", 1, 600, problems)
    return Generator(kind, command, bool(raw.get("swarm", True)), tuple(str(o) for o in options or ()), timeout)


def _backend(raw, index: int, problems: list[str]) -> Backend | None:
    where = f"backends[{index}]"
    if not isinstance(raw, dict):
        problems.append(f"{where}: a table with name, run and (for a compiler) compile")
        return None
    name = str(raw.get("name") or "").strip()
    if not NAME.match(name):
        problems.append(f"{where}.name: letters, digits and . _ + - (up to 64), e.g. gcc-12-O2")
    where = f"backend {name or index}"
    compile_text, run_text = str(raw.get("compile") or "").strip(), str(raw.get("run") or "").strip()
    compile_ = _command(compile_text, f"{where}: compile", BACKEND_PLACEHOLDERS, problems) if compile_text else None
    run = _command(run_text, f"{where}: run", BACKEND_PLACEHOLDERS, problems, required=True)
    if compile_ is not None and "{source}" not in compile_text:
        problems.append(f"{where}: compile must name {{source}}")
    if compile_ is not None and "{binary}" not in compile_text + run_text and "{workdir}" not in compile_text:
        problems.append(f"{where}: compile must write {{binary}} (or into {{workdir}}) for run to start")
    if compile_ is None and run_text and "{source}" not in run_text:
        problems.append(f"{where}: an interpreter's run command must name {{source}}")
    version_text = str(raw.get("version") or "").strip()
    version = _command(version_text, f"{where}: version", frozenset(), problems) if version_text else ()
    environment = raw.get("environment") or {}
    if not isinstance(environment, dict) or not all(
        isinstance(k, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) and isinstance(v, str | int | float)
        for k, v in environment.items()
    ):
        problems.append(f"{where}: environment is a table of NAME = value")
        environment = {}
    markers = raw.get("crash_markers")
    markers = DEFAULT_CRASH_MARKERS if markers is None else markers
    if not isinstance(markers, list | tuple) or not all(isinstance(m, str) and m for m in markers):
        problems.append(f"{where}: crash_markers is a list of strings")
        markers = ()
    codes = raw.get("crash_exit_codes") or []
    if not isinstance(codes, list | tuple) or not all(isinstance(c, int) and 0 < c < 256 for c in codes):
        problems.append(f"{where}: crash_exit_codes is a list of exit statuses (1-255)")
        codes = []
    paths = raw.get("paths") or []
    if not isinstance(paths, list | tuple) or not all(isinstance(p, str) and os.path.isabs(p) for p in paths):
        problems.append(f"{where}: paths is a list of absolute directories the commands may read")
        paths = []
    memory = raw.get("memory_mb")
    memory_bytes = int(_number(memory, f"{where}: memory_mb", 16, 64 * 1024, problems)) * 1024**2 if memory else None
    if run is None:
        return None
    return Backend(
        name=name,
        run=run,
        compile=compile_,
        version=version or (),
        compile_timeout=_number(raw.get("compile_timeout", 60), f"{where}: compile_timeout", 1, 3600, problems),
        run_timeout=_number(raw.get("run_timeout", 10), f"{where}: run_timeout", 1, 3600, problems),
        crash_markers=tuple(markers),
        crash_exit_codes=tuple(codes),
        memory_bytes=memory_bytes,
        environment=tuple(sorted((k, str(v)) for k, v in environment.items())),
        paths=tuple(paths),
    )


def _split(text: str, where: str, problems: list[str]) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(text))
    except ValueError as error:
        problems.append(f"{where}: {error}")
        return ()


def _command(
    text: str, where: str, allowed: frozenset[str], problems: list[str], required: bool = False
) -> tuple[str, ...] | None:
    if not text:
        if required:
            problems.append(f"{where}: a command is needed")
        return None
    if len(text) > MAX_COMMAND:
        problems.append(f"{where}: at most {MAX_COMMAND} characters")
        return None
    parts = _split(text, where, problems)
    if not parts:
        return None
    unknown = sorted({name for part in parts for name in _PLACEHOLDER.findall(part)} - allowed)
    if unknown:
        known = ", ".join(f"{{{name}}}" for name in sorted(allowed)) or "none"
        problems.append(f"{where}: unknown placeholder {', '.join('{' + u + '}' for u in unknown)} (known: {known})")
        return None
    return parts


def _number(value, where: str, low: float, high: float, problems: list[str]) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        problems.append(f"{where}: a number")
        return low
    if number != number:  # nan (TOML and JSON parsers accept it) is no number of anything
        problems.append(f"{where}: a number")
        return low
    if not low <= number <= high:
        problems.append(f"{where}: between {low:g} and {high:g}")
        return min(max(number, low), high)
    return number


# --- generating --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Program:
    text: str
    seed: int
    options: tuple[str, ...]
    command: str  # how to make it again
    counts: dict = field(default_factory=dict)


def generate(generator: Generator, suffix: str, rng: random.Random, limits: sandbox.Limits) -> Program:
    """One program from ``generator``; raises csmith.GeneratorError when the generator fails."""
    if generator.kind == "pygen":
        return pygen.generate(rng)
    if generator.kind == "kotlingen":
        return kotlingen.generate(rng)
    if generator.kind == "csmith":
        return _csmith(generator, rng)
    return _command_program(generator, suffix, rng, limits)


def _csmith(generator: Generator, rng: random.Random):
    if generator.swarm and not generator.options:
        return csmith.generate(rng)
    seed = rng.randrange(2**31)
    options = (csmith.swarm_options(rng) if generator.swarm else ()) + generator.options
    return csmith.run(seed, options)


def _command_program(generator: Generator, suffix: str, rng: random.Random, limits: sandbox.Limits) -> Program:
    # The user's generator is untrusted like the programs it writes: it runs in the sandbox.
    seed = rng.randrange(2**31)
    workdir = tempfile.mkdtemp(prefix="fuzzweb-gen-")
    try:
        out = os.path.join(workdir, f"program{suffix}")
        values = {"seed": str(seed), "out": out, "workdir": workdir}
        parts = [part.format(**values) for part in shlex.split(generator.command)]
        # What a maintainer runs again: the program lands in the current directory.
        shown = generator.command.replace("{seed}", str(seed)).replace("{out}", f"program{suffix}")
        shown = shown.replace("{workdir}", ".")
        made = execute.run(parts, workdir, generator.timeout, limits, {})
        if made.timed_out:
            raise csmith.GeneratorError(f"{shown}: took over {generator.timeout:g} s")
        if made.returncode != 0:
            raise csmith.GeneratorError(f"{shown}: exit status {made.returncode}: {made.stderr.strip()[-500:]}")
        text = made.stdout
        if "{out}" in generator.command:
            try:
                with open(out, "rb") as handle:
                    text = handle.read(MAX_PROGRAM_BYTES + 1).decode("utf-8", "replace")
            except OSError:
                raise csmith.GeneratorError(f"{shown}: wrote nothing to program{suffix}") from None
        if not text.strip():
            raise csmith.GeneratorError(f"{shown}: an empty program")
        if len(text) > MAX_PROGRAM_BYTES:
            raise csmith.GeneratorError(f"{shown}: a program over {MAX_PROGRAM_BYTES} bytes")
        return Program(text, seed, (), shown)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def missing(spec: TargetSpec) -> list[str]:
    """Names of the backends whose first program is not on this machine."""
    return [backend.name for backend in spec.backends if not backend.available()]
