"""Findings, the buckets they are grouped into, and the buckets' audit trail."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
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
    CULPRIT = "culprit", "Culprit optimisation"


class Status(models.TextChoices):
    NEW = "new", "New"
    CONFIRMED = "confirmed", "Confirmed"
    REPORTED = "reported", "Reported"
    FIXED = "fixed", "Fixed"
    WONTFIX = "wontfix", "Won't fix"
    EXPECTED = "expected", "Expected behaviour"
    DUPLICATE = "duplicate", "Duplicate"
    INVALID = "invalid", "Invalid"


class Priority(models.IntegerChoices):
    NONE = 0, "—"
    LOW = 1, "Low"
    MEDIUM = 2, "Medium"
    HIGH = 3, "High"
    CRITICAL = 4, "Critical"


class Label(models.Model):
    """A triage tag, editable in the admin (the defaults come from a migration)."""

    name = models.CharField(max_length=64, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


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
    # The target of the finding that opened it: the fuzzy stage (triage.fuzzy)
    # compares a new crash only with buckets of its own target.
    target = models.CharField(max_length=255, blank=True)
    # What the fuzzy stage compares (crashes.similarity): the normalised top
    # frames, and the keys candidates are found by (site and top frames),
    # behind a GIN index so that finding them never reads every bucket.
    fuzzy_frames = models.JSONField(default=list, blank=True)
    fuzzy_keys = models.JSONField(default=list, blank=True)
    # The crash type the fuzzy stage compares (crashes.model.Signature.fuzzy_crash_type: "" when the
    # report said none, as a pasted line does); null for a bucket made before it was kept.
    fuzzy_crash_type = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001 - null: not kept yet
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

    # Triage state. Every change goes through triage.workflow, which logs it.
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_buckets"
    )
    priority = models.PositiveSmallIntegerField(choices=Priority.choices, default=Priority.NONE)
    labels = models.ManyToManyField(Label, blank=True, related_name="buckets")
    watchers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="watched_buckets")
    # Set with status "duplicate": the bucket that now takes this one's hits.
    duplicate_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="duplicates"
    )
    # Muted: hits still counted, but the bucket is never shown as new.
    muted = models.BooleanField(default=False)
    # A fixed bucket hit again: reopened, and the versions involved kept.
    regression = models.BooleanField(default=False)
    # C wrong code and compiler crashes, once reduced: per misbehaving backend, the optimisation
    # that breaks the program (engines.differential.culprit), as triage/culprits.py found it.
    culprit = models.JSONField(default=dict, blank=True)
    regression_versions = models.JSONField(default=dict, blank=True)
    fixed_versions = models.JSONField(default=dict, blank=True, help_text="Versions of the last hit before the fix.")
    reported_at = models.DateTimeField(null=True, blank=True)
    fixed_at = models.DateTimeField(null=True, blank=True)
    # The tracker issue, once filed (or linked by hand).
    tracker = models.ForeignKey("Tracker", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    issue_url = models.URLField(max_length=500, blank=True)
    issue_state = models.CharField(max_length=16, blank=True, help_text="open or closed, as the tracker last said.")
    # Security-sensitive: only this group (and superusers) see it anywhere (triage.visibility).
    # PROTECT: deleting the group must never turn its buckets public.
    restricted_to = models.ForeignKey(
        "auth.Group",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="restricted_buckets",
        help_text="Only members of this group see the bucket; empty: everyone who can log in.",
    )

    class Meta:
        constraints = [
            # The lookup every ingest does; unique so concurrent workers that
            # see the same new crash end up in one bucket.
            models.UniqueConstraint(fields=["signature", "signature_version"], name="bucket_signature_unique")
        ]
        ordering = ["-last_seen"]
        indexes = [
            models.Index(fields=["-hit_count"], name="bucket_hits"),
            models.Index(fields=["-first_seen"], name="bucket_first_seen"),
            # Lookalikes: buckets with the same crash type (the frames have a GIN index, migration 0006).
            models.Index(fields=["kind", "crash_type"], name="bucket_kind_crash_type"),
            # The overview's time to report and to fix: the latest of each, without a scan.
            models.Index(
                fields=["-reported_at"], name="bucket_reported_at", condition=models.Q(reported_at__isnull=False)
            ),
            models.Index(fields=["-fixed_at"], name="bucket_fixed_at", condition=models.Q(fixed_at__isnull=False)),
            # The bucket list as it opens (muted ones left out, latest first), and its count,
            # which this index answers alone instead of reading every bucket row.
            models.Index(fields=["-last_seen", "-id"], name="bucket_unmuted_recent", condition=models.Q(muted=False)),
            # The usual filters (new crashes, say) and their count, from the index alone.
            models.Index(
                fields=["status", "kind", "id"], name="bucket_unmuted_status_kind", condition=models.Q(muted=False)
            ),
        ]
        permissions = [
            ("triage_bucket", "Can triage buckets, launch campaigns and change anything"),
            ("restrict_bucket", "Can restrict buckets to a group and manage accounts' roles"),
        ]

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
    # Indexed below with the columns a campaign page sums (finding_campaign_hits).
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="findings",
        db_index=False,
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
    # Big: the API lets one report stand for up to 10**9 runs, and repeats add up.
    hit_count = models.PositiveBigIntegerField(default=1)
    created_at = models.DateTimeField(db_index=True)
    last_seen = models.DateTimeField()
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.FUZZER)
    # Whether a worker may ever re-run it (reduce, verify). Campaign findings of
    # this installation may; findings from the API only when the token was
    # given the replay right by an admin (triage.receive).
    replay_allowed = models.BooleanField(default=True)
    # When it last reproduced on every verification run here; null: never verified.
    verified_at = models.DateTimeField(null=True, blank=True)
    # Set when retention (triage.retention) dropped its testcase, trace and outputs. The row
    # stays, so hits, dates and the content hash that recognises a repeat remain true.
    expired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["bucket", "-created_at"], name="finding_bucket_recent"),
            models.Index(fields=["signature_version"], name="finding_signature_version"),
            # The finding list's default order.
            models.Index(fields=["-last_seen", "-id"], name="finding_last_seen"),
            # A campaign's buckets and hits, read from the index alone: its findings lie
            # scattered over the table, and their rows are mostly trace and program text.
            models.Index(fields=["campaign"], include=["bucket", "hit_count"], name="finding_campaign_hits"),
        ]

    def __str__(self) -> str:
        return f"{self.crash_type or self.kind} in {self.function or self.target}"


class BucketEvent(models.Model):
    """Audit log: who changed what on a bucket, and when. Never edited, never deleted by the app."""

    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="events")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    field = models.CharField(max_length=32)
    old_value = models.CharField(max_length=255, blank=True)
    new_value = models.CharField(max_length=255, blank=True)
    note = models.CharField(max_length=500, blank=True, help_text="Why, when the change was not a plain edit.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

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


# The states of a reduction still under way: a bucket has at most one.
REDUCTION_UNDER_WAY = (ReductionState.QUEUED, ReductionState.VERIFYING, ReductionState.REDUCING)


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
        # Another round from the smallest version so far, after one that ran out of time still shrinking.
        MORE = "more", "Kept going"

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
        return self.state not in REDUCTION_UNDER_WAY


class CulpritSearch(models.Model):
    """One culprit search asked for (triage.culprits), until its job has run.

    The search is queued on Redis after the commit that asked for it, often
    inside a campaign's shard; Redis keeps nothing on disk. This row is what
    remains when the job is lost (Redis down at that moment, or restarted
    before a worker took it): the periodic sweep queues it again
    (``triage.culprit_queue.culprit_searches_requeue_lost``).
    """

    class Subject(models.TextChoices):
        BUCKET = "bucket", "A bucket's representative"
        FINDING = "finding", "A wrong-code finding's move"

    subject = models.CharField(max_length=8, choices=Subject.choices)
    subject_id = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.TextField(blank=True, help_text="What the job said it did.")

    class Meta:
        indexes = [models.Index(fields=["finished_at", "created_at"], name="culprit_search_pending")]

    def __str__(self) -> str:
        return f"culprit search of {self.subject} #{self.subject_id}"


class Comment(models.Model):
    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="comments")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"comment on #{self.bucket_id} by {self.user}"


class BucketMove(models.Model):
    """Findings moved by a merge or split, so that the move can be undone exactly."""

    class Kind(models.TextChoices):
        MERGE = "merge", "Marked duplicate"
        SPLIT = "split", "Split out"
        CULPRIT = "culprit", "Moved by its culprit"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    source = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="moves_out")
    target = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="moves_in")
    finding_ids = models.JSONField(default=list)
    source_status = models.CharField(max_length=16, blank=True, help_text="What undoing a merge restores.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    # Who decided: a maintainer, or the fuzzy stage with its score and the
    # frames that matched. Maintainers' merges, splits and undone fuzzy
    # matches are the labelled pairs bench/dedup_quality.py --decisions reads.
    by_fuzzy_match = models.BooleanField(default=False)
    score = models.FloatField(null=True, blank=True)
    matched_frames = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.source_id} -> #{self.target_id}"


class BucketHits(models.Model):
    """Hits per bucket per day: the overview's charts and 'top buckets this week' read these."""

    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="daily_hits")
    day = models.DateField()
    hits = models.PositiveBigIntegerField(default=0)
    new_findings = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bucket", "day"], name="bucket_hits_day_unique")]
        indexes = [models.Index(fields=["day"], name="bucket_hits_day")]

    def __str__(self) -> str:
        return f"#{self.bucket_id} on {self.day}: {self.hits}"


