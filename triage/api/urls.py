from django.urls import path

from campaigns import api as campaigns_api
from triage.api import buckets, views

app_name = "api"
urlpatterns = [
    path("findings", views.finding_create, name="finding_create"),
    path("findings/bulk", views.findings_bulk, name="findings_bulk"),
    path("buckets", buckets.bucket_list, name="buckets"),
    path("buckets/<int:pk>", buckets.bucket_item, name="bucket"),
    path("targets", campaigns_api.target_collection, name="targets"),
    path("campaigns", campaigns_api.campaign_collection, name="campaigns"),
    path("campaigns/<int:pk>", campaigns_api.campaign_item, name="campaign"),
    path("openapi.json", views.openapi, name="openapi"),
]
