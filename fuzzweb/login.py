"""The login page, with limits on failed attempts that an attacker cannot turn into a lockout.

Three counters, each read over the same window and the one before it
(``fuzzweb.ratelimit``):

- per client address: one address guessing many accounts;
- per user name *and* address: one address guessing one account;
- per user name alone, with a much higher limit: many addresses guessing one
  account. A browser where that user has logged in before carries a signed
  cookie that lets it past this one counter, so someone who knows a user name
  cannot lock its owner out from elsewhere; at worst a new browser waits.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LoginView
from django.core import signing
from django.shortcuts import render
from django.utils.decorators import method_decorator

from fuzzweb.ratelimit import rate_add, rate_count, retry_after

KNOWN_BROWSER_COOKIE = "fuzzweb_known"
_KNOWN_BROWSER_SALT = "fuzzweb.login.known-browser"
_KNOWN_BROWSER_DAYS = 180


def _username(request) -> str:
    return (request.POST.get("username") or "").strip().lower()[:150]


def _known_names(request) -> list[str]:
    """The user names this browser has logged in as (its signed cookie; none if forged or expired)."""
    value = request.COOKIES.get(KNOWN_BROWSER_COOKIE, "")
    try:
        known = signing.loads(value, salt=_KNOWN_BROWSER_SALT, max_age=_KNOWN_BROWSER_DAYS * 86400)
    except signing.BadSignature:
        return []
    return [name for name in known if isinstance(name, str)] if isinstance(known, list) else []


def _limits(request) -> list[tuple[str, int]]:
    """The counters this attempt is held to, with their limits."""
    username, address = _username(request), request.META.get("REMOTE_ADDR", "")
    limit = settings.FUZZWEB_LOGIN_FAILURES
    limits = [(f"login-addr:{address}", limit), (f"login-user-addr:{username}:{address}", limit)]
    if username not in _known_names(request):
        limits.append((f"login-user:{username}", settings.FUZZWEB_LOGIN_USER_FAILURES))
    return limits


@method_decorator(login_not_required, name="dispatch")
class RateLimitedLoginView(LoginView):
    """Django's login, refused with 429 once a counter this attempt is held to is full."""

    def post(self, request, *args, **kwargs):
        window = settings.FUZZWEB_LOGIN_WINDOW_SECONDS
        full = [(key, limit) for key, limit in _limits(request) if rate_count(key, window_seconds=window) >= limit]
        if full:
            wait = max(retry_after(key, window_seconds=window, limit=limit) for key, limit in full)
            response = render(
                request, "registration/login.html", {"form": self.get_form(), "locked_for": wait}, status=429
            )
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        for key, _ in _limits(self.request):
            rate_add(key, window_seconds=settings.FUZZWEB_LOGIN_WINDOW_SECONDS)
        return super().form_invalid(form)

    def form_valid(self, form):
        response = super().form_valid(form)
        username = _username(self.request)
        known = [name for name in _known_names(self.request) if name != username][-9:] + [username]
        response.set_cookie(
            KNOWN_BROWSER_COOKIE,
            signing.dumps(known, salt=_KNOWN_BROWSER_SALT),
            max_age=_KNOWN_BROWSER_DAYS * 86400,
            httponly=True,
            secure=self.request.is_secure(),
            samesite="Lax",
        )
        return response
