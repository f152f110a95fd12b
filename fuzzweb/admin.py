from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

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
        for user in queryset:
            role_set(user=user, role=role)
        messages.info(request, f"{queryset.count()} accounts are now {role}s.")

    action.__name__ = f"make_{role}"
    return admin.action(description=f"Make the selected accounts {role}s")(action)


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class AccountAdmin(UserAdmin):
    """Django's user admin, plus each account's role and actions that set it (fuzzweb.roles)."""

    list_display = ("username", "role", "is_active", "last_login")
    actions = [_role_action(role) for role in ROLES]

    @admin.display(description="role")
    def role(self, user):
        return role_of(user)
