from urllib.parse import urlsplit

import django_rq
from django import forms
from django.contrib import admin, messages
from django.db import models

from triage.models import Bucket, BucketEvent, Comment, FiledIssue, Finding, FuzzyThreshold, Label, Tracker
from triage.visibility import visible_buckets, visible_by_bucket

# A URL typed without its scheme is read as https (Django 6's default; 5.x warns for every form that leaves it
# unsaid).
HTTPS_URLS = {models.URLField: {"assume_scheme": "https"}}


class VisibleBucketsOnly:
    """The admin shows restricted buckets' findings, history and comments only to their group, as the pages do."""

    def get_queryset(self, request):
        return visible_by_bucket(request.user, super().get_queryset(request))


class ReadOnly:
    """Triage state changes on the bucket page, where each change is audited; here it is only shown."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class Kept(ReadOnly):
    """Rows the app only appends to: the audit log, comments, and the filed issues the daily limit counts."""

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Bucket)
class BucketAdmin(ReadOnly, admin.ModelAdmin):
    formfield_overrides = HTTPS_URLS
    list_display = ("pk", "title", "kind", "status", "assignee", "hit_count", "first_seen", "last_seen")
    list_filter = ("status", "kind", "muted", "regression", "restricted_to")
    search_fields = ("title", "crash_type", "signature")
    actions = ["rebucket_selected"]

    def get_queryset(self, request):
        return visible_buckets(request.user, super().get_queryset(request))

    @admin.action(description="Re-bucket the findings of the selected buckets (background job)")
    def rebucket_selected(self, request, queryset):
        from triage.jobs import rebucket_buckets_job

        django_rq.get_queue("default").enqueue(rebucket_buckets_job, list(queryset.values_list("pk", flat=True)))
        messages.info(request, "Re-bucketing queued; the buckets update when the job has run.")


@admin.register(Finding)
class FindingAdmin(VisibleBucketsOnly, ReadOnly, admin.ModelAdmin):
    list_display = ("pk", "bucket", "kind", "crash_type", "function", "created_at")
    list_filter = ("kind",)
    search_fields = ("crash_type", "function", "signature")


@admin.register(BucketEvent)
class BucketEventAdmin(VisibleBucketsOnly, Kept, admin.ModelAdmin):
    """Read-only: the audit log is only ever appended to."""

    list_display = ("bucket", "field", "old_value", "new_value", "note", "user", "created_at")


@admin.register(Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ("name", "description")


@admin.register(Comment)
class CommentAdmin(VisibleBucketsOnly, Kept, admin.ModelAdmin):
    list_display = ("bucket", "user", "created_at")


class TrackerForm(forms.ModelForm):
    api_url = forms.URLField(
        required=False, assume_scheme="https", help_text=Tracker._meta.get_field("api_url").help_text
    )

    class Meta:
        model = Tracker
        fields = [
            "name",
            "kind",
            "api_url",
            "allow_http",
            "repository",
            "token",
            "title_template",
            "body_template",
            "labels",
            "daily_limit",
        ]
        # Kept when left empty on edit, never shown back.
        widgets = {"token": forms.PasswordInput(render_value=False)}

    def clean(self):
        cleaned = super().clean()
        token, api_url = cleaned.get("token"), cleaned.get("api_url") or ""
        if not token and self.instance.pk:
            # The stored token goes only to the host it was entered for: whoever
            # points the tracker elsewhere types it again.
            if urlsplit(api_url).netloc == urlsplit(self.instance.api_url).netloc:
                cleaned["token"] = self.instance.token
            elif self.instance.token:
                self.add_error("token", "The API URL now names another host: enter the token again for it.")
        return cleaned


@admin.register(Tracker)
class TrackerAdmin(admin.ModelAdmin):
    form = TrackerForm
    list_display = ("name", "kind", "repository", "daily_limit")


@admin.register(FiledIssue)
class FiledIssueAdmin(VisibleBucketsOnly, Kept, admin.ModelAdmin):
    """Read-only: the daily filing limit counts these rows."""

    formfield_overrides = HTTPS_URLS

    list_display = ("url", "tracker", "bucket", "user", "created_at")


@admin.register(FuzzyThreshold)
class FuzzyThresholdAdmin(admin.ModelAdmin):
    """Thresholds learned from decisions (triage.decisions): shown here, reverted by deleting or unticking."""

    list_display = ("target", "threshold", "active", "decisions", "agreed", "agreed_by_default", "learned_at")
    list_editable = ("active",)
    readonly_fields = ("target", "threshold", "decisions", "agreed", "agreed_by_default", "learned_at")

    def has_add_permission(self, request, obj=None):
        return False
