"""Bugsnag's issues, as its GitHub integration files them (SQLDelight's IntelliJ plugin, Android apps).

    ## Error in SQL Delight IntelliJ Plugin

    **java.lang.IllegalStateException** in **ExprUtil.kt:135**
    Failed to compile SqlCompoundSelectStmtImpl(COMPOUND_SELECT_STMT): [] :

    [View on Bugsnag](https://app.bugsnag.com/…)

    ## Stacktrace

        SqlDelightCompiler.kt:226 - com.squareup.sqldelight.core.compiler.SqlDelightCompilerKt.tryWithElement
        SqlDelightCompiler.kt:188 - com.squareup.sqldelight.core.compiler.SqlDelightCompiler.writeQueryInterfaces

The heading names the app, the same for every error of it: the error's class
(its line, after Markdown's emphasis is taken off: "X in File.kt:135"), its
message below it and the stack's "FILE:LINE - FUNCTION" lines are the crash.
A JVM app's report is read as the JVM's stack it stands for, so it shares a
digest with the same stack pasted as Java prints it.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines, lines_of

FORMAT = "bugsnag"
_LINK = "[View on Bugsnag]"
_STACK_HEADING = "## Stacktrace"
# "    ComponentManagerImpl.kt:566 - com.intellij.serviceContainer.ComponentManagerImpl.registerServices"
_FRAME = re.compile(r"^\s{2,12}(?P<file>[^\s:][^:\n]{0,300}):(?P<line>\d{1,9}) - (?P<function>\S{1,500})\s*$")
# "java.lang.IllegalStateException in ExprUtil.kt:135" (its emphasis taken off by the cleaning).
_HEAD = re.compile(r"^\s{0,4}\**(?P<type>[\w$.:+<>-]{1,300})\** in \**(?P<where>[^\s*]{1,300}:\d{1,9})\**\s*$")
_MESSAGE_LINES = 20
_LANGUAGES = (
    (re.compile(r"\.(?:java|kt|kts|scala|groovy|clj)$"), "jvm"),
    (re.compile(r"\.(?:m?js|jsx|ts|tsx)$"), "javascript"),
    (re.compile(r"\.rb$"), "ruby"),
    (re.compile(r"\.py$"), "python"),
    (re.compile(r"\.go$"), "go"),
    (re.compile(r"\.cs$"), "dotnet"),
)


def recognize(text: str) -> bool:
    if _LINK not in text and _STACK_HEADING not in text:
        return False
    return bool(find_lines(text, _HEAD, 1, " in ")) and (_LINK in text or bool(find_lines(text, _FRAME, 1, " - ")))


def _language(frames: list[Frame], where: str) -> str:
    files = [frame.file for frame in frames] or [where.rsplit(":", 1)[0]]
    for pattern, language in _LANGUAGES:
        if any(pattern.search(file) for file in files):
            return language
    return "native"


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    head = next(i for i, line in enumerate(lines) if " in " in line and _HEAD.match(line[:MAX_LINE]))
    found = _HEAD.match(lines[head][:MAX_LINE])
    message = []
    for line in lines[head + 1 : head + 1 + _MESSAGE_LINES]:
        if not line.strip() or line.startswith(_LINK) or line.startswith("#"):
            break
        message.append(line.strip())
    frames = [
        Frame(function=match["function"], file=match["file"], line=int(match["line"]))
        for match in (_FRAME.match(line[:MAX_LINE]) for line in lines[head + 1 :] if " - " in line)
        if match
    ]
    language = _language(frames, found["where"])
    return ParsedTrace(
        # A JVM app's error is the JVM exception it reports: read as Java prints it, it is the same crash.
        format="jvm" if language == "jvm" else FORMAT,
        crash_type=found["type"],
        message="\n".join(message),
        frames=tuple(frames),
        language=language,
    )
