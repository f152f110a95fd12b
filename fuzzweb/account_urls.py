from django.urls import path

from fuzzweb import account_views

app_name = "account"
urlpatterns = [
    path("tokens/", account_views.token_list, name="tokens"),
    path("tokens/<int:pk>/revoke/", account_views.token_revoke, name="token_revoke"),
]
