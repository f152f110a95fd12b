from django.urls import path

from triage.api import views

app_name = "api"
urlpatterns = [
    path("findings", views.finding_create, name="finding_create"),
    path("findings/bulk", views.findings_bulk, name="findings_bulk"),
    path("openapi.json", views.openapi, name="openapi"),
]
