"""Shared fixtures: the real PostgreSQL, Redis and RQ workers the suite runs on."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import django_rq
import pytest
from django.conf import settings
from django.db import connection

BASE_DIR = Path(__file__).resolve().parent.parent
# A reduction keeps going past its budget only in the tests that ask for it (settings and
# the environment workers inherit): elsewhere a burst worker would run round after round.
os.environ.setdefault("FUZZWEB_REDUCTION_ROUNDS", "0")
# A Python wrong-code finding's shape job reduces it first: 5 s, not 30, where a test's worker meets one.
os.environ.setdefault("FUZZWEB_SHAPE_SECONDS", "5")


def _own_redis_database() -> None:
    """Under pytest-xdist, give each worker a Redis database of its own.

    pytest-django already gives each xdist worker its own test database
    (``test_<name>_gw0``…); the queues must be apart too, or one worker's
    burst rqworker would run another's jobs against the wrong database and
    ``clean_redis`` would empty a neighbour's queues. Worker N takes the
    database N below the one REDIS_URL names (15, 14… by default), set
    before anything connects and exported so the RQ workers a test starts
    inherit it.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return
    url = urlsplit(settings.REDIS_URL)
    base = int(url.path.lstrip("/") or 0)
    database = base - int(worker[2:])
    if database < 0:
        raise pytest.UsageError(f"too many xdist workers for Redis databases below {base}")
    own = urlunsplit(url._replace(path=f"/{database}"))
    os.environ["REDIS_URL"] = settings.REDIS_URL = own
    for queue in settings.RQ_QUEUES.values():
        queue["URL"] = own


def pytest_configure(config):
    from django.conf import settings

    _own_redis_database()
    engine = settings.DATABASES["default"]["ENGINE"]
    if not engine.endswith("postgresql"):
        raise pytest.UsageError(
            f"the suite runs against PostgreSQL (got {engine}); run it with `make test` or set DATABASE_URL"
        )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, with any session a test left on it ended before it is dropped.

    A worker process a test started, or a server thread, may still hold a connection when the
    session ends; PostgreSQL then refuses to drop the database and pytest-django only warns.
    """
    yield
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session", autouse=True)
def clean_redis():
    """Start from an empty Redis database (the one REDIS_URL names)."""
    django_rq.get_connection("default").flushdb()
    yield


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("maintainer", "", "correct-horse-9")


def user_in_group(django_user_model, username: str, group: str, password: str = "correct-horse-9"):  # noqa: S107 - test accounts
    """A user with one role ("viewer" or "triager", groups the migrations made)."""
    from django.contrib.auth.models import Group

    from fuzzweb.roles import roles_ensure

    roles_ensure()  # a transactional test before this one flushed what the migrations made
    user = django_user_model.objects.create_user(username, password=password)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def default_labels(db):
    from triage.labels import labels_ensure_defaults
    from triage.models import Label

    labels_ensure_defaults()
    return {label.name: label for label in Label.objects.all()}


@pytest.fixture
def triager(django_user_model):
    return user_in_group(django_user_model, "ana", "triager")


@pytest.fixture
def viewer(django_user_model):
    return user_in_group(django_user_model, "vic", "viewer")


@pytest.fixture
def logged_in(client, admin_user):
    client.force_login(admin_user)
    return client


def _worker_env() -> dict[str, str]:
    # The worker is another process: point it at the test database, which
    # only transactional tests commit into.
    settings = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgres://{settings['USER']}:{settings['PASSWORD'] or ''}@{settings['HOST']}:{settings['PORT']}/"
        f"{settings['NAME']}"
    )
    return env


# Every engine's queue, as the dashboard's workers listen.
QUEUES = [f"engine-{engine}" for engine in settings.FUZZWEB_ENGINES] + ["default"]


def run_worker_burst(timeout: float = 120, queues: list[str] = QUEUES) -> subprocess.CompletedProcess:
    """Run a real RQ worker until the queues are empty.

    Not the "reduce" queue unless asked: every test that makes buckets queues
    their reductions, and only the reduction tests want them run.
    """
    return subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), "rqworker", *queues, "--burst"],
        env=_worker_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_process(*args: str, env: dict | None = None) -> subprocess.Popen:
    """A manage.py command in its own process group, with output kept for failures."""
    return subprocess.Popen(
        [sys.executable, str(BASE_DIR / "manage.py"), *args],
        env={**_worker_env(), **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM the process group, then SIGKILL what is left."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        # RQ stops warm once its job ends; a job that will not end is killed with the group below.
        process.wait(timeout=8)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@pytest.fixture
def rq_workers():
    """Start real RQ worker processes on demand; all are stopped after the test."""
    started: list[subprocess.Popen] = []

    def start(count: int = 1, env: dict | None = None, queues: list[str] = QUEUES) -> list[subprocess.Popen]:
        new = [start_process("rqworker", *queues, env=env) for _ in range(count)]
        started.extend(new)
        return new

    yield start
    from campaigns.launch import campaigns_stop_all

    # Let running campaigns end (so jobs finish and RQ's warm shutdown is
    # quick), then take down each worker with its work horse as a group.
    campaigns_stop_all()
    for process in started:
        stop_process(process)


@pytest.fixture
def rq_worker(rq_workers):
    """One real RQ worker process serving the queues for the length of a test."""
    return rq_workers(1)[0]


def wait_for(predicate, timeout: float, interval: float = 0.2):
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
