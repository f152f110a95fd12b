from django.urls import path

from triage import views

app_name = "triage"
urlpatterns = [
    path("buckets/", views.bucket_list, name="buckets"),
    path("buckets/<int:pk>/", views.bucket_detail, name="bucket"),
    path("buckets/<int:pk>/status/", views.bucket_status, name="bucket_status"),
    path("buckets/<int:pk>/report.md", views.bucket_report, name="bucket_report"),
    path("buckets/<int:pk>/test.py", views.bucket_test, name="bucket_test"),
    path("buckets/<int:pk>/reduction/", views.bucket_reduction, name="bucket_reduction"),
    path("buckets/<int:pk>/reduce/", views.bucket_reduce, name="bucket_reduce"),
    path("buckets/<int:pk>/upload/", views.bucket_upload, name="bucket_upload"),
]
