"""Creating, checking and revoking API tokens."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone

from fuzzweb.models import ApiToken, Scope

TOKEN_PREFIX = "fzw_"  # noqa: S105 - a marker that makes leaked tokens greppable, not a secret
# Writing last_used_at on every request would make each ingest call a write
# to the token row; once a minute is enough to see which tokens are alive.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_create(*, user, name: str, scope: str = Scope.WRITE) -> tuple[ApiToken, str]:
    """Create a token; return it with its plain text, which is never stored."""
    if scope not in Scope.values:
        raise ValueError(f"unknown scope {scope!r}")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=plain[:10], token_hash=_hash(plain), scope=scope)
    return token, plain


def api_token_revoke(*, token_id: int, user) -> bool:
    """Revoke one of ``user``'s tokens; False if there was no such active token."""
    return bool(
        ApiToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


def api_token_find(plain: str) -> ApiToken | None:
    """The active token (with its user) that ``plain`` is, or None."""
    if not plain.startswith(TOKEN_PREFIX):
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(token_hash=_hash(plain), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token
