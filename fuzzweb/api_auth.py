"""Token authentication for API views."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from fuzzweb.roles import SAFE_METHODS, can_change
from fuzzweb.tokens import api_token_user


def api_error(status: int, message: str, **extra) -> JsonResponse:
    """The one shape every API error has: ``{"error": "...", ...}``."""
    response = JsonResponse({"error": message, **extra}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="fuzzweb"'
    return response


def token_required(view):
    """Require ``Authorization: Bearer <token>``; a logged-in session may read (GET).

    API views skip the login redirect and CSRF (a fuzzer has neither a
    browser session nor a form); the token is the credential instead. Writes
    never accept the session cookie, so a page on another site cannot make a
    logged-in browser submit findings.
    """

    @login_not_required
    @csrf_exempt
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        header = request.headers.get("Authorization", "")
        scheme, _, credential = header.partition(" ")
        if scheme.lower() in ("bearer", "token") and credential.strip():
            user = api_token_user(credential.strip())
            if user is None:
                return api_error(401, "invalid or revoked API token")
            request.user = user
        elif not (request.method == "GET" and request.user.is_authenticated):
            return api_error(401, "authentication required: send 'Authorization: Bearer <token>'")
        if request.method not in SAFE_METHODS and not can_change(request.user):
            return api_error(403, "this token's account can read but not change anything (viewer)")
        return view(request, *args, **kwargs)

    return wrapper
