"""Fuzz targets and the campaigns run against them."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models


def validate_ignore_patterns(text: str) -> None:
    """Each non-comment line must be a valid regular expression."""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            try:
                re.compile(line)
            except re.error as error:
                raise ValidationError(f"line {number}: {error}") from error


class Target(models.Model):
    """Something to fuzz: a Python module or package (pyfunc), or toolchains tested differentially.

    ``engine`` names an entry of the engine registry (engines/registry.py).
    A user-defined differential target keeps its backends and generator in
    ``differential``, checked by engines.differential.spec (the one reader
    of that description, for the form, the API and target files alike).
    """

    name = models.CharField(max_length=100, unique=True)
    engine = models.CharField(max_length=32, default="pyfunc")
    differential = models.JSONField(
        default=dict,
        blank=True,
        help_text="User-defined differential targets: language, generator, backends and reference "
        "(engines.differential.spec).",
    )
    package = models.CharField(
        max_length=255,
        blank=True,
        help_text="pyfunc: a distribution to install for this target, name==version from PyPI "
        "(or a local path or archive); workers install it into a virtual environment of its own.",
    )
    # An uploaded archive (wheel or sdist) in the database, so every worker, on any machine, installs the same bytes.
    package_archive = models.BinaryField(null=True, blank=True, editable=False)
    package_archive_name = models.CharField(max_length=255, blank=True, editable=False)
    install_log = models.TextField(blank=True, help_text="pyfunc packages: the last install's log, from a worker.")
    install_ok = models.BooleanField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True, null=True)
    module = models.CharField(
        max_length=255, blank=True, help_text="Importable module, e.g. engines.demo.textkit (pyfunc targets)."
    )
    search_path = models.CharField(max_length=1024, blank=True, help_text="Extra import directories, separated by ':'.")
    description = models.TextField(blank=True)
    include = models.CharField(
        max_length=1024, blank=True, help_text="Functions to fuzz: fnmatch patterns, space separated (empty: all)."
    )
    exclude = models.CharField(max_length=1024, blank=True, help_text="Functions to leave out: fnmatch patterns.")
    setup_modules = models.CharField(
        max_length=1024,
        blank=True,
        help_text="Modules imported before the target, space separated: where custom value generators "
        "are registered (engines.pyfunc.generators.register).",
    )
    ignore_exceptions = models.CharField(
        max_length=1024,
        blank=True,
        help_text="Exception types that are not findings, e.g. ValueError json.JSONDecodeError.",
    )
    signature_frames = models.PositiveSmallIntegerField(
        default=3, help_text="How many of the target's own frames make a crash signature."
    )
    ignore_frames = models.TextField(
        blank=True,
        help_text="Extra frames to skip in signatures: one regular expression per line, "
        "matched against function names and file paths.",
        validators=[validate_ignore_patterns],
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# What an engine run reads of a target (engines/registry.py: run(target, ...)).
TARGET_FIELDS = (
    "name", "engine", "module", "search_path", "include", "exclude", "setup_modules",
    "ignore_exceptions", "differential", "package", "package_archive", "package_archive_name",
)  # fmt: skip


def target_fields(target: Target) -> dict:
    """The target as the plain data an engine takes."""
    return {name: getattr(target, name) for name in TARGET_FIELDS}


class CampaignStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    STOPPING = "stopping", "Stopping"
    FINISHED = "finished", "Finished"
    STOPPED = "stopped", "Stopped"
    FAILED = "failed", "Failed"


ACTIVE_STATUSES = (CampaignStatus.QUEUED, CampaignStatus.RUNNING, CampaignStatus.STOPPING)


class Campaign(models.Model):
    """One run of an engine against a target with a time budget."""

    target = models.ForeignKey(Target, on_delete=models.PROTECT, related_name="campaigns")
    engine = models.CharField(max_length=32)
    options = models.JSONField(
        default=dict, blank=True, help_text="Engine options: for differential engines, backends and reference."
    )
    seed = models.BigIntegerField(default=0)
    time_budget_seconds = models.PositiveIntegerField()
    max_executions = models.PositiveBigIntegerField(
        null=True, blank=True, help_text="Optional execution budget, shared by the shards."
    )
    shard_count = models.PositiveSmallIntegerField(default=1)
    cloned_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="clones")
    status = models.CharField(
        max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.QUEUED, db_index=True
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    executions = models.PositiveBigIntegerField(default=0)
    findings_count = models.PositiveIntegerField(default=0)
    new_buckets = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Campaign #{self.pk} ({self.target})"

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES


class ShardStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    STOPPED = "stopped", "Stopped"
    FAILED = "failed", "Failed"


SHARD_DONE = (ShardStatus.FINISHED, ShardStatus.STOPPED, ShardStatus.FAILED)


class Shard(models.Model):
    """One RQ job's share of a campaign: its own seed, heartbeat and checkpoint."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="shards")
    index = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=ShardStatus.choices, default=ShardStatus.QUEUED, db_index=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times a worker has started it.")
    worker = models.CharField(max_length=255, blank=True, help_text="The worker running it (host:pid).")
    job_id = models.CharField(max_length=64, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, db_index=True)
    executions = models.PositiveBigIntegerField(default=0)
    findings = models.PositiveIntegerField(default=0)
    restarts = models.PositiveIntegerField(default=0, help_text="Times the target's process died and was restarted.")
    elapsed_seconds = models.FloatField(default=0.0, help_text="Budget used so far, over all attempts.")
    checkpoint = models.JSONField(null=True, blank=True, help_text="Engine state to resume from.")
    discovery = models.JSONField(
        null=True, blank=True, help_text="Functions the engine fuzzes, and those it could not, with why."
    )
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["campaign", "index"]
        constraints = [models.UniqueConstraint(fields=["campaign", "index"], name="shard_index_unique")]

    def __str__(self) -> str:
        return f"{self.campaign} shard {self.index}"

    @property
    def job_name(self) -> str:
        return f"campaign-{self.campaign_id}-shard-{self.index}"


