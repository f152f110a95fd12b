"""Findings, the buckets they are grouped into, and the buckets' audit trail."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    CRASH = "crash", "Crash"
    TIMEOUT = "timeout", "Timeout"
    OOM = "oom", "Out of memory"


class Status(models.TextChoices):
    NEW = "new", "New"
    CONFIRMED = "confirmed", "Confirmed"
    REPORTED = "reported", "Reported"
    FIXED = "fixed", "Fixed"
    WONTFIX = "wontfix", "Won't fix"
    DUPLICATE = "duplicate", "Duplicate"
    INVALID = "invalid", "Invalid"


class Bucket(models.Model):
    """All findings that share a signature: one root cause, ideally."""

    signature = models.CharField(max_length=64)
    signature_version = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    crash_type = models.CharField(max_length=255, blank=True)
    title = models.CharField(max_length=300)
    key_frames = models.JSONField(default=list, help_text="Normalised frames the signature hashes.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.NEW, db_index=True)
    hit_count = models.PositiveBigIntegerField(default=0)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    representative = models.ForeignKey("Finding", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            # The lookup every ingest does; unique so concurrent workers that
            # see the same new crash end up in one bucket.
            models.UniqueConstraint(fields=["signature", "signature_version"], name="bucket_signature_unique")
        ]
        ordering = ["-last_seen"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"


class Finding(models.Model):
    """One failing execution: its input, its trace, where it came from."""

    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="findings")
    campaign = models.ForeignKey(
        "campaigns.Campaign", null=True, blank=True, on_delete=models.SET_NULL, related_name="findings"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target = models.CharField(max_length=255)
    function = models.CharField(max_length=255, blank=True)
    crash_type = models.CharField(max_length=255, blank=True)
    message = models.TextField(blank=True)
    trace = models.TextField(blank=True)
    input_text = models.TextField(blank=True)
    input_size = models.PositiveIntegerField(default=0)
    reproducer = models.TextField(blank=True)
    environment = models.JSONField(default=dict, blank=True)
    signature = models.CharField(max_length=64, db_index=True)
    signature_version = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["bucket", "-created_at"], name="finding_bucket_recent")]

    def __str__(self) -> str:
        return f"{self.crash_type or self.kind} in {self.function or self.target}"


class BucketEvent(models.Model):
    """Audit log: who changed what on a bucket, and when."""

    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="events")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    field = models.CharField(max_length=32)
    old_value = models.CharField(max_length=255, blank=True)
    new_value = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.field}: {self.old_value} -> {self.new_value}"
