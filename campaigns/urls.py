from django.urls import path

from campaigns import target_views, views

app_name = "campaigns"
urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_new, name="new"),
    path("<int:pk>/", views.campaign_detail, name="detail"),
    path("<int:pk>/functions/<str:name>/", views.campaign_function, name="function"),
    path("<int:pk>/progress/", views.campaign_progress_json, name="progress"),
    path("<int:pk>/stop/", views.campaign_stop_view, name="stop"),
    path("<int:pk>/clone/", views.campaign_clone_view, name="clone"),
    path("<int:pk>/resume/", views.campaign_resume_view, name="resume"),
    path("targets/", target_views.target_list, name="targets"),
    path("targets/new/", target_views.target_edit, name="target_new"),
    path("targets/package/", target_views.target_package, name="target_package"),
    path("targets/<int:pk>/", target_views.target_edit, name="target_edit"),
    path("targets/<int:pk>/file.json", target_views.target_file, name="target_file"),
    path("targets/trials/<str:job_id>/", target_views.target_trial, name="target_trial"),
]
