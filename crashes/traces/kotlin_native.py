"""Kotlin/Native's uncaught exceptions: an iOS or desktop binary's Kotlin crash, and the K/N compiler's own.

``Uncaught Kotlin exception: kotlin.IllegalStateException: Failed to parse header``
``    at 0   app.kexe   0x000000010a1b2c3d kfun:kotlin.Throwable#<init>(kotlin.String?){} + 93``
``    at 3   app.kexe   0x000000010a1c4f60 kfun:com.example.Parser#parseHeader(kotlin.String){}kotlin.Int + 412``
``Caused by: kotlin.NullPointerException``

The crash is the root cause (the last ``Caused by:``, else the uncaught
exception), read as the JVM's is, and its frames are the Kotlin functions
(``kfun:``) of its stack, named as the JVM names them
(``com.example.Parser.parseHeader``): the exception's own constructors, the
runtime's C++ frames and the addresses, which move with every build, are
not the crash's.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines

FORMAT = "kotlin-native"
_UNCAUGHT = "Uncaught Kotlin exception: "
_EXCEPTION = re.compile(
    r"^(?:Uncaught Kotlin exception: |Caused by: )(?P<type>[A-Za-z_$][\w$.]{0,300})(?:: (?P<message>.{0,1000}))?$"
)
# "at 3   app.kexe   0x000000010a1c4f60 kfun:com.example.Parser#parseHeader(kotlin.String){}kotlin.Int + 412",
# and as Crashlytics prints it, without "at" and with the source: "0  app  0x116cc40 kfun:… + 114 (Column.kt:114)".
# The symbol is taken whole and its offset and source cut from its end (a lazy match tried at each
# blank of a run before the line's end read the run once per blank).
_FRAME = re.compile(r"^\s*(?P<at>at )?\d{1,5}\s+\S.{0,300}?\s+0x[0-9a-fA-F]{1,16}\s+(?P<symbol>\S.{0,2000})$")
_SOURCE = re.compile(r"(?<!\s)\s+\([^()\s]{1,300}:\d{1,9}\)$")
_OFFSET = re.compile(r"(?<!\s)\s+\+ \d{1,12}$")
# What the compiler appends to a symbol: a bridge's mark, its visibility, a suspend function's or trampoline's.
_SUFFIXES = re.compile(r"\$<bridge-\w{1,20}>|#internal$|#suspend$|-trampoline$")
# A Kotlin function's symbol: "kfun:" and its package-qualified name, then its signature.
_KFUN = re.compile(r"^kfun:(?P<name>[^(]{1,1000}?)(?:\(|$)")
# The exception's own constructors: where it was made, not why.
_CONSTRUCTOR = re.compile(r"(?:Throwable|Exception|Error)#<init>$")
# Frames it takes to tell a stack from a line mentioning one.
_MIN_FRAMES = 2


def recognize(text: str) -> bool:
    """True for Kotlin/Native's uncaught-exception line, or two of its own ``at N … kfun:`` frame lines.

    (A macOS crash report names Kotlin functions "kfun:…" too, without "at": that is the crash report's.)
    """
    if _UNCAUGHT in text:
        return True
    if "kfun:" not in text:
        return False
    frames = find_lines(text, _FRAME, 4 * _MIN_FRAMES, "kfun:")
    return sum(1 for frame in frames if frame["at"]) >= _MIN_FRAMES


def _function(symbol: str) -> str | None:
    """``kfun:com.example.Parser#parseHeader(kotlin.String){}kotlin.Int`` -> ``com.example.Parser.parseHeader``."""
    symbol = _OFFSET.sub("", _SOURCE.sub("", symbol.rstrip()))
    kotlin = _KFUN.match(symbol)
    if kotlin is None:
        return None  # the runtime's C++ or the C library's
    name = _SUFFIXES.sub("", kotlin["name"].strip())
    if _CONSTRUCTOR.search(name):
        return None
    # "com.example#main" is a top-level function of the package (the JVM's "MainKt.main", less its file).
    return name.replace("#", ".")


def _frames(text: str) -> list[Frame]:
    """The Kotlin frames of the first stack in ``text`` (up to the next "Caused by:")."""
    cause = text.find("\nCaused by: ", 1)
    if cause != -1:
        text = text[:cause]
    frames: list[Frame] = []
    for found in find_lines(text, _FRAME, 4 * MAX_FRAMES, "kfun:"):
        name = _function(found["symbol"][:MAX_LINE])
        if name:
            frames.append(Frame(function=name))
            if len(frames) >= MAX_FRAMES:
                break
    return frames


def parse(text: str) -> ParsedTrace:
    """The root cause and its stack's Kotlin frames (the uncaught exception's when the cause has none)."""
    causes = find_lines(text, _EXCEPTION, 64, ": ")
    root = causes[-1] if causes else None
    frames = []
    if root is not None:
        # The root cause's own stack follows its line.
        at = text.find(root.group(0))
        frames = _frames(text[at:]) if at != -1 else []
    frames = frames or _frames(text)
    message = (root["message"] or "").strip() if root else ""
    return ParsedTrace(
        format=FORMAT,
        crash_type=root["type"] if root else "",
        message=message,
        frames=tuple(frames),
        language="jvm",
    )
