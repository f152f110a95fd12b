"""API tokens: how fuzzers on other machines authenticate."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Scope(models.TextChoices):
    """What a token may do: a fuzzer's token only submits, a dashboard script's only reads, a bot's triages."""

    INGEST = "ingest", "Submit findings only"
    READ = "read", "Read only"
    WRITE = "write", "Read, submit and triage"


class ApiToken(models.Model):
    """A bearer token for the API. Only its SHA-256 is stored; it is shown once."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What uses it, e.g. 'AFL++ cluster'.")
    prefix = models.CharField(max_length=12, help_text="The first characters, to tell tokens apart.")
    # Tokens made before scopes existed could do both; they keep that.
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.WRITE)
    token_hash = models.CharField(max_length=64, unique=True)
    # Findings sent with this token may be re-run here (reduced, verified): code
    # from outside runs, in the sandbox. Only an admin grants it (the admin site).
    replay = models.BooleanField(
        default=False, help_text="Findings it sends may be re-run (reduced, verified) in the sandbox here."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
