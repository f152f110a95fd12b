"""Token authentication for API views."""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from fuzzweb.models import Scope
from fuzzweb.ratelimit import rate_add, window_remaining
from fuzzweb.roles import SAFE_METHODS, can_change
from fuzzweb.tokens import api_token_find


def api_error(status: int, message: str, **extra) -> JsonResponse:
    """The one shape every API error has: ``{"error": "...", ...}``."""
    response = JsonResponse({"error": message, **extra}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="fuzzweb"'
    return response


# Which token scopes may call an endpoint of each kind.
ALLOWED_SCOPES = {
    "ingest": (Scope.INGEST, Scope.WRITE),
    "read": (Scope.READ, Scope.WRITE),
    "write": (Scope.WRITE,),
}


def _over_ingest_rate(token) -> bool:
    return rate_add(f"ingest:{token.pk}", window_seconds=60) > settings.FUZZWEB_INGEST_PER_MINUTE


def token_required(view=None, *, needs: str | dict[str, str] = "read"):
    """Require ``Authorization: Bearer <token>`` whose scope allows ``needs`` ("ingest", "read" or "write").

    ``needs`` may map HTTP methods to what each needs (``{"GET": "read",
    "PATCH": "write"}``); other methods are refused with 405.

    A logged-in session may read (GET). API views skip the login redirect
    and CSRF (a fuzzer has neither a browser session nor a form); the token
    is the credential instead. Writes never accept the session cookie, so a
    page on another site cannot make a logged-in browser submit findings.
    """
    if view is None:
        return lambda actual: token_required(actual, needs=needs)

    @login_not_required
    @csrf_exempt
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        need = needs.get(request.method) if isinstance(needs, dict) else needs
        if need is None:
            response = api_error(405, f"{request.method} is not allowed here")
            response["Allow"] = ", ".join(needs)
            return response
        header = request.headers.get("Authorization", "")
        scheme, _, credential = header.partition(" ")
        if scheme.lower() in ("bearer", "token") and credential.strip():
            token = api_token_find(credential.strip())
            if token is None:
                return api_error(401, "invalid or revoked API token")
            if token.scope not in ALLOWED_SCOPES[need]:
                return api_error(403, f"this token's scope is '{token.scope}'; this endpoint needs '{need}'")
            if need == "ingest" and _over_ingest_rate(token):
                response = api_error(429, f"more than {settings.FUZZWEB_INGEST_PER_MINUTE} requests a minute")
                response["Retry-After"] = str(window_remaining(60))
                return response
            request.user = token.user
            request.api_token = token
        elif not (request.method == "GET" and request.user.is_authenticated):
            return api_error(401, "authentication required: send 'Authorization: Bearer <token>'")
        if request.method not in SAFE_METHODS and not can_change(request.user):
            return api_error(403, "this token's account can read but not change anything (viewer)")
        return view(request, *args, **kwargs)

    return wrapper
