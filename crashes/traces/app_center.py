"""Visual Studio App Center's crash stacks (and the apps that copy them into their issues, Files' among them).

``Files.App.ViewModels.UserControls.Widgets``
``QuickAccessWidgetViewModel.NavigateToPath (String path)``
``Files.App.UserControls.Widgets``
``QuickAccessWidget.Button_Click (Object sender, RoutedEventArgs e)``

Each frame takes two lines: the namespace, then the type and method with their parameters. The frames are
.NET's, read by .NET's rules; the exception is the first the text names, read as .NET's own stack names them.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.dotnet import exception_names
from crashes.traces.text import MAX_LINE, lines_of

FORMAT = "app-center"
_NAMESPACE = re.compile(r"^\s{0,8}(?P<namespace>[A-Za-z_][\w]{0,100}(?:\.[A-Za-z_]\w{0,100}){0,20})\s*$")
# "QuickAccessWidgetViewModel.NavigateToPath (String path)", "<>c.<ThrowAsync>b__128_0 (Object state)",
# "ExceptionHelpers.<ThrowExceptionForHR>g__Throw|39_0 (Int32 hr)".
_METHOD = re.compile(r"^\s{0,8}(?P<method>[\w<>|`$.]{1,300}\.[\w<>|`$]{1,200}) \((?P<parameters>[^()\n]{0,500})\)\s*$")
_FRAMES_WANTED = 2


def _frames(lines: list[str], limit: int) -> list[Frame]:
    """The first run of namespace and method line pairs."""
    frames: list[Frame] = []
    index = 0
    while index + 1 < len(lines) and len(frames) < limit:
        namespace = _NAMESPACE.match(lines[index][:MAX_LINE])
        method = _METHOD.match(lines[index + 1][:MAX_LINE]) if namespace else None
        if method:
            frames.append(Frame(function=f"{namespace['namespace']}.{method['method']}"))
            index += 2
            continue
        if frames and lines[index].strip():
            break
        index += 1
    return frames


def recognize(text: str) -> bool:
    """True for two or more of App Center's two-line frames in a row."""
    if " (" not in text:
        return False
    return len(_frames(list(lines_of(text)), _FRAMES_WANTED)) >= _FRAMES_WANTED


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    # (Read as .NET's own stack names its exceptions.)
    named = exception_names(text)
    return ParsedTrace(
        format=FORMAT,
        crash_type=named[0][0] if named else "unknown",
        message=named[0][1] if named else "",
        frames=tuple(_frames(lines, MAX_FRAMES)),
        language="dotnet",
    )
