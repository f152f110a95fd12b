"""Knowing a user name is not enough to lock its owner out by failing logins from elsewhere."""

from __future__ import annotations

import time

import django_rq
import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-9"  # noqa: S105 - the test account's (conftest.admin_user)


@pytest.fixture(autouse=True)
def fresh_counters(settings):
    settings.FUZZWEB_LOGIN_FAILURES = 3
    settings.FUZZWEB_LOGIN_USER_FAILURES = 6
    redis = django_rq.get_connection("default")
    for key in redis.scan_iter("fuzzweb:rate:login*"):
        redis.delete(key)


def _login(client: Client, address: str, password: str):
    return client.post(reverse("login"), {"username": "maintainer", "password": password}, REMOTE_ADDR=address)


def test_failures_from_other_addresses_do_not_lock_the_owner_out(admin_user):
    owner = Client()
    assert _login(owner, "10.0.0.1", PASSWORD).status_code == 302
    owner.post(reverse("logout"))

    # An attacker who knows the name fails from one address, then from many.
    attacker = Client()
    answers = [_login(attacker, "10.6.6.6", "guess").status_code for _ in range(5)]
    assert answers[:3] == [200, 200, 200] and answers[3:] == [429, 429]
    for host in range(20):
        _login(Client(), f"10.7.0.{host}", "guess")
    # Even the right password from the attacker's address now waits.
    assert _login(attacker, "10.6.6.6", PASSWORD).status_code == 429

    # The owner, from the browser they used before, at their own address or a new one.
    assert _login(owner, "10.0.0.1", PASSWORD).status_code == 302
    owner.post(reverse("logout"))
    assert _login(owner, "192.168.1.9", PASSWORD).status_code == 302


def test_a_distributed_guess_at_one_user_is_still_limited(admin_user):
    for host in range(6):
        assert _login(Client(), f"10.8.0.{host}", "guess").status_code == 200
    # Past the per-user limit, a browser the user never logged in from waits too.
    assert _login(Client(), "10.8.1.1", PASSWORD).status_code == 429


def test_a_forged_known_browser_cookie_is_ignored(admin_user):
    for host in range(6):
        _login(Client(), f"10.9.0.{host}", "guess")
    forger = Client()
    forger.cookies["fuzzweb_known"] = '["maintainer"]'
    assert _login(forger, "10.9.1.1", PASSWORD).status_code == 429


def _set_window_count(name: str, windows_ago: int, count: int, window_seconds: int) -> None:
    window = int(time.time() // window_seconds) - windows_ago
    django_rq.get_connection("default").set(f"fuzzweb:rate:{name}:{window}", count, ex=window_seconds * 3)


def test_failures_of_the_window_before_still_count_at_a_new_window(admin_user, settings):
    """A fixed window would forget three failures the moment it ended, and let three more guesses in."""
    window = settings.FUZZWEB_LOGIN_WINDOW_SECONDS
    _set_window_count("login-addr:10.5.5.5", 1, 3, window)
    response = _login(Client(), "10.5.5.5", PASSWORD)
    assert response.status_code == 429
    # Locked until the window that holds the failures is no longer read: the end of this one.
    assert 1 <= int(response["Retry-After"]) <= window

    _set_window_count("login-addr:10.5.5.6", 2, 3, window)  # two windows ago: read no more
    assert _login(Client(), "10.5.5.6", PASSWORD).status_code == 302


def test_failures_of_this_window_lock_through_the_next(admin_user, settings):
    window = settings.FUZZWEB_LOGIN_WINDOW_SECONDS
    for _ in range(3):
        _login(Client(), "10.5.6.1", "guess")
    response = _login(Client(), "10.5.6.1", PASSWORD)
    assert response.status_code == 429
    assert window < int(response["Retry-After"]) <= 2 * window
