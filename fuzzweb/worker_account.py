"""The unprivileged account workers run as when `make run` or `make worker` start as root.

Workers run untrusted code all day (in the sandbox, see engines.sandbox);
should that ever be escaped, what it lands in must not be root. Started as
root, the supervisor therefore creates (once) a system account, checks that
it can start the project's Python, and runs the workers and the scheduler
as that account. They get only the secrets they need: the database and
Redis addresses, not the site's secret key (workers sign nothing; they get a
throwaway key Django insists on). The secret key, the private Redis's
configuration and everything else in ``var/`` stay readable by root only;
with the embedded SQLite database the account is let into ``var/`` to use
that one file.

Not root: everything runs as the user who started it, as before.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_NAME = "fuzzweb-worker"
# What a worker must be able to import: if the account cannot, it cannot work.
_PROBE = "import django, rq, redis, psycopg, engines.sandbox"


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int

    def popen_options(self) -> dict:
        """subprocess options that start a child as this account, with no supplementary groups."""
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


def _ensure_system_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    useradd = shutil.which("useradd") or "/usr/sbin/useradd"
    done = subprocess.run(  # noqa: S603 - a fixed command, the name from the administrator's environment
        [useradd, "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
         "--shell", "/usr/sbin/nologin", name],
        capture_output=True, text=True,
    )  # fmt: skip
    try:
        # Another process (a second `make worker` starting beside this one) may have
        # made it between the look-up and useradd: then useradd fails, and that is fine.
        return pwd.getpwnam(name)
    except KeyError:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr) from None


def worker_account(name: str | None = None) -> tuple[Account | None, str]:
    """The account to run workers as (None: the current user) and one line saying so, and why."""
    name = os.environ.get("FUZZWEB_WORKER_ACCOUNT", DEFAULT_NAME) if name is None else name
    if os.geteuid() != 0:
        return None, f"workers run as {pwd.getpwuid(os.geteuid()).pw_name} (not root)"
    if name in ("", "root"):
        return None, "workers run as root: FUZZWEB_WORKER_ACCOUNT asks for it"
    try:
        entry = _ensure_system_user(name)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = getattr(error, "stderr", "") or str(error)
        return None, f"workers run as root: could not create the account {name} ({detail.strip()})"
    account = Account(name, entry.pw_uid, entry.pw_gid)
    try:
        probe = subprocess.run(  # noqa: S603 - the project's own interpreter
            [sys.executable, "-c", _PROBE],
            cwd=BASE_DIR,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(BASE_DIR), "LANG": "C.UTF-8"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            **account.popen_options(),
        )
        problem = "" if probe.returncode == 0 else (probe.stderr.strip().splitlines() or ["?"])[-1]
    except OSError as error:  # the interpreter itself is out of the account's reach (a Python under /root)
        problem = str(error)
    if problem:
        return None, (
            f"workers run as root: {name} cannot start {sys.executable} ({problem}); "
            "make the project's Python readable by that account (make does, with the system's python3.11)"
        )
    return account, f"workers run as {name} (uid {account.uid}), without the site's secret key"


def worker_environment(env: dict[str, str], account: Account | None) -> dict[str, str]:
    """What a worker process gets: without the secret key when it runs as its own account."""
    if account is None:
        return dict(env)
    kept = {key: value for key, value in env.items() if key != "SECRET_KEY"}
    # Django refuses to start without one; nothing a worker does is signed with it.
    kept["SECRET_KEY"] = "worker-" + secrets.token_urlsafe(32)
    kept["HOME"] = "/nonexistent"
    return kept


def grant_database(account: Account | None, var_dir: Path, env: dict[str, str]) -> None:
    """With the embedded SQLite database, let the account use that file (and its journal) in ``var_dir``.

    Only the group gets in, and only to the directory and the database file:
    the secret key and the private Redis's files keep their 0600/0700 modes.
    Sets this process's umask (inherited by the web server and workers it
    starts) so that files either side creates there stay usable by both.
    """
    if account is None:
        return
    var_dir.mkdir(parents=True, exist_ok=True)
    if env.get("DATABASE_URL"):
        var_dir.chmod(0o700)  # nothing in it is the workers'
        return
    os.chown(var_dir, -1, account.gid)
    # setgid: the journal files SQLite creates (as root or as the account) take the
    # group, and the supervisor's umask 007 (see below) leaves them group-writable.
    os.chmod(var_dir, 0o2770)  # noqa: S103 - owner and the worker group only; secrets inside keep 0600
    os.umask(0o007)
    database = var_dir / "fuzzweb.sqlite3"
    for path in (database, database.with_name(database.name + "-journal"), database.with_name(database.name + "-wal")):
        if path.exists():
            os.chown(path, -1, account.gid)
            os.chmod(path, 0o660)


def main(argv: list[str]) -> int:
    """`make worker` as root: run ``manage.py ARGS`` as the worker account (or as is, not root)."""
    account, why = worker_account()
    print(f"[fuzzweb] {why}", flush=True)
    env = worker_environment(dict(os.environ), account)
    if account is not None:
        grant_database(account, Path(os.environ.get("FUZZWEB_VAR_DIR", BASE_DIR / "var")), env)
    command = [sys.executable, str(BASE_DIR / "manage.py"), *argv]
    options = account.popen_options() if account else {}
    return subprocess.call(command, env=env, **options)  # noqa: S603 - the project's own manage.py


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
