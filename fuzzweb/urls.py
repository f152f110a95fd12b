from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from fuzzweb.login import RateLimitedLoginView

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="campaigns:list"), name="home"),
    path("login/", RateLimitedLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("campaigns/", include("campaigns.urls")),
    path("triage/", include("triage.urls")),
    path("api/v1/", include("triage.api.urls")),
    path("account/", include("fuzzweb.account_urls")),
    path("admin/", admin.site.urls),
    path("rq/", include("django_rq.urls")),
]
