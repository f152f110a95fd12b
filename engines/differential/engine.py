"""The differential campaign loop: generate, run everywhere, classify, report.

One loop for every language: a ``Language`` says how to generate a program
and which backends exist. Programs that every backend runs past its time
limit are skipped (a generated program that loops is not a finding), and
counted.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engines import events, sandbox
from engines.differential import backends as backend_table
from engines.differential import (
    c,
    compare,
    csmith,
    diversity,
    findings,
    harness,
    kotlin,
    kotlingen,
    pygen,
    python,
    spec,
)

STATS_INTERVAL_SECONDS = 1.0
CHECKPOINT_INTERVAL_SECONDS = 5.0
STATE_VERSION = 1


class SetupError(Exception):
    """The campaign cannot run: unknown language, or too few backends installed."""


@dataclass(frozen=True)
class Language:
    name: str
    suffix: str
    backends: Callable[[], list[backend_table.Backend]]
    generate: Callable[[random.Random], object]  # -> an object with .text, .command, .seed, .options
    # The generator reports counts of its grammar constructs (.counts): diversity mode can use them.
    counts_constructs: bool = True


LANGUAGES = {
    "c": Language("c", ".c", c.backends, csmith.generate, counts_constructs=False),
    "python": Language("python", ".py", python.backends, pygen.generate),
    # kotlinc names the class of program.kt's top level ProgramKt, which the run step starts.
    "kotlin": Language("kotlin", ".kt", kotlin.backends, kotlingen.generate),
}


@dataclass(frozen=True)
class Config:
    language: str
    backends: list[str] = field(default_factory=list)  # names; empty: every installed one
    reference: str = ""  # a backend name; empty: the majority
    seconds: float = 60.0
    seed: int = 0
    max_programs: int | None = None
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    resume: dict | None = None
    diversity: bool = False  # generate several programs, run the one least like those run before
    # A user-defined target: its description (engines.differential.spec), which then
    # decides the language, generator and backends, and the name its findings carry.
    spec: dict | None = None
    target: str = ""


@dataclass
class Summary:
    programs: int = 0
    findings: int = 0
    skipped: int = 0  # ran too long everywhere, or the generator failed
    backends: list[str] = field(default_factory=list)
    stopped: bool = False


def installed_backends(language: str) -> list[str]:
    """Names of the backends of ``language`` whose tools are on this machine (for the launch form)."""
    return [backend.name for backend in backend_table.available(LANGUAGES[language].backends())]


def user_language(description: dict, limits: sandbox.Limits) -> Language:
    """The Language of a user-defined target; raises SetupError when its description is wrong."""
    try:
        checked = spec.parse(description)
    except spec.SpecError as error:
        raise SetupError(f"the target's description is wrong: {error}") from None
    return Language(
        checked.language,
        checked.suffix,
        lambda: list(checked.backends),
        lambda rng: spec.generate(checked.generator, checked.suffix, rng, limits),
        counts_constructs=checked.generator.kind in ("pygen", "kotlingen"),
    )


def _chosen(config: Config, language: Language) -> list[backend_table.Backend]:
    if config.spec is not None:
        missing = [b.name for b in language.backends() if not b.available()]
        if missing:
            raise SetupError(f"not installed on this worker: {', '.join(missing)}")
    installed = backend_table.available(language.backends())
    chosen = [b for b in installed if not config.backends or b.name in config.backends]
    missing = sorted(set(config.backends) - {b.name for b in installed})
    if missing:
        raise SetupError(f"backends not installed on this worker: {', '.join(missing)}")
    if len(chosen) < 2:
        raise SetupError(f"differential testing needs two backends; installed: {[b.name for b in installed]}")
    return chosen


def run(config: Config, sink: events.EventSink) -> Summary:
    """Test programs until the budget is spent or the sink asks to stop."""
    if config.spec is not None:
        language = user_language(config.spec, config.limits)
        reference = config.reference or config.spec.get("reference", "")
    else:
        language = LANGUAGES.get(config.language)
        reference = config.reference
    if language is None:
        raise SetupError(f"unknown language {config.language!r}; known: {', '.join(LANGUAGES)}")
    chosen = _chosen(config, language)
    if config.diversity and not language.counts_constructs:
        raise SetupError(f"diversity mode needs a generator that counts its constructs; {language.name}'s does not")
    picker = diversity.Picker() if config.diversity else None
    summary = Summary(backends=[b.name for b in chosen])
    rng = random.Random(config.seed)
    if config.resume and config.resume.get("version") == STATE_VERSION:
        version, internal, gauss = config.resume["rng"]
        rng.setstate((version, tuple(internal), gauss))
        summary.programs, summary.findings, summary.skipped = (
            config.resume["programs"],
            config.resume["findings"],
            config.resume["skipped"],
        )
    record = getattr(sink, "program", None)
    started = time.monotonic()
    next_stats = started + STATS_INTERVAL_SECONDS
    next_checkpoint = started + CHECKPOINT_INTERVAL_SECONDS
    while time.monotonic() - started < config.seconds:
        if config.max_programs is not None and summary.programs >= config.max_programs:
            break
        if sink.should_stop():
            summary.stopped = True
            break
        try:
            if picker is None:
                program = language.generate(rng)
            else:
                program = picker.pick([language.generate(rng) for _ in range(diversity.CANDIDATES)])
        except csmith.GeneratorError:
            summary.skipped += 1
            continue
        results = harness.process(program.text, language.suffix, chosen, config.limits)
        summary.programs += 1
        found = []
        if compare.too_slow(results):
            summary.skipped += 1
            outcomes = {r.backend: r.outcome for r in results}
        else:
            verdict = compare.classify(results, reference or None)
            outcomes = verdict.outcomes
            metadata = {"seed": program.seed, "options": list(program.options), "generator": program.command}
            found = findings.findings(
                target=config.target or f"{language.name} compilers",
                language=language.name,
                program=program.text,
                reproducer=program.command,
                verdict=verdict,
                results=results,
                metadata=metadata,
            )
            for finding in found:
                summary.findings += 1
                sink.finding(finding)
        if record is not None:
            record(
                events.ProgramRecord(
                    number=summary.programs,
                    seed=program.seed,
                    generator=program.command,
                    outcomes=dict(outcomes),
                    seconds={r.backend: r.total_seconds for r in results},
                    findings=len(found),
                )
            )
        now = time.monotonic()
        if now >= next_stats:
            next_stats = now + STATS_INTERVAL_SECONDS
            sink.stats(_stats(summary, now - started))
        if now >= next_checkpoint:
            next_checkpoint = now + CHECKPOINT_INTERVAL_SECONDS
            sink.checkpoint(_state(summary, rng))
    sink.stats(_stats(summary, time.monotonic() - started))
    sink.checkpoint(_state(summary, rng))
    return summary


def _stats(summary: Summary, elapsed: float) -> events.Stats:
    # An execution here is one program through every backend.
    return events.Stats(executions=summary.programs, findings=summary.findings, elapsed_seconds=elapsed)


def _state(summary: Summary, rng: random.Random) -> dict:
    version, internal, gauss = rng.getstate()
    return {
        "version": STATE_VERSION,
        "rng": [version, list(internal), gauss],
        "programs": summary.programs,
        "findings": summary.findings,
        "skipped": summary.skipped,
    }
