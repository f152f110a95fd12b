from django.urls import path

from triage import edit_views, views

app_name = "triage"
urlpatterns = [
    path("buckets/", views.bucket_list, name="buckets"),
    path("buckets/<int:pk>/", views.bucket_detail, name="bucket"),
    path("buckets/<int:pk>/report.md", views.bucket_report, name="bucket_report"),
    path("buckets/<int:pk>/report.<str:extension>", views.bucket_report, name="bucket_report_as"),
    path("buckets/<int:pk>/file/", edit_views.bucket_file, name="bucket_file"),
    path("buckets/<int:pk>/test.py", views.bucket_test, name="bucket_test"),
    path("buckets/<int:pk>/reduction/", views.bucket_reduction, name="bucket_reduction"),
    path("buckets/<int:pk>/reduce/", views.bucket_reduce, name="bucket_reduce"),
    path("buckets/<int:pk>/upload/", views.bucket_upload, name="bucket_upload"),
    path("buckets/<int:pk>/edit/", edit_views.bucket_edit, name="bucket_edit"),
    path("buckets/<int:pk>/comment/", edit_views.bucket_comment_add, name="bucket_comment"),
    path("buckets/<int:pk>/watch/", edit_views.bucket_watch_toggle, name="bucket_watch"),
    path("buckets/<int:pk>/duplicate/", edit_views.bucket_duplicate, name="bucket_duplicate"),
    path("buckets/<int:pk>/duplicate/undo/", edit_views.bucket_duplicate_undo, name="bucket_duplicate_undo"),
    path("buckets/<int:pk>/culprit/<int:move_id>/undo/", edit_views.bucket_culprit_undo, name="bucket_culprit_undo"),
    path("buckets/<int:pk>/split/", edit_views.bucket_split_out, name="bucket_split"),
    path("buckets/<int:pk>/restrict/", edit_views.bucket_restrict_set, name="bucket_restrict"),
    path("buckets/bulk/", edit_views.buckets_bulk_action, name="buckets_bulk"),
    path("findings/", views.finding_list, name="findings"),
    path("overview/", views.overview, name="overview"),
]
