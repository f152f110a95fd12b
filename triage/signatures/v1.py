"""Signature algorithm v1: crash type plus the top significant frames.

    signature = sha256(version, kind, crash type, top N frames)

where a frame is ``<normalised file>:<function>``. Line numbers are left out
on purpose: they move with every unrelated edit of the file, which would
split one bug into a new bucket per release. The exception message is left
out too: it usually carries the failing value (``KeyError: 'ms'``), which
differs on every hit.

Frames of the interpreter's standard library, of frozen importlib, of the
fuzzing harness and of ``python -c`` reproducers are skipped, so that the
frames hashed are the target's own; if nothing is left, all frames are used.
"""

from __future__ import annotations

import hashlib
import re

from triage import traces
from triage.signatures.model import Signature

VERSION = 1

# Paths are compared after "\" -> "/". Patterns match anywhere in the path.
IGNORED_FILES = (
    re.compile(r"/lib/python\d+(\.\d+)?/(?!.*(site|dist)-packages/)"),  # standard library
    re.compile(r"^<frozen "),
    re.compile(r"^<string>$"),
    re.compile(r"(^|/)engines/pyfunc/"),  # fuzzweb's own harness
    re.compile(r"(site|dist)-packages/(atheris|_pytest|pluggy|hypothesis)/"),
)
_PACKAGES = re.compile(r"^.*/(?:site|dist)-packages/")
_STDLIB = re.compile(r"^.*/lib/python\d+(?:\.\d+)?/")
_MAX_PERIOD = 4


def normalize_path(path: str) -> str:
    """Drop machine-specific prefixes: install trees, home and build directories."""
    path = path.replace("\\", "/")
    if path.startswith("<"):
        return path
    if _PACKAGES.match(path):
        return _PACKAGES.sub("", path)
    if _STDLIB.match(path):
        return "stdlib/" + _STDLIB.sub("", path)
    # Elsewhere the checkout's location is arbitrary (/home/a/src, /tmp/ci);
    # the last two components say which file it is.
    return "/".join(path.rstrip("/").split("/")[-2:])


def is_ignored(path: str) -> bool:
    """True for frames that belong to runtimes and harnesses, not the target."""
    path = path.replace("\\", "/")
    return any(pattern.search(path) for pattern in IGNORED_FILES)


def fold_recursion(keys: list[str]) -> list[str]:
    """Collapse runs of a repeating block of up to four frames into one copy.

    ``a b b b c`` -> ``a b c``; ``x y x y x y z`` -> ``x y z``; so recursion
    that overflowed at different depths hashes the same.
    """
    folded = list(keys)
    for period in range(1, _MAX_PERIOD + 1):
        index = period
        while index + period <= len(folded):
            if folded[index : index + period] == folded[index - period : index]:
                del folded[index : index + period]
            else:
                index += 1
    return folded


def significant_frames(frames, top_n: int) -> tuple[str, ...]:
    """Normalised keys of the top ``top_n`` frames of the target's own code."""
    own = [frame for frame in frames if not is_ignored(frame.file)] or list(frames)
    keys = [f"{normalize_path(frame.file)}:{frame.function}" for frame in own]
    return tuple(fold_recursion(keys)[:top_n])


def compute(*, kind: str, crash_type: str, trace_text: str, top_n: int = 3) -> Signature:
    """Signature of one finding; ``crash_type`` is used when the trace names none."""
    parsed = traces.parse(trace_text)
    frames = significant_frames(parsed.frames, top_n) if parsed else ()
    crash = (parsed.crash_type if parsed and parsed.crash_type else crash_type).strip()
    payload = "\n".join([f"v{VERSION}", kind, crash, *frames])
    return Signature(
        version=VERSION,
        digest=hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest(),
        kind=kind,
        crash_type=crash,
        frames=frames,
        message=parsed.message if parsed else "",
    )
