from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from fuzzweb.models import ApiToken
from fuzzweb.roles import ROLES, role_of, role_set


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "scope", "replay", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "token_hash", "created_at", "last_used_at")
    list_filter = ("revoked_at", "scope", "replay")

    def get_readonly_fields(self, request, obj=None):
        # The replay right makes this server run code from outside: admins only.
        if request.user.has_perm("triage.restrict_bucket"):
            return self.readonly_fields
        return (*self.readonly_fields, "replay")


def _role_action(role: str):
    def action(modeladmin, request, queryset):
        if not request.user.has_perm("triage.restrict_bucket"):
            messages.error(request, "Only admins set roles.")
            return
        if not request.user.is_superuser:
            queryset = queryset.filter(is_superuser=False)
        for user in queryset:
            role_set(user=user, role=role)
        messages.info(request, f"{queryset.count()} accounts are now {role}s.")

    action.__name__ = f"make_{role}"
    return admin.action(description=f"Make the selected accounts {role}s")(action)


def grantable_groups(user):
    """Groups ``user`` may give or take in the admin: the three roles, and the groups it is in itself."""
    return Group.objects.filter(Q(name__in=ROLES) | Q(pk__in=user.groups.values("pk")))


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class AccountAdmin(UserAdmin):
    """Django's user admin, plus each account's role and actions that set it (fuzzweb.roles)."""

    list_display = ("username", "role", "is_active", "last_login")
    actions = [_role_action(role) for role in ROLES]
    # What only a superuser may set: the roles' actions manage staff status.
    _SUPERUSER_FIELDS = ("is_superuser", "is_staff", "user_permissions")

    @admin.display(description="role")
    def role(self, user):
        return role_of(user)

    # The admin role runs the site's accounts but stays below a superuser:
    # it cannot make one, edit one (nor reset its password), grant itself
    # permissions, or hand out (or take) a group it is not in itself.
    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.is_superuser and not request.user.is_superuser:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.is_superuser and not request.user.is_superuser:
            return False
        return super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request, obj=None):
        fields = super().get_readonly_fields(request, obj)
        return fields if request.user.is_superuser else (*fields, *self._SUPERUSER_FIELDS)

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "groups" and not request.user.is_superuser:
            kwargs["queryset"] = grantable_groups(request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_related(self, request, form, formsets, change):
        kept = []
        if change and not request.user.is_superuser:
            # Groups outside the editor's reach were not offered; they stay as they were.
            kept = list(form.instance.groups.exclude(pk__in=grantable_groups(request.user)))
        super().save_related(request, form, formsets, change)
        form.instance.groups.add(*kept)

    def user_change_password(self, request, id, form_url=""):
        user = self.get_object(request, unquote(id))
        if user is not None and not request.user.is_superuser:
            # Setting someone's password is becoming them, groups included.
            beyond = user.groups.exclude(pk__in=grantable_groups(request.user))
            if beyond.exists():
                raise PermissionDenied
        return super().user_change_password(request, id, form_url)
