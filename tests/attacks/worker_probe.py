"""A job the worker-account test queues: what does a worker started as root actually run as, and hold?"""

from __future__ import annotations

import hashlib
import os
import tempfile

from django.conf import settings

from engines import sandbox
from engines.differential import execute
from engines.pyfunc.executor import Child


def _readable(path) -> str:
    try:
        with open(path, "rb") as handle:
            handle.read(1)
    except OSError as error:
        return f"denied ({type(error).__name__})"
    return "readable"


def whoami() -> dict:
    workdir = tempfile.mkdtemp(prefix="fuzzweb-probe-")
    ran = execute.run(["/bin/sh", "-c", "echo inside; id -u"], workdir, 30, sandbox.Limits())
    child = Child("tests.targets.escape", sandbox.Limits(call_timeout_seconds=60.0))
    child.start()
    try:
        called = child.call("report", [1], {}).crash_type
    finally:
        child.stop()
    return {
        "uid": os.getuid(),
        "euid": os.geteuid(),
        "secret_key_file": _readable(settings.VAR_DIR / "secret_key"),
        "secret_key_sha": hashlib.sha256(settings.SECRET_KEY.encode()).hexdigest(),
        "sandboxed_program": ran.stdout.split()[:1],
        "pyfunc_call": called,
    }
