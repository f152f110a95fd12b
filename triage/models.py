"""Findings, the buckets they are grouped into, and the buckets' audit trail."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Kind(models.TextChoices):
    CRASH = "crash", "Crash"
    TIMEOUT = "timeout", "Timeout"
    OOM = "oom", "Out of memory"
    MISCOMPILATION = "miscompilation", "Miscompilation"


class Method(models.TextChoices):
    """How a bucket's signature was made."""

    STACK = "stack", "Stack trace"
    MESSAGE = "message", "Crash message (trace not parsed)"
    EXACT = "exact", "Exact key"
    DIFFERENTIAL = "differential", "Backend outcomes"


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
    method = models.CharField(max_length=16, choices=Method.choices, default=Method.STACK, db_index=True)
    trace_format = models.CharField(max_length=32, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.NEW, db_index=True)
    hit_count = models.PositiveBigIntegerField(default=0)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    representative = models.ForeignKey("Finding", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The representative's testcase size, kept here so that offering a
    # smaller one is a condition on this row alone (no join in the UPDATE).
    representative_size = models.PositiveIntegerField(null=True, blank=True)
    # Set once the representative was re-run here and reproduced every time:
    # from then on only a smaller verified reproducer replaces it, never an
    # unverified testcase that merely happens to be smaller.
    representative_verified = models.BooleanField(default=False)

    class Meta:
        constraints = [
            # The lookup every ingest does; unique so concurrent workers that
            # see the same new crash end up in one bucket.
            models.UniqueConstraint(fields=["signature", "signature_version"], name="bucket_signature_unique")
        ]
        ordering = ["-last_seen"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"


class Origin(models.TextChoices):
    FUZZER = "fuzzer", "Found by a fuzzer"
    REDUCED = "reduced", "Reduced here"
    UPLOADED = "uploaded", "Uploaded by a maintainer"


class Finding(models.Model):
    """One distinct failing testcase: its input, its trace, where it came from.

    The same testcase reported again (same ``content_hash``) is not stored
    twice: its ``hit_count`` and ``last_seen`` go up instead.
    """

    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="findings")
    campaign = models.ForeignKey(
        "campaigns.Campaign", null=True, blank=True, on_delete=models.SET_NULL, related_name="findings"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target = models.CharField(max_length=255)
    engine = models.CharField(max_length=64, blank=True)
    function = models.CharField(max_length=255, blank=True)
    stage = models.CharField(max_length=255, blank=True)
    crash_type = models.CharField(max_length=255, blank=True)
    message = models.TextField(blank=True)
    trace = models.TextField(blank=True)
    trace_format = models.CharField(max_length=32, blank=True)
    testcase = models.TextField(blank=True, help_text="The testcase as text (a preview for binary ones).")
    testcase_bytes = models.BinaryField(null=True, blank=True, help_text="Binary testcases, as sent.")
    testcase_language = models.CharField(max_length=32, default="text")
    testcase_size = models.PositiveIntegerField(default=0)
    content_hash = models.CharField(max_length=64, unique=True)
    reproducer = models.TextField(blank=True)
    reference = models.CharField(max_length=100, blank=True)
    backends = models.JSONField(default=list, blank=True)
    versions = models.JSONField(default=dict, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    signature = models.CharField(max_length=64, db_index=True)
    signature_version = models.PositiveSmallIntegerField()
    hit_count = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(db_index=True)
    last_seen = models.DateTimeField()
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.FUZZER)
    # When it last reproduced on every verification run here; null: never verified.
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["bucket", "-created_at"], name="finding_bucket_recent"),
            models.Index(fields=["signature_version"], name="finding_signature_version"),
        ]

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


class ReductionState(models.TextChoices):
    QUEUED = "queued", "Queued"
    VERIFYING = "verifying", "Checking the original reproduces"
    REDUCING = "reducing", "Reducing"
    DONE = "done", "Done"
    FLAKY = "flaky", "Flaky"
    NOT_REPRODUCED = "not_reproduced", "Does not reproduce"
    UNSUPPORTED = "unsupported", "Cannot be run here"
    REFUSED = "refused", "Refused"
    FAILED = "failed", "Failed"


class Reduction(models.Model):
    """One attempt to shrink a bucket's testcase, or to check a maintainer's smaller version of it.

    Saved as it goes: the best candidate so far is on the row while the job
    runs, so a reduction cut short by its budget or a dying worker still
    shows what it reached. Only a result that reproduced the bucket on every
    verification run is accepted (``state`` done).
    """

    class Source(models.TextChoices):
        AUTO = "auto", "New bucket"
        AGAIN = "again", "Reduce again"
        UPLOAD = "upload", "Uploaded"

    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="reductions")
    finding = models.ForeignKey(Finding, null=True, on_delete=models.SET_NULL, related_name="+")
    result = models.ForeignKey(Finding, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.AUTO)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    state = models.CharField(max_length=16, choices=ReductionState.choices, default=ReductionState.QUEUED)
    reducer = models.CharField(max_length=64, blank=True)
    language = models.CharField(max_length=32, default="text")
    original_text = models.TextField(blank=True)
    reduced_text = models.TextField(blank=True)
    original_size = models.PositiveIntegerField(default=0)
    reduced_size = models.PositiveIntegerField(default=0)
    tests = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    original_runs = models.PositiveSmallIntegerField(default=0)
    original_passes = models.PositiveSmallIntegerField(default=0)
    verify_runs = models.PositiveSmallIntegerField(default=0)
    verify_passes = models.PositiveSmallIntegerField(default=0)
    message = models.TextField(blank=True, help_text="Why it stopped where it did, for the bucket page.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["bucket", "-created_at"], name="reduction_bucket_recent")]

    def __str__(self) -> str:
        return f"reduction of #{self.bucket_id}: {self.state}"

    @property
    def ratio(self) -> float | None:
        if not self.original_size or not self.reduced_size:
            return None
        return self.reduced_size / self.original_size

    @property
    def finished(self) -> bool:
        return self.state not in (ReductionState.QUEUED, ReductionState.VERIFYING, ReductionState.REDUCING)