class StatSample(models.Model):
    """A point of a shard's progress time series (executions, rate, findings...)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="samples")
    shard = models.ForeignKey(Shard, on_delete=models.CASCADE, related_name="samples")
    at = models.DateTimeField()
    elapsed_seconds = models.FloatField()
    executions = models.PositiveBigIntegerField()
    executions_per_second = models.FloatField()
    findings = models.PositiveIntegerField()
    campaign_buckets = models.PositiveIntegerField(help_text="New buckets of the whole campaign at that time.")
    corpus_size = models.PositiveIntegerField(null=True, blank=True)
    coverage = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["at"]
        indexes = [models.Index(fields=["campaign", "at"], name="sample_campaign_at")]

    def __str__(self) -> str:
        return f"{self.shard} at {self.elapsed_seconds:.0f} s: {self.executions} executions"


class FunctionExamples(models.Model):
    """A fuzzed function's source and the example calls one shard chose for it.

    Written by the engine now and then (a later report replaces the earlier
    one); the function page merges the shards' examples.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="function_examples")
    shard = models.ForeignKey(Shard, on_delete=models.CASCADE, related_name="function_examples")
    name = models.CharField(max_length=255, help_text="As the engine names it: function, or module.function.")
    module = models.CharField(max_length=255)
    file = models.TextField(help_text="The source file, as the worker saw it.")
    first_line = models.PositiveIntegerField(default=1)
    source = models.TextField(blank=True)
    executable_lines = models.JSONField(default=list, help_text="Lines with code that a call can run.")
    examples = models.JSONField(default=list, help_text="[{call, outcome, result, lines}], simplest first.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["shard", "name"], name="function_examples_unique")]
        indexes = [models.Index(fields=["campaign", "name"], name="function_examples_lookup")]

    def __str__(self) -> str:
        return f"{self.name} in {self.shard}"


class ProgramRun(models.Model):
    """One program of a differential campaign and each backend's outcome for it.

    Stored for every program, not only for findings: the outcome pairs over
    a whole campaign (K1 ok and K2 rejected in 3 of 40 files, say) are what
    the campaign page tallies. The program itself is not kept; its seed and
    generator command regenerate it.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="programs")
    shard = models.ForeignKey(Shard, on_delete=models.CASCADE, related_name="programs")
    number = models.PositiveIntegerField(help_text="The program's place in its shard's run, from 1.")
    seed = models.BigIntegerField()
    generator = models.TextField(help_text="The command that regenerates the program.")
    outcomes = models.JSONField(help_text="Backend name to outcome class: ok, wrong_output, rejected, ...")
    seconds = models.JSONField(default=dict, help_text="Backend name to the seconds it spent on the program.")
    findings = models.PositiveIntegerField(default=0)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["shard", "number"]
        constraints = [models.UniqueConstraint(fields=["shard", "number"], name="program_shard_number_unique")]
        indexes = [models.Index(fields=["campaign", "-at"], name="program_campaign_at")]

    def __str__(self) -> str:
        return f"{self.shard} program {self.number}"
