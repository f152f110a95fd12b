"""The login page, with a limit on failed attempts per client address and per user name."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LoginView
from django.shortcuts import render
from django.utils.decorators import method_decorator

from fuzzweb.ratelimit import rate_add, rate_count, retry_after


def _keys(request) -> list[str]:
    username = (request.POST.get("username") or "").strip().lower()[:150]
    return [f"login-addr:{request.META.get('REMOTE_ADDR', '')}", f"login-user:{username}"]


@method_decorator(login_not_required, name="dispatch")
class RateLimitedLoginView(LoginView):
    """Django's login, refused with 429 once an address or a user name has failed too often."""

    def post(self, request, *args, **kwargs):
        window, limit = settings.FUZZWEB_LOGIN_WINDOW_SECONDS, settings.FUZZWEB_LOGIN_FAILURES
        if any(rate_count(key, window_seconds=window) >= limit for key in _keys(request)):
            wait = retry_after(window)
            response = render(
                request, "registration/login.html", {"form": self.get_form(), "locked_for": wait}, status=429
            )
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        for key in _keys(self.request):
            rate_add(key, window_seconds=settings.FUZZWEB_LOGIN_WINDOW_SECONDS)
        return super().form_invalid(form)
