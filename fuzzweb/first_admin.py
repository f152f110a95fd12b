"""The first administrator account, made once on a fresh installation."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model


def first_admin_ensure(*, username: str, password: str | None) -> str | None:
    """Create a superuser if the site has none; return a generated password.

    Returns the password only when it was generated here (so the caller can
    print it once), and None when an admin exists or the password was given.
    """
    users = get_user_model().objects
    if users.filter(is_superuser=True).exists():
        return None
    generated = None
    if not password:
        generated = password = secrets.token_urlsafe(12)
    users.create_superuser(username=username, email="", password=password)
    return generated
