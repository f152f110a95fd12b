"""Started as root, workers run as an unprivileged account, without the site's secret key, and still work.

The test starts a real RQ worker the way `make run` and `make worker` do
(fuzzweb.worker_account), queues a probe job and reads what it found: its
user, whether it can read the secret key, and that the sandbox and the
Python function engine work from that account.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import subprocess
import sys

import django_rq
import pytest
from django.conf import settings

from fuzzweb.worker_account import DEFAULT_NAME, grant_database, worker_account, worker_environment
from tests.conftest import BASE_DIR, _worker_env

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(os.geteuid() != 0, reason="the account is made only when started as root"),
]


def test_workers_started_as_root_run_as_their_own_account_without_the_secret_key():
    account, why = worker_account()
    assert account is not None, why
    assert account.name == DEFAULT_NAME and account.uid != 0
    assert pwd.getpwnam(DEFAULT_NAME).pw_shell.endswith("nologin")
    key = settings.VAR_DIR / "secret_key"
    if not key.exists():  # the suite may take its key from the environment; make the file a server keeps
        key.write_text("the site's secret key")
        key.chmod(0o600)

    queue = django_rq.get_queue("default")
    queue.empty()
    job = queue.enqueue("tests.attacks.worker_probe.whoami", job_timeout=300, result_ttl=600)
    env = worker_environment(_worker_env(), account)
    # As `make worker` does with a database server: var/ (key, static files) is closed to the account.
    grant_database(account, settings.VAR_DIR, env)
    assert env.get("DATABASE_URL") and settings.VAR_DIR.stat().st_mode & 0o777 == 0o700
    done = subprocess.run(  # noqa: S603
        [sys.executable, str(BASE_DIR / "manage.py"), "rqworker", "default", "--burst"],
        env=env,
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        **account.popen_options(),
    )
    job.refresh()
    assert job.is_finished, done.stderr[-3000:]
    seen = job.return_value()
    assert (seen["uid"], seen["euid"]) == (account.uid, account.uid)
    assert seen["secret_key_file"] == "denied (PermissionError)"
    assert seen["secret_key_sha"] != hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest()
    # The sandbox and the function engine work from the account.
    assert seen["sandboxed_program"] == ["inside"]
    assert seen["pyfunc_call"].endswith("EscapeReport")


def test_not_root_means_workers_run_as_the_user_and_root_on_request(monkeypatch):
    monkeypatch.setenv("FUZZWEB_WORKER_ACCOUNT", "root")
    account, why = worker_account()
    assert account is None and "asks for it" in why
    env = worker_environment({"SECRET_KEY": "s", "DATABASE_URL": "d"}, None)
    assert env == {"SECRET_KEY": "s", "DATABASE_URL": "d"}
