"""Python packages as targets: a distribution installed into a virtual environment of its own.

A target names ``name==version`` from PyPI, a local directory or an archive
(``.tar.gz``, ``.zip``, ``.whl``). Each worker installs it once into an
environment of its own, cached by that specification: an install prefix
layered over the worker's interpreter, whose site-packages the function engine then imports
from, ahead of the worker's own packages. The package and its dependencies
are installed there even where the worker has them (``--ignore-installed``):
the version fuzzed is the one named.

Installing a package runs its code (a build backend, ``setup.py``), so pip
runs in the sandbox: the environment is its only writable place, and it
gets the network (only pip's downloads need it). Only the empty environment
directory is made outside.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from engines import sandbox

INSTALL_TIMEOUT_SECONDS = 600
LOG_LIMIT = 64 * 1024
_SPEC = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?(==[A-Za-z0-9.+!_-]+)?$")
_DONE = ".fuzzweb-installed"


class InstallError(Exception):
    """The package could not be installed; the message ends with pip's last lines."""

    def __init__(self, message: str, log: str):
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class Installed:
    package: str
    site_packages: str
    log: str
    cached: bool


def cache_root() -> str:
    """Where environments are kept: ``FUZZWEB_PACKAGE_DIR``, else the worker account's cache, else /var/tmp."""
    named = os.environ.get("FUZZWEB_PACKAGE_DIR")
    if named:
        return named
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and os.access(home, os.W_OK):
        return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "fuzzweb", "packages")
    return os.path.join(tempfile.gettempdir(), f"fuzzweb-packages-{os.getuid()}")


def check(package: str) -> str:
    """``package`` if it names something installable, else raise ValueError saying what would."""
    package = package.strip()
    if _SPEC.match(package) or (os.path.isabs(package) and os.path.exists(package)):
        return package
    raise ValueError("a distribution from PyPI as name or name==version, or an existing absolute path")


ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".zip")
MAX_ARCHIVE_BYTES = 32 * 1024 * 1024


def archive_name_checked(name: str) -> str:
    """An uploaded archive's file name, if it is one pip installs; else ValueError saying what would do."""
    base = os.path.basename(name or "")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,200}", base) or not base.endswith(ARCHIVE_SUFFIXES):
        raise ValueError(f"a wheel or source archive ({', '.join(ARCHIVE_SUFFIXES)}) with a plain file name")
    return base


def store_archive(name: str, data: bytes, root: str | None = None) -> str:
    """Write an uploaded archive where pip can install it from; its path (named by its content, so cached by it)."""
    name = archive_name_checked(name)
    directory = os.path.join(root or cache_root(), "uploads", hashlib.sha256(data).hexdigest()[:16])
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        os.makedirs(directory, exist_ok=True)
        partial = path + ".part"
        with open(partial, "wb") as handle:
            handle.write(data)
        os.replace(partial, path)
    return path


def module_of(package: str) -> str:
    """The module a distribution most likely provides (``python-slugify`` → ``slugify`` is not guessed: name it)."""
    name = re.split(r"[=\[]", os.path.basename(package.rstrip("/")), maxsplit=1)[0]
    if name.endswith(ARCHIVE_SUFFIXES):
        name = name.split("-", 1)[0]  # a wheel or sdist: the distribution comes before the version
    return re.sub(r"[-.]", "_", name).lower()


def ensure(package: str, root: str | None = None) -> Installed:
    """The environment for ``package``, installed now if this worker has not installed it before."""
    package = check(package)
    root = root or cache_root()
    key = hashlib.sha256(f"{sys.version_info[:2]}|{package}".encode()).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", os.path.basename(package.rstrip("/")))[:40]
    home = os.path.join(root, f"{name}-{key}")
    os.makedirs(root, exist_ok=True)
    # One installer per environment: two shards starting together wait for each other.
    with open(os.path.join(root, f".{name}-{key}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = os.path.join(home, _DONE)
        if os.path.exists(done):
            with open(done, encoding="utf-8", errors="replace") as handle:
                return Installed(package, _site_packages(home), handle.read(), cached=True)
        shutil.rmtree(home, ignore_errors=True)
        log = _install(package, home)
        with open(done, "w", encoding="utf-8") as handle:
            handle.write(log)
        return Installed(package, _site_packages(home), log, cached=False)


def _site_packages(home: str) -> str:
    return os.path.join(home, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")


def _install(package: str, home: str) -> str:
    # pip of the interpreter the engine fuzzes with, so what it installs imports in the engine's child.
    os.makedirs(home)
    started = time.monotonic()
    pip = [
        sys.executable, "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "--no-cache-dir",
        "--prefix", home, "--ignore-installed", "--no-warn-script-location", package,
    ]  # fmt: skip
    readable = (package,) if os.path.isabs(package) else ()
    # The machine's pip settings (an index mirror, a certificate bundle, local wheels) hold inside too.
    settings = {name: value for name, value in os.environ.items() if name.startswith("PIP_")}
    environment = sandbox.scrubbed_environment({**settings, "HOME": home, "PIP_NO_WARN_SCRIPT_LOCATION": "1"})
    readable += tuple(
        path for name in ("PIP_FIND_LINKS", "PIP_CERT") for path in os.environ.get(name, "").split() if path
    )
    command = sandbox.confine(pip, scratch=home, environment=environment, readable=readable, network=True)
    try:
        result = subprocess.run(  # noqa: S603 - confined by bubblewrap above
            command, capture_output=True, text=True, errors="replace", timeout=INSTALL_TIMEOUT_SECONDS, env=environment
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(home, ignore_errors=True)
        raise InstallError(f"installing {package} took over {INSTALL_TIMEOUT_SECONDS} s", "") from None
    log = f"$ pip install {package}\n{result.stdout}{result.stderr}"[-LOG_LIMIT:]
    log += f"\n(exit status {result.returncode}, {time.monotonic() - started:.1f} s)\n"
    if result.returncode != 0:
        shutil.rmtree(home, ignore_errors=True)
        tail = "\n".join(result.stderr.strip().splitlines()[-5:])
        raise InstallError(f"could not install {package}: {tail}", log)
    return log
