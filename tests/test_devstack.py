"""`make run`'s supervisor: what it starts, where each process logs, and the login line it prints."""

from __future__ import annotations

import os
import pwd
import stat
import subprocess
import sys

import pytest

from fuzzweb import devstack
from fuzzweb.worker_account import Account


def _plan(workers: int = 2) -> list[devstack.Process]:
    return devstack.processes(
        host="127.0.0.1",
        port="8123",
        web_workers=3,
        campaign_queues=["engine-pyfunc", "default", "reduce"],
        campaign_workers=workers,
        reduce_queues=["reduce", "default"],
    )


def test_every_process_has_a_log_file_of_its_own():
    plan = _plan(workers=2)
    assert [(p.name, p.log) for p in plan] == [
        ("web", "web.log"),
        ("worker-campaigns-1", "worker-campaigns-1.log"),
        ("worker-campaigns-2", "worker-campaigns-2.log"),
        ("worker-reduce", "worker-reduce.log"),
        ("scheduler", "scheduler.log"),
    ]
    # Only the web server keeps the site's secrets; the rest run as the worker account.
    assert [p.name for p in plan if not p.as_worker_account] == ["web"]
    assert [p.role for p in plan] == ["web", "worker", "worker", "worker", "scheduler"]


def test_the_web_server_is_gunicorn_on_the_wsgi_app():
    web = _plan()[0]
    command = list(web.command)
    assert command[:4] == [sys.executable, "-m", "gunicorn", "fuzzweb.wsgi:application"]
    assert command[command.index("--bind") + 1] == "127.0.0.1:8123"
    assert command[command.index("--workers") + 1] == "3"
    # Access and error log on the standard streams, which the supervisor points at web.log.
    assert command[command.index("--access-logfile") + 1] == "-"
    assert command[command.index("--error-logfile") + 1] == "-"


def test_workers_listen_on_their_queues():
    plan = {p.name: p for p in _plan(workers=1)}
    assert plan["worker-campaigns-1"].command[-4:] == ("rqworker", "engine-pyfunc", "default", "reduce")
    assert plan["worker-reduce"].command[-3:] == ("rqworker", "reduce", "default")
    assert plan["scheduler"].command[-2:] == ("rqcron", "fuzzweb.cron")


def test_gunicorn_accepts_the_command(tmp_path):
    # gunicorn's own parser reads the options (--check-config loads the app and exits).
    command = [*_plan()[0].command, "--check-config"]
    done = subprocess.run(command, cwd=devstack.BASE_DIR, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_web_worker_count():
    assert devstack.web_worker_count({"FUZZWEB_WEB_WORKERS": "7"}) == 7
    assert 3 <= devstack.web_worker_count({}) <= 4


def test_log_directory_appends_rotates_and_is_private(tmp_path):
    logs = devstack.LogDirectory(tmp_path / "var" / "log")
    assert stat.S_IMODE(os.stat(tmp_path / "var" / "log").st_mode) == 0o750
    for text in (b"first\n", b"second\n"):
        fd = logs.open("worker-reduce.log")
        os.write(fd, text)
        os.close(fd)
    # A restarted worker continues its file.
    assert (tmp_path / "var" / "log" / "worker-reduce.log").read_bytes() == b"first\nsecond\n"
    logs.rotate("worker-reduce.log")
    logs.rotate("never-written.log")
    assert (tmp_path / "var" / "log" / "worker-reduce.log.1").read_bytes() == b"first\nsecond\n"
    assert not (tmp_path / "var" / "log" / "worker-reduce.log").exists()


def test_log_directory_never_follows_a_link(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "log").symlink_to(elsewhere)
    with pytest.raises(OSError):
        devstack.LogDirectory(tmp_path / "var" / "log")
    logs = devstack.LogDirectory(tmp_path / "var2" / "log")
    (tmp_path / "var2" / "log" / "web.log").symlink_to(elsewhere / "planted")
    with pytest.raises(OSError):
        logs.open("web.log")
    assert not (elsewhere / "planted").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root starts workers as another account")
def test_worker_logs_belong_to_the_worker_account(tmp_path):
    nobody = pwd.getpwnam("nobody")
    account = Account("nobody", nobody.pw_uid, nobody.pw_gid)
    logs = devstack.LogDirectory(tmp_path / "log")
    os.close(logs.open("worker-campaigns-1.log", owner=account))
    os.close(logs.open("web.log"))
    assert os.stat(tmp_path / "log" / "worker-campaigns-1.log").st_uid == nobody.pw_uid
    assert os.stat(tmp_path / "log" / "web.log").st_uid == 0
    # Someone else's directory there (a worker that swapped var/log) is refused.
    os.chown(tmp_path / "log", nobody.pw_uid, nobody.pw_gid)
    with pytest.raises(SystemExit, match="belongs to uid"):
        devstack.LogDirectory(tmp_path / "log")


@pytest.mark.django_db
def test_login_line_gives_a_generated_password_once(django_user_model):
    from fuzzweb.first_admin import first_admin_ensure, first_admin_login_hint

    generated = first_admin_ensure(username="boss", password=None)
    line = first_admin_login_hint(username="boss", password=None, generated=generated)
    assert line == f"log in as boss with password {generated} (generated now and shown only this once)"
    # The next start has no password to show: it says how to set one.
    again = first_admin_ensure(username="boss", password=None)
    assert again is None
    line = first_admin_login_hint(username="boss", password=None, generated=again)
    assert generated not in line
    assert line.startswith("log in as boss (") and "manage.py changepassword boss" in line


@pytest.mark.django_db
def test_login_line_names_the_existing_admin_and_the_variable(django_user_model):
    from fuzzweb.first_admin import first_admin_login_hint

    django_user_model.objects.create_superuser("founder", "", "correct-horse-9")
    # FUZZWEB_ADMIN_USER names nobody here: the admin there is, is the one to log in as.
    line = first_admin_login_hint(username="admin", password="correct-horse-9", generated=None)
    assert line == "log in as founder with the password in FUZZWEB_ADMIN_PASSWORD"
    line = first_admin_login_hint(username="admin", password="not-it", generated=None)
    assert "FUZZWEB_ADMIN_PASSWORD" not in line and "changepassword founder" in line
