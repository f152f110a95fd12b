"""Security headers Django does not set by itself (it already sends nosniff, X-Frame-Options DENY,
Referrer-Policy same-origin and Cross-Origin-Opener-Policy).

The Content-Security-Policy allows scripts from this site only: no inline
script and no eval, so fuzzer text that escaped escaping somewhere still
could not run. Plotly writes inline styles, hence 'unsafe-inline' for
styles alone. The RQ dashboard (staff only) is a third-party app with
inline scripts and is left out.
"""

from __future__ import annotations

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
EXEMPT = ("/rq/",)


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith(EXEMPT):
            response.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
