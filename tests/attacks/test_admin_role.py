"""The admin role runs accounts but cannot climb past itself: no superusers, no foreign groups, no takeovers."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission

from fuzzweb.roles import role_set
from tests.conftest import user_in_group

pytestmark = pytest.mark.django_db


@pytest.fixture
def site_admin(django_user_model, client):
    user = user_in_group(django_user_model, "ada", "admin")
    role_set(user=user, role="admin")
    user.groups.add(Group.objects.create(name="compiler-team"))
    client.force_login(user)
    return user


@pytest.fixture
def secret_team():
    return Group.objects.create(name="security-team")


def _change(client, user, **fields):
    """Post the account's admin change form, as the page would, with ``fields`` changed."""
    data = {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "groups": [g.pk for g in user.groups.all()],
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "initial-date_joined_0": "2026-01-01",
        "initial-date_joined_1": "00:00:00",
        **fields,
    }
    return client.post(f"/admin/auth/user/{user.pk}/change/", data)


def test_the_admin_role_cannot_make_a_superuser_or_grant_itself_permissions(client, site_admin, triager):
    everything = list(Permission.objects.values_list("pk", flat=True))
    for target in (triager, site_admin):
        _change(client, target, is_superuser="on", is_staff="on", user_permissions=everything)
        target.refresh_from_db()
        assert not target.is_superuser
        assert not target.user_permissions.exists()
    site_admin = type(site_admin).objects.get(pk=site_admin.pk)
    assert not site_admin.has_perm("auth.delete_user")


def test_the_admin_role_cannot_join_or_grant_a_group_it_is_not_in(client, site_admin, triager, secret_team):
    for target in (site_admin, triager):
        groups = [g.pk for g in target.groups.all()] + [secret_team.pk]
        response = _change(client, target, groups=groups)
        assert response.status_code == 200  # the form comes back with the error
        assert not target.groups.filter(pk=secret_team.pk).exists()
    # What it may do: give its own group, and a role.
    own = Group.objects.get(name="compiler-team")
    response = _change(client, triager, groups=[g.pk for g in triager.groups.all()] + [own.pk])
    assert response.status_code == 302, response.content.decode()[:2000]
    assert triager.groups.filter(pk=own.pk).exists()


def test_editing_an_account_keeps_the_groups_the_editor_cannot_see(client, site_admin, triager, secret_team):
    triager.groups.add(secret_team)
    offered = [g.pk for g in triager.groups.exclude(pk=secret_team.pk)]
    response = _change(client, triager, groups=offered, first_name="Ana")
    assert response.status_code == 302, response.content.decode()[:2000]
    triager.refresh_from_db()
    assert triager.first_name == "Ana"
    assert triager.groups.filter(pk=secret_team.pk).exists()


def test_the_admin_role_cannot_touch_a_superuser(client, site_admin, admin_user):
    url = f"/admin/auth/user/{admin_user.pk}/password/"
    assert client.get(url).status_code == 403
    response = client.post(
        url, {"password1": "taken-over-77", "password2": "taken-over-77", "set_usable_password": "true"}
    )
    assert response.status_code == 403
    admin_user.refresh_from_db()
    assert admin_user.check_password("correct-horse-9")
    response = _change(client, admin_user, is_active="")
    assert response.status_code == 403
    admin_user.refresh_from_db()
    assert admin_user.is_active


def test_the_admin_role_cannot_take_over_an_account_in_a_foreign_group(client, site_admin, triager, secret_team):
    triager.groups.add(secret_team)
    response = client.post(
        f"/admin/auth/user/{triager.pk}/password/",
        {"password1": "taken-over-77", "password2": "taken-over-77", "set_usable_password": "true"},
    )
    assert response.status_code == 403
    triager.refresh_from_db()
    assert triager.check_password("correct-horse-9")
    # An account of its own groups it may still help with.
    triager.groups.remove(secret_team)
    response = client.post(
        f"/admin/auth/user/{triager.pk}/password/",
        {"password1": "fresh-start-77", "password2": "fresh-start-77", "set_usable_password": "true"},
    )
    assert response.status_code == 302
