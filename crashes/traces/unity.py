"""Unity's managed stack traces, read back as .NET prints them.

Unity's editor console, its player log and Cloud Diagnostics print a C#
exception their own way: the exception's bare type and message, then one
frame per line as ``Class.Method (argument types)``, with ``(at
path:line)`` where the script is known (``(at <build id>:0)`` in a player
built without it), and the engine's native side as ``Class:Method (…)``::

    NullReferenceException: Object reference not set to an instance of an object
    Reporter.Update () (at Assets/Reporter/Reporter.cs:1844)
    UnityEngine.Debug:Log (object)

Each such frame becomes ``   at Class.Method() in path:line N`` so the
.NET parser reads it as any other, and the engine's frames are skipped as
the runtime's are (crashes.frames).
"""

from __future__ import annotations

import re

from crashes.traces.text import MAX_LINE

# "Ship.GenericShip.GetCenter () (at <8165dfe94de34e78986cd70d2e1682dc>:0)", "UnityEngine.Debug:Log (object)",
# "Foo.Bar`1[T].Baz[U] (T x) (at Assets/Foo.cs:12)", "Foo+<Run>d__3.MoveNext () (at …)".
_FRAME = re.compile(
    r"^\s{0,8}(?P<function>[A-Za-z_<][\w.`+<>\[\],]{0,300}?[.:][A-Za-z_<][\w<>`\[\],]{0,200}) "
    r"\((?P<arguments>(?!@)[^()\n]{0,500})\)(?: \(at (?P<file>[^()\n]{1,500}?):(?P<line>\d{1,9})\))?\s*$"
)
# A build's id in place of a path ("<557fec70fa22493aa8454566f5e6c832>"): no file to name.
_BUILD_ID = re.compile(r"^<[0-9a-f]{16,64}>$")


def _frame(line: str) -> tuple[str, bool] | None:
    """``line`` as a .NET frame line, when it is a Unity frame, and whether it shows Unity's own marks:
    its "(at …)", or the engine's "Class:Method" (a function and its arguments alone are any language's)."""
    found = _FRAME.match(line[:MAX_LINE])
    if not found:
        return None
    marked = found["file"] is not None or ":" in found["function"]
    function = found["function"].replace(":", ".")
    file = found["file"]
    if file is None or _BUILD_ID.match(file):
        return f"   at {function}()", marked
    return f"   at {function}() in {file}:line {found['line']}", marked


def render(text: str) -> tuple[str, str]:
    """``text`` with Unity's frames written as .NET's, and the repair's name."""
    if " (" not in text or ("(at " not in text and ":" not in text):
        return text, ""
    lines = text.split("\n")
    rendered = [_frame(line) if " (" in line else None for line in lines]
    if not any(frame is not None and frame[1] for frame in rendered):
        return text, ""
    out = [frame[0] if frame is not None else line for line, frame in zip(lines, rendered, strict=True)]
    return "\n".join(out), "Unity's stack read as .NET's"
