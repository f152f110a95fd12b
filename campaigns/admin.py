from django.contrib import admin

from campaigns.models import Campaign, Target


@admin.register(Target)
class TargetAdmin(admin.ModelAdmin):
    list_display = ("name", "engine", "module")
    search_fields = ("name", "module")


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("pk", "target", "engine", "status", "executions", "findings_count", "created_at")
    list_filter = ("status", "engine")
    readonly_fields = ("created_at", "started_at", "finished_at", "heartbeat_at")
