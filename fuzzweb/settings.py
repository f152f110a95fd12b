"""Settings, all read from the environment with development-safe defaults.

DATABASE_URL   PostgreSQL in production and tests; unset means a SQLite file
               under var/ (the zero-setup default of `make run`).
REDIS_URL      Redis for the RQ queues (default redis://127.0.0.1:6379/0).
SECRET_KEY     unset means a random key generated once and kept in var/.
DEBUG          "1"/"true" to enable; off by default.
ALLOWED_HOSTS  comma-separated; defaults to the loopback names.
"""

import contextlib
import os
import secrets
from pathlib import Path

import dj_database_url
import plotly

from engines import registry as engine_registry

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("FUZZWEB_VAR_DIR", BASE_DIR / "var"))


def _flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def _secret_key() -> str:
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    # A key that changes on every start would log everyone out; keep one on disk.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = _flag("DEBUG")
ALLOWED_HOSTS = [
    host.strip() for host in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",") if host.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    # Before django_rq: its rqworker command is fuzzweb's (JSON jobs, see below).
    "fuzzweb",
    "django_rq",
    "campaigns",
    "triage",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "fuzzweb.headers.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page and endpoint needs a login, except views marked with
    # @login_not_required (only the login page).
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    # Viewers read; only triagers and admins change anything (fuzzweb.roles).
    "fuzzweb.roles.ViewersReadOnlyMiddleware",
    # Restricted buckets a user may not see, read once per request (triage.visibility).
    "triage.visibility.HiddenBucketsPerRequest",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# No script of ours reads the CSRF cookie (forms carry the token), so scripts may not either.
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
if _flag("FUZZWEB_HTTPS"):
    # Behind TLS: cookies only over HTTPS, and browsers told to stay on it.
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

ROOT_URLCONF = "fuzzweb.urls"
WSGI_APPLICATION = "fuzzweb.wsgi.application"
ASGI_APPLICATION = "fuzzweb.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "fuzzweb.roles.roles",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'fuzzweb.sqlite3'}",
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The embedded default is shared by the web server and several workers:
    # WAL lets readers run beside a writer, and writers wait instead of failing.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL;",
        "transaction_mode": "IMMEDIATE",
    }
    DATABASES["default"]["CONN_MAX_AGE"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
# One queue per engine ("engine-pyfunc"), so a machine serves only the
# engines it has the tools for; "default" for short work (reaper, re-bucketing).
# The engines and their queues come from the one registry (engines/registry.py).
FUZZWEB_ENGINES = list(engine_registry.engines())
# Jobs are written to Redis as JSON, never pickle: anything that can write to
# Redis (a sandbox escape, a leaked password) could otherwise plant a pickle
# that runs as code on every worker. Every job takes ids and returns plain data.
RQ_SERIALIZER = "rq.serializers.JSONSerializer"
RQ_QUEUES = {
    "default": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 600, "SERIALIZER": RQ_SERIALIZER},
    **{
        queue: {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 24 * 3600, "SERIALIZER": RQ_SERIALIZER}
        for queue in engine_registry.queues()
    },
    # Reductions get workers of their own (make run starts one): a worker busy
    # with a day-long campaign shard would leave new buckets unreduced.
    "reduce": {"URL": REDIS_URL, "DEFAULT_TIMEOUT": 3600, "SERIALIZER": RQ_SERIALIZER},
}
# Every new bucket's testcase is reduced in the background, within this budget.
# Rate limits (fuzzweb.ratelimit): failed logins per address and per user name
# in a window, and ingest requests per token per minute.
FUZZWEB_LOGIN_FAILURES = int(os.environ.get("FUZZWEB_LOGIN_FAILURES", "10"))
FUZZWEB_LOGIN_WINDOW_SECONDS = int(os.environ.get("FUZZWEB_LOGIN_WINDOW_SECONDS", "900"))
# Failures for one user name from every address together; a browser the user
# has logged in from before is not held to it (fuzzweb/login.py).
FUZZWEB_LOGIN_USER_FAILURES = int(os.environ.get("FUZZWEB_LOGIN_USER_FAILURES", "50"))
FUZZWEB_INGEST_PER_MINUTE = int(os.environ.get("FUZZWEB_INGEST_PER_MINUTE", "6000"))
# How often filed issues' open/closed state is read back from GitHub or GitLab.
FUZZWEB_ISSUE_SYNC_SECONDS = int(os.environ.get("FUZZWEB_ISSUE_SYNC_SECONDS", "900"))
# Retention (triage.retention): closed buckets drop duplicate testcases unseen this many days; 0 keeps all.
FUZZWEB_RETENTION_DAYS = int(os.environ.get("FUZZWEB_RETENTION_DAYS", "90"))
FUZZWEB_AUTO_REDUCE = os.environ.get("FUZZWEB_AUTO_REDUCE", "1") != "0"
FUZZWEB_REDUCTION_SECONDS = float(os.environ.get("FUZZWEB_REDUCTION_SECONDS", "300"))
# And the tests a Python program's reduction round may spend (unset: the reducer's own cap), a budget a
# busy worker spends as an idle one does.
FUZZWEB_REDUCTION_TESTS = int(os.environ.get("FUZZWEB_REDUCTION_TESTS") or 0) or None
# Rounds a reduction may keep going after its first budget, each while the last still shrank the testcase.
FUZZWEB_REDUCTION_ROUNDS = int(os.environ.get("FUZZWEB_REDUCTION_ROUNDS", "6"))
# Tests a Python wrong-code finding is reduced by before its culprit, the shape of the reduced difference, is
# read, and the seconds they may take at most: a count, so that a busy worker's shapes are an idle one's.
FUZZWEB_SHAPE_TESTS = int(os.environ.get("FUZZWEB_SHAPE_TESTS", "1000"))
FUZZWEB_SHAPE_SECONDS = float(os.environ.get("FUZZWEB_SHAPE_SECONDS", "180"))
# A running shard whose heartbeat is older than this lost its worker.
FUZZWEB_SHARD_STALE_SECONDS = float(os.environ.get("FUZZWEB_SHARD_STALE_SECONDS", "30"))
FUZZWEB_REAP_INTERVAL_SECONDS = int(os.environ.get("FUZZWEB_REAP_INTERVAL_SECONDS", "15"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "campaigns:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# plotly.min.js comes from the Plotly package itself: one pinned version for
# Python and the browser, nothing vendored into the repository.
STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", Path(plotly.__file__).parent / "package_data")]
STATIC_ROOT = VAR_DIR / "staticfiles"
# WhiteNoise warns when it is missing. A worker account, kept out of var/ when the database is a
# server, may not make it: it serves no static files.
with contextlib.suppress(PermissionError):
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Static files come from WhiteNoise inside the app, under make run's gunicorn as under
# the tests' servers: no second server (nginx) to set up, and no collectstatic copy to
# go stale. It indexes the finders (static/ and Plotly's package) once when a worker
# starts. Hashed, compressed copies (collectstatic with WhiteNoise's manifest storage)
# would pay off only for far-future caching, which one team's dashboard does not need.
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
