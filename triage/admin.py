import django_rq
from django.contrib import admin, messages

from triage.models import Bucket, BucketEvent, Finding


@admin.register(Bucket)
class BucketAdmin(admin.ModelAdmin):
    list_display = ("pk", "title", "kind", "status", "hit_count", "first_seen", "last_seen")
    list_filter = ("status", "kind")
    search_fields = ("title", "crash_type", "signature")
    raw_id_fields = ("representative",)
    actions = ["rebucket_selected"]

    @admin.action(description="Re-bucket the findings of the selected buckets (background job)")
    def rebucket_selected(self, request, queryset):
        from triage.jobs import rebucket_buckets_job

        django_rq.get_queue("default").enqueue(rebucket_buckets_job, list(queryset.values_list("pk", flat=True)))
        messages.info(request, "Re-bucketing queued; the buckets update when the job has run.")


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    list_display = ("pk", "bucket", "kind", "crash_type", "function", "created_at")
    list_filter = ("kind",)
    search_fields = ("crash_type", "function", "signature")
    raw_id_fields = ("bucket", "campaign")


@admin.register(BucketEvent)
class BucketEventAdmin(admin.ModelAdmin):
    list_display = ("bucket", "field", "old_value", "new_value", "user", "created_at")
    raw_id_fields = ("bucket",)
