"""Three roles: viewers read, triagers change findings and campaigns, admins also run the site.

Roles are Django groups made by a migration: "viewer" holds nothing,
"triager" holds ``triage.triage_bucket``, "admin" holds that plus
``triage.restrict_bucket`` (restricting security-sensitive buckets to a
group, setting accounts' roles) and the admin site's permissions on
targets, trackers, labels and accounts. Superusers have every permission.
The write check sits in one middleware for every form post of the site and
in the API's token check, so a view added later cannot forget it.
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


VIEWER_GROUP, TRIAGER_GROUP, ADMIN_GROUP = "viewer", "triager", "admin"
ROLES = (VIEWER_GROUP, TRIAGER_GROUP, ADMIN_GROUP)

TRIAGER_PERMISSIONS = (("triage", "triage_bucket"),)
# What the admin site needs to let an admin configure the site (not delete findings or the audit log).
ADMIN_PERMISSIONS = (
    *TRIAGER_PERMISSIONS,
    ("triage", "restrict_bucket"),
    *(
        (app, f"{action}_{model}")
        for app, model in (("campaigns", "target"), ("triage", "tracker"), ("triage", "label"))
        for action in ("view", "add", "change", "delete")
    ),
    ("auth", "view_user"),
    ("auth", "add_user"),
    ("auth", "change_user"),
    ("auth", "view_group"),
)


def _permissions(pairs):
    from django.contrib.auth.models import Permission
    from django.db.models import Q

    query = Q(pk__in=[])
    for app, codename in pairs:
        query |= Q(content_type__app_label=app, codename=codename)
    return Permission.objects.filter(query)


def roles_ensure() -> None:
    """Create the three groups if missing (migrations make them; a flushed database has none)."""
    from django.contrib.auth.models import Group

    Group.objects.get_or_create(name=VIEWER_GROUP)
    Group.objects.get_or_create(name=TRIAGER_GROUP)[0].permissions.add(*_permissions(TRIAGER_PERMISSIONS))
    Group.objects.get_or_create(name=ADMIN_GROUP)[0].permissions.add(*_permissions(ADMIN_PERMISSIONS))


def role_of(user) -> str:
    """ "admin", "triager" or "viewer": what the account may do, whatever groups made it so."""
    if user.is_superuser or user.has_perm("triage.restrict_bucket"):
        return ADMIN_GROUP
    return TRIAGER_GROUP if can_change(user) else VIEWER_GROUP


def role_set(*, user, role: str) -> None:
    """Give ``user`` exactly one of the three roles; admins also get into the admin site (staff).

    Other groups (those restricted buckets are shared with) are kept.
    """
    from django.contrib.auth.models import Group

    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}: one of {', '.join(ROLES)}")
    roles_ensure()
    user.groups.remove(*Group.objects.filter(name__in=ROLES))
    user.groups.add(Group.objects.get(name=role))
    if not user.is_superuser:
        user.is_staff = role == ADMIN_GROUP
        user.save(update_fields=["is_staff"])


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
