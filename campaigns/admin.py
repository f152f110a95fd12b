from django.contrib import admin

from campaigns.models import Campaign, Shard, StatSample, Target


@admin.register(Target)
class TargetAdmin(admin.ModelAdmin):
    list_display = ("name", "engine", "module", "signature_frames")
    search_fields = ("name", "module")


class ShardInline(admin.TabularInline):
    model = Shard
    extra = 0
    fields = ("index", "status", "worker", "attempts", "executions", "findings", "heartbeat_at")
    readonly_fields = fields


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("pk", "target", "engine", "status", "shard_count", "executions", "findings_count", "created_at")
    list_filter = ("status", "engine")
    readonly_fields = ("created_at", "started_at", "finished_at")
    inlines = [ShardInline]


@admin.register(Shard)
class ShardAdmin(admin.ModelAdmin):
    list_display = ("pk", "campaign", "index", "status", "worker", "attempts", "executions", "heartbeat_at")
    list_filter = ("status",)
    raw_id_fields = ("campaign",)


@admin.register(StatSample)
class StatSampleAdmin(admin.ModelAdmin):
    list_display = ("campaign", "shard", "at", "executions", "executions_per_second", "findings")
    raw_id_fields = ("campaign", "shard")
