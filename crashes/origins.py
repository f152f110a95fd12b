"""Whose code a Python frame is, and which frame names a crash for people.

A trace from the function engine runs through three kinds of code: the
target's own, the standard library's, and the fuzzing harness's (the child
runner, the coverage tracer, the value builder, the sandbox, the reducers).
Only the first is what a maintainer fixes, so a bucket is titled by it and
the other two are shown dimmed on the bucket page.

None of this decides a signature: the frames hashed are chosen by
``crashes.frames`` under the signature version's rules. The title and the
dimming may improve without re-bucketing anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from crashes.frames import is_ignored
from crashes.model import Frame

TARGET, STDLIB, HARNESS = "target", "stdlib", "harness"

# fuzzweb's own engines run the target; engines/demo/ is a target, so it is not here.
# Third-party harnesses (atheris, pytest, Hypothesis) wrap a target the same way.
_HARNESS = re.compile(
    r"(?:^|/)engines/(?:pyfunc|differential|reduce)/|(?:^|/)engines/sandbox\.py$|"
    r"(?:site|dist)-packages/(?:atheris|_pytest|pluggy|hypothesis)/"
)
_STDLIB = re.compile(r"/lib/python\d+(?:\.\d+)?/(?!.*(?:site|dist)-packages/)|^<frozen ")
# Code objects Python names for what they are, not for a function anyone wrote;
# Python 3.11 prints comprehensions as frames of their own (3.12 inlines lists).
_PSEUDO = re.compile(r"^<(?:genexpr|listcomp|dictcomp|setcomp|lambda)>$")


def origin_of(path: str) -> str:
    """``TARGET``, ``STDLIB`` or ``HARNESS`` for the file a Python frame is in."""
    path = path.replace("\\", "/")
    if _HARNESS.search(path):
        return HARNESS
    if _STDLIB.search(path):
        return STDLIB
    return TARGET


def title_function(frames: Sequence[Frame], ignore: tuple[re.Pattern, ...] = ()) -> str:
    """The function a Python crash is titled by ('' for none): frames innermost first.

    The innermost frame of the target's own code, passing comprehension and
    lambda frames on to the function around them (the next frame out is the
    one that ran them). The target's frames are those its signature may hash
    (``crashes.frames.is_ignored``, with the target's own ``ignore``
    patterns) outside the harness. Only a crash with no target frame at all (a
    fuzzed standard-library module) is titled by a standard-library frame, and
    never by the harness: its frames are the same for every crash.
    """
    own: list[Frame] = []
    stdlib: list[Frame] = []
    for frame in frames:
        origin = origin_of(frame.file)
        if origin == TARGET and not is_ignored(frame, "python", ignore):
            own.append(frame)
        elif origin == STDLIB and not any(p.search(frame.function) or p.search(frame.file) for p in ignore):
            stdlib.append(frame)
    candidates = own or stdlib
    for frame in candidates:
        if not _PSEUDO.match(frame.function.strip()):
            return frame.function.strip()
    return candidates[0].function.strip() if candidates else ""
