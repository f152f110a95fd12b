"""The one list of engines: what each is called, its queue, its launch options, its default targets,
how a campaign shard runs it and how its findings are replayed and reduced.

Settings (the RQ queues), ``make run`` and ``make worker`` (which queues to
serve), the launch form, the shard job and reduction all read this list;
adding an engine is its package plus one entry here. Deployments with
engines of their own name them in ``FUZZWEB_ENGINE_PLUGINS`` (``module:NAME``
of an ``Engine``, space separated): configuration written by the
administrator, never by anything a fuzzer or a user of the dashboard sends.

Entries name their code as ``module:function`` strings, imported only when
used, so reading the list (the supervisor, settings) loads no engine.

    python -m engines.registry queues     # the queues a worker serves, one line
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

# How a finding is re-run for verification and reduction.
REPLAY_CALL = "call"  # a Python function called with recorded values (pyfunc)
REPLAY_PROGRAM = "program"  # a program put through recorded backends (differential engines)
REPLAY_NONE = ""


@dataclass(frozen=True)
class Option:
    """A launch option, and the form field the launch page shows for it."""

    name: str
    kind: str  # bool, backends (choose among installed ones), reference (one of them, or the majority)
    label: str
    help: str = ""


@dataclass(frozen=True)
class Budget:
    """What one shard may spend, and where it left off."""

    seconds: float
    seed: int
    max_executions: int | None = None
    resume: dict | None = None


@dataclass(frozen=True)
class Engine:
    name: str
    title: str
    # "module:function" called as function(target, options, budget, sink) -> a summary with .stopped;
    # target is the target's fields as a dict, options the campaign's.
    run: str
    options: tuple[Option, ...] = ()
    # Targets ensured at start-up: the fields of campaigns.models.Target.
    default_targets: tuple[dict, ...] = ()
    replay: str = REPLAY_NONE
    # Differential engines: the language of the programs (their backends come from that language's table).
    language: str = ""
    # Errors that mean the campaign cannot run as configured (shown on its page), not that the engine broke.
    setup_errors: tuple[str, ...] = ()
    # Targets of this engine are defined by their users (backends and generator as data).
    user_defined: bool = False
    notes: dict = field(default_factory=dict)

    @property
    def queue(self) -> str:
        """The RQ queue its shards go to: a worker serves only the engines it has the tools for."""
        return f"engine-{self.name}"

    def runner(self) -> Callable:
        return _resolve(self.run)

    def setup_error_types(self) -> tuple[type[BaseException], ...]:
        return tuple(_resolve(path) for path in self.setup_errors)


def _resolve(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


_DIFF_OPTIONS = (
    Option("backends", "backends", "Backends", "The backends to compare (only those installed here are offered)."),
    Option("reference", "reference", "Reference", "Whose output counts as right; empty for the majority."),
    Option(
        "diversity",
        "bool",
        "Diversity mode",
        "Generated programs (Python, Kotlin): of 8 candidates, run the one whose mix of constructs is "
        "least like the programs already run.",
    ),
)
_DIFF_RUN = "engines.differential.campaign:run"
_DIFF_ERRORS = ("engines.differential.engine:SetupError",)


def _builtin_differential(name: str, language: str, target: dict) -> Engine:
    return Engine(
        name=name,
        title=target["name"],
        run=_DIFF_RUN,
        options=_DIFF_OPTIONS,
        default_targets=({**target, "engine": name},),
        replay=REPLAY_PROGRAM,
        language=language,
        setup_errors=_DIFF_ERRORS,
    )


BUILTIN: tuple[Engine, ...] = (
    Engine(
        name="pyfunc",
        title="Python functions",
        run="engines.pyfunc.campaign:run",
        default_targets=(
            {
                "name": "textkit (demo)",
                "engine": "pyfunc",
                "module": "engines.demo.textkit",
                "description": "fuzzweb's demo target: text and number helpers with five planted bugs.",
            },
        ),
        replay=REPLAY_CALL,
        setup_errors=("engines.pyfunc.engine:TargetError",),
    ),
    _builtin_differential(
        "diff-c",
        "c",
        {
            "name": "C compilers (Csmith)",
            "description": "Csmith programs compiled by gcc and clang at each optimisation level and by tcc; "
            "their printed checksums compared.",
        },
    ),
    _builtin_differential(
        "diff-python",
        "python",
        {
            "name": "Python implementations (generated programs)",
            "description": "Generated deterministic Python programs run by CPython, CPython -O, PyPy and Cython; "
            "their printed variables compared.",
        },
    ),
    _builtin_differential(
        "diff-kotlin",
        "kotlin",
        {
            "name": "Kotlin compiler (K1 against K2)",
            "description": "Generated Kotlin files compiled by kotlinc with the K1 frontend (-language-version 1.9) "
            "and with K2, then run on the JVM: a file one frontend accepts and the other rejects, a compiler crash, "
            "or different output is a finding.",
        },
    ),
    # User-defined differential targets: their backends and generator are data on the target
    # (engines.differential.spec), snapshotted into each campaign.
    Engine(
        name="differential",
        title="User-defined differential targets",
        run=_DIFF_RUN,
        replay=REPLAY_PROGRAM,
        setup_errors=_DIFF_ERRORS,
        user_defined=True,
    ),
)


def _plugins() -> tuple[Engine, ...]:
    return tuple(_resolve(path) for path in os.environ.get("FUZZWEB_ENGINE_PLUGINS", "").split())


def engines() -> dict[str, Engine]:
    """Every engine by name: the built-in ones, then the configured plugins."""
    return {engine.name: engine for engine in (*BUILTIN, *_plugins())}


def get(name: str) -> Engine | None:
    return engines().get(name)


def queues() -> list[str]:
    """Every engine's queue, in registry order."""
    return [engine.queue for engine in engines().values()]


if __name__ == "__main__":
    if sys.argv[1:] == ["queues"]:
        print(" ".join(queues()))
    else:
        sys.exit("usage: python -m engines.registry queues")
