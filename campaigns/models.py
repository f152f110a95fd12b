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
    """Something to fuzz: a Python module for the pyfunc engine."""

    name = models.CharField(max_length=100, unique=True)
    engine = models.CharField(max_length=32, default="pyfunc")
    module = models.CharField(max_length=255, help_text="Importable module, e.g. engines.demo.textkit")
    search_path = models.CharField(max_length=1024, blank=True, help_text="Extra import directories, separated by ':'.")
    description = models.TextField(blank=True)
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
    seed = models.BigIntegerField(default=0)
    time_budget_seconds = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.QUEUED, db_index=True
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
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
