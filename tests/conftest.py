"""Shared fixtures: the real PostgreSQL, Redis and RQ workers the suite runs on."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import django_rq
import pytest
from django.db import connection

BASE_DIR = Path(__file__).resolve().parent.parent


def pytest_configure(config):
    from django.conf import settings

    engine = settings.DATABASES["default"]["ENGINE"]
    if not engine.endswith("postgresql"):
        raise pytest.UsageError(
            f"the suite runs against PostgreSQL (got {engine}); run it with `make test` or set DATABASE_URL"
        )


@pytest.fixture(scope="session", autouse=True)
def clean_redis():
    """Start from an empty Redis database (the one REDIS_URL names)."""
    django_rq.get_connection("default").flushdb()
    yield


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("maintainer", "", "correct-horse-9")


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


def run_worker_burst(timeout: float = 120) -> subprocess.CompletedProcess:
    """Run a real RQ worker until the queues are empty."""
    return subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), "rqworker", "campaigns", "default", "--burst"],
        env=_worker_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def rq_worker():
    """A real RQ worker process serving the queues for the length of a test."""
    process = subprocess.Popen(
        [sys.executable, str(BASE_DIR / "manage.py"), "rqworker", "campaigns", "default"],
        env=_worker_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    yield process
    from campaigns.launch import campaigns_stop_all

    # Let a running campaign end (so its job finishes and RQ's warm shutdown
    # is quick), then take down the worker and its work horse as a group.
    campaigns_stop_all()
    os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=20)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def wait_for(predicate, timeout: float, interval: float = 0.2):
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
