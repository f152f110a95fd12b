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


def first_admin_login_hint(*, username: str, password: str | None, generated: str | None) -> str:
    """One line telling whoever started the site which account to log in with, and where its password is.

    ``username``/``password`` are what the environment asked for and
    ``generated`` what :func:`first_admin_ensure` returned. The password is
    never stored in clear, so once its one showing has scrolled away the
    line can only say how to set a new one.
    """
    if generated:
        return f"log in as {username} with password {generated} (generated now and shown only this once)"
    admins = get_user_model().objects.filter(is_superuser=True, is_active=True)
    # The account the environment names if it is an admin; else the oldest admin, who set the site up.
    admin = admins.filter(username=username).first() or admins.order_by("pk").first()
    if admin is None:
        return "no active admin account: manage.py createsuperuser makes one"
    name = admin.get_username()
    if password and admin.check_password(password):
        return f"log in as {name} with the password in FUZZWEB_ADMIN_PASSWORD"
    change = f".venv/bin/python manage.py changepassword {name}"
    return f"log in as {name} (password shown on the first start; a new one: {change})"