class FindingDay(models.Model):
    """New findings and hits per day, kind and engine, kept at ingest: the overview never counts findings."""

    day = models.DateField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    engine = models.CharField(max_length=64, blank=True)
    findings = models.PositiveIntegerField(default=0)
    hits = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["day", "kind", "engine"], name="finding_day_unique")]

    def __str__(self) -> str:
        return f"{self.day} {self.kind} {self.engine}: {self.findings}"


class Tracker(models.Model):
    """Where issue reports go: a GitHub or GitLab repository, or a Bugzilla-style text export."""

    class Kind(models.TextChoices):
        GITHUB = "github", "GitHub"
        GITLAB = "gitlab", "GitLab"
        BUGZILLA = "bugzilla", "Bugzilla (text export)"

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    api_url = models.URLField(
        blank=True, help_text="https://api.github.com, or https://gitlab.example.org/api/v4; empty: export only."
    )
    repository = models.CharField(
        max_length=255, blank=True, help_text="owner/name (GitHub) or group/project (GitLab)."
    )
    token = models.CharField(max_length=255, blank=True, help_text="Filing needs a token with issue write access.")
    title_template = models.CharField(max_length=300, default="{{ bucket.title }}")
    body_template = models.TextField(
        blank=True, help_text="Django template; empty uses the built-in report for this kind of tracker."
    )
    labels = models.CharField(max_length=255, blank=True, help_text="Comma-separated labels given to filed issues.")
    daily_limit = models.PositiveIntegerField(default=10, help_text="At most this many issues filed per day.")
    allow_http = models.BooleanField(
        default=False,
        help_text="Send the token over plain HTTP: only for a tracker on a network you trust. Off: HTTPS only.",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if self.api_url.startswith("http://") and not self.allow_http:
            raise ValidationError(
                {"api_url": "The token would travel in clear: use https://, or allow HTTP for a trusted network."}
            )

    @property
    def can_file(self) -> bool:
        return self.kind in (self.Kind.GITHUB, self.Kind.GITLAB) and bool(
            self.api_url and self.repository and self.token
        )


class FiledIssue(models.Model):
    """One issue filed through a tracker's API: the daily limit counts these."""

    tracker = models.ForeignKey(Tracker, on_delete=models.CASCADE, related_name="filed")
    bucket = models.ForeignKey(Bucket, on_delete=models.CASCADE, related_name="filed_issues")
    url = models.URLField(max_length=500)
    api_url = models.URLField(max_length=500, help_text="Where the sync job reads the issue's state.")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return self.url


class FuzzyThreshold(models.Model):
    """A target's own fuzzy-stage threshold, learned from its maintainers' merges, splits and undos.

    Shown in the admin with the decisions it came from; deleting the row
    (or unticking ``active``) reverts the target to the global threshold.
    """

    target = models.CharField(max_length=255, unique=True)
    threshold = models.FloatField()
    active = models.BooleanField(default=True)
    decisions = models.PositiveIntegerField(help_text="Labelled pairs it was learned from.")
    agreed = models.PositiveIntegerField(help_text="Of those, how many it decides as the maintainers did.")
    agreed_by_default = models.PositiveIntegerField(help_text="How many the global threshold decides right.")
    learned_at = models.DateTimeField()

    class Meta:
        ordering = ["target"]

    def __str__(self) -> str:
        return f"{self.target}: {self.threshold:.2f}"
