from django.contrib import admin

from triage.models import Bucket, BucketEvent, Finding


@admin.register(Bucket)
class BucketAdmin(admin.ModelAdmin):
    list_display = ("pk", "title", "kind", "status", "hit_count", "first_seen", "last_seen")
    list_filter = ("status", "kind")
    search_fields = ("title", "crash_type", "signature")
    raw_id_fields = ("representative",)


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
