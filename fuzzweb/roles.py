"""Who may change things: triagers (and admins); everyone else logged in only reads.

Roles are Django groups made by a migration: "triager" holds the
``triage.triage_bucket`` permission, "viewer" holds nothing. Superusers
have every permission. The check sits in one middleware for every form
post of the site and in the API's token check, so a view added later
cannot forget it.
"""

from __future__ import annotations

from django.http import HttpResponseForbidden
from django.template.loader import render_to_string

TRIAGE_PERMISSION = "triage.triage_bucket"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")
# Posts anybody logged in (or not yet) makes: logging in and out.
OPEN_PATHS = ("/login/", "/logout/")
# The API checks its token's user itself; the admin and the RQ dashboard have staff permissions of their own.
OWN_CHECKS = ("/api/", "/admin/", "/rq/")


VIEWER_GROUP, TRIAGER_GROUP = "viewer", "triager"


def roles_ensure() -> None:
    """Create the two groups if missing (migration triage 0004 makes them; a flushed database has none)."""
    from django.contrib.auth.models import Group, Permission

    permission = Permission.objects.get(codename="triage_bucket", content_type__app_label="triage")
    Group.objects.get_or_create(name=VIEWER_GROUP)
    Group.objects.get_or_create(name=TRIAGER_GROUP)[0].permissions.add(permission)


def can_change(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm(TRIAGE_PERMISSION))


class ViewersReadOnlyMiddleware:
    """Refuse every non-read request of a logged-in user without the triage permission."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            request.method not in SAFE_METHODS
            and request.user.is_authenticated
            and not request.path.startswith(OPEN_PATHS)
            and not request.path.startswith(OWN_CHECKS)
            and not can_change(request.user)
        ):
            body = render_to_string("403.html", {"reason": "Your account can read but not change anything."}, request)
            return HttpResponseForbidden(body)
        return self.get_response(request)


def roles(request) -> dict:
    """Template context: whether to show the forms that change things."""
    return {"can_change": can_change(getattr(request, "user", None))}
