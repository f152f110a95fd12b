"""JVM stack traces: Java, Kotlin (including the Kotlin compiler's internal errors).

``Exception in thread "main" java.lang.X: message``, ``\\tat pkg.Cls.method(File.kt:12)``,
``Caused by: ...``, ``... N more``. The crash is the root cause, the last
``Caused by`` that has frames of its own: frameworks and compilers wrap
every failure in the same few exceptions (the Kotlin compiler's
``BackendException: Exception during IR lowering`` wraps them all), so the
outermost exception's stack would put unrelated bugs into one bucket.
"""

from __future__ import annotations

import re

from crashes.frames import is_ignored
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import CUT_LINES, MAX_LINE, per_text

FORMAT = "jvm"
_LOCATION = (
    # (Android's runtime adds the line to "Unknown Source:383", and R8 renames every file "SourceFile".)
    r"(?:[\w$.-]+\.(?:java|kt|kts|scala|groovy|clj|aj)(?::\d+)?|Unknown Source(?::\d+)?|SourceFile(?::\d+)?|"
    r"Native Method|Compiled Code|<generated>)"
)
# (Google Play Console prints a blank before the parenthesis: "at a.B.c (B.java:12)".)
# A frame names its class loader and module before its class when they have names (Java 9 on:
# "java.base/java.lang.Thread.run", "app//org.gradle.X.run" for the application's loader and no module,
# Fabric's "knot//"), each part ending in "/", an unnamed module's part empty.
_FRAME = re.compile(
    r"^\s*at\s+(?:[\w.$-]*(?:@[\w.-]+)?/)*(?P<function>[\w$.<>\-]+) ?\((?P<location>" + _LOCATION + r")\)"
    r"(?:\s*~?\[[^\]]*\])?\s*$"
)
# (Crashlytics prints it without the colon: "Caused by java.lang.IllegalStateException", the message below.)
_CAUSED_BY = re.compile(
    r"^\s*Caused by(?:: | (?=[\w$]+(?:\.[\w$]+)+(?:Exception|Error)(?::|$)))(?P<type>[\w$.]+)(?::\s?(?P<message>.*))?$"
)
_SUPPRESSED = re.compile(r"^\s*Suppressed: ")
_TOKEN = re.compile(r"[\w$.]+")
_EXCEPTION_WORDS = ("Exception", "Error", "Throwable", "Failure", "Exit")
# The Kotlin compiler wraps what failed in its own exception and names it in the message
# ("FileAnalysisException: While analysing A.kt:17:19: java.lang.NoSuchMethodError: …"): that
# exception is the crash, the wrapper is every crash of a phase.
_COMPILER_WRAPPERS = frozenset(
    {
        "org.jetbrains.kotlin.util.FileAnalysisException",
        "org.jetbrains.kotlin.util.KotlinFrontEndException",
        "org.jetbrains.kotlin.backend.common.BackendException",
        "org.jetbrains.kotlin.backend.common.CompilationException",
        "org.jetbrains.kotlin.codegen.CompilationException",
    }
)


def _names_exception(name: str) -> bool:
    """Whether a class's own name says it is a throwable ("DecryptException", "IOError", "Failure$1")."""
    return name.rstrip("$0123456789").endswith(_EXCEPTION_WORDS)


def _exception(line: str) -> tuple[str, str] | None:
    """The first JVM exception class named in ``line`` and the message after it.

    Tokens first, then a check of each: a pattern with a repeated dotted
    group backtracks quadratically over a long word.
    """
    if not any(word in line for word in _EXCEPTION_WORDS):
        return None
    for token in _TOKEN.finditer(line):
        name = token.group(0).rstrip(".")
        parts = name.split(".")
        # (Ending in the word: Android's "E/class org.schabi.newpipe.report.ErrorActivity: …" is a log tag.)
        if len(parts) < 2 or not parts[-1][:1].isupper() or not _names_exception(parts[-1]):
            continue
        # (Or a backtick: a whole stack pasted as inline code, "`java.lang.NullPointerException".)
        if token.start() and line[token.start() - 1] not in ' \t:"`':
            continue
        rest = line[token.end() :]
        if rest and not rest.startswith(":"):
            continue
        return name, rest[1:].strip()
    return None


# The Kotlin compiler's own wrappers of any exception thrown while it generated or analysed one
# function ("java.lang.RuntimeException: Exception while generating code for:\nFUN name:foo …"), thrown
# by FunctionCodegen.generate whatever the bug: its root-cause line names the wrapper, not the crash.
_WRAPPING_MESSAGES = ("Exception while generating code for", "Exception while analyzing expression")
_WRAPPER_SITES = frozenset({"org.jetbrains.kotlin.backend.jvm.codegen.FunctionCodegen.generate"})
# The Kotlin compiler's BackendException names what failed and where, before its own stack:
# "The root cause java.lang.AssertionError was thrown at: org.…TypeTranslator.toIrType(TypeTranslator.kt:167)".
# That place is the crash's site, as a panic's location is: a paste cut below the line still has it.
_ROOT_CAUSE = re.compile(
    # (The function after its Java module, as a frame names it: "jdk.zipfs/jdk.nio.zipfs.ZipFileSystem.…".)
    r"^\s*The root cause (?P<type>[\w$.]{1,300}) was thrown at: (?:[\w.$-]{0,100}(?:@[\w.-]{1,50})?/){0,2}"
    r"(?P<function>[\w$.<>\-]{1,300})\((?P<location>" + _LOCATION + r")\)"
)


@per_text
def _root_cause(text: str) -> re.Match | None:
    """The root-cause line, read with the lines after it where a terminal cut it (it is long)."""
    if "The root cause " not in text:
        return None
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if "The root cause " not in line:
            continue
        joined = line
        for following in [*lines[index + 1 : index + 1 + CUT_LINES], ""]:
            found = _ROOT_CAUSE.match(joined[:MAX_LINE])
            if found or not following or following[:1].isspace():
                return found
            # A console that pads its lines to its width (Android Studio's build output) leaves the frame
            # on the line after "was thrown at:", the blanks between them its padding.
            ended = joined.rstrip()
            joined = f"{ended} {following.strip()}" if ended.endswith(" was thrown at:") else joined + following
    return None


def recognize(text: str) -> bool:
    """True if ``text`` holds JVM ``at pkg.Cls.method(File.java:N)`` frames, or the Kotlin compiler's root cause."""
    if _root_cause(text) is not None:
        return True
    if "at " not in text:
        return False
    return any(_FRAME.match(line[:MAX_LINE]) for line in text.split("\n") if line.lstrip().startswith("at "))


_MORE = re.compile(r"^\s*\.\.\. (?P<count>\d+) (?:more|common frames omitted)\s*$")


class _Block:
    def __init__(self, crash_type: str, message: str, cause: bool = False):
        self.crash_type = crash_type
        self.message = message
        # Printed as a "Caused by:" of the block before it (else an exception of its own: another
        # chain, such as Gradle's trace printed after the compiler's).
        self.cause = cause
        self.frames: list[Frame] = []
        self.omitted = 0


def _frame(match: re.Match) -> Frame:
    file, _, line = match["location"].partition(":")
    return Frame(function=match["function"], file=file, line=int(line) if line.isdigit() else None)


def _full_stack(blocks: list[_Block]) -> list[Frame]:
    """The root cause's whole stack: "... N more" stands for the last N frames
    of the exception it caused, which are where the target's own code often is."""
    stack: list[Frame] = []
    for block in blocks:
        inherited = stack[len(stack) - block.omitted :] if block.omitted else []
        stack = block.frames + inherited if block.frames else stack
    return stack


# A throwable's class printed as Throwable.toString() does, in a package: "a.b.Name" or "a.b.Name: message".
_NAMED_CLASS = re.compile(r"^(?P<type>(?:[a-z_$][\w$]{0,100}\.){1,20}[A-Z][\w$]{0,200})(?:: ?(?P<message>.{0,1000}))?$")


def _through_causes(blocks: list[_Block], first: int) -> list[_Block]:
    """``blocks`` up to the last "Caused by:" of the run from ``blocks[first]`` on: one chain, not an
    exception printed after it."""
    end = first
    while end + 1 < len(blocks) and blocks[end + 1].cause:
        end += 1
    return blocks[: end + 1]


def parse(text: str) -> ParsedTrace:
    """Parse the exception chain; the root cause is the crash."""
    blocks: list[_Block] = []
    header: tuple[str, str] | None = None
    skipping_suppressed = False
    previous = ""
    for line in text.split("\n"):
        line, above = line[:MAX_LINE], previous
        previous = line
        frame = _FRAME.match(line) if "at " in line else None
        if frame:
            if skipping_suppressed:
                continue
            if header is None and not _FRAME.match(above):
                # A class the line right above the stack names, whatever its name ends in
                # ("org.elixir_lang.sdk.MissingErlangSdk: Erlang SDK is missing").
                named = _NAMED_CLASS.match(above.strip())
                header = (named["type"], (named["message"] or "").strip()) if named else None
            if not blocks or (header is not None and blocks[-1].frames):
                blocks.append(_Block(*(header or ("", ""))))
                header = None
            elif header is not None and not blocks[-1].frames:
                blocks[-1].crash_type, blocks[-1].message = header
                header = None
            blocks[-1].frames.append(_frame(frame))
            continue
        caused = _CAUSED_BY.match(line)
        if caused:
            skipping_suppressed = False
            blocks.append(_Block(caused["type"], (caused["message"] or "").strip(), cause=True))
            header = None
            continue
        if _SUPPRESSED.match(line):
            skipping_suppressed = True
            continue
        more = _MORE.match(line)
        if more and blocks and not skipping_suppressed:
            blocks[-1].omitted = int(more["count"])
            continue
        exception = _exception(line.strip())
        # The first line naming an exception before a run of frames heads it; after a compiler's
        # wrapper, the line naming what failed ("Details: Internal error in file lowering:
        # java.lang.NoSuchMethodError: …", below the file the IR backend's CompilationException names).
        if exception and (not blocks or blocks[-1].frames) and (header is None or header[0] in _COMPILER_WRAPPERS):
            header = exception
    root_cause = _root_cause(text)
    root = next((b for b in reversed(blocks) if b.crash_type == root_cause["type"]), None) if root_cause else None
    wrapped = blocks.index(root) + 1 if root is not None else len(blocks)
    if wrapped < len(blocks) and blocks[wrapped].cause and root.message.startswith(_WRAPPING_MESSAGES):
        # The root cause the compiler names is its own wrapper of whatever failed in a function's code
        # generation: the causes below it are the crash, as in any other chain (and not an exception
        # printed after that chain, such as Gradle's FailedCompilationException).
        blocks = _through_causes(blocks, wrapped)
        root_cause = None
    elif root_cause and root_cause["function"] in _WRAPPER_SITES:
        # The same wrapper named by its site, its own block left out of the paste ("....") or cut off with
        # the rest: the causes printed below, if any, are the crash; else the report names none.
        first = next((i for i, block in enumerate(blocks) if block.cause), None)
        if first is None:
            return ParsedTrace(format=FORMAT, crash_type="", language="jvm")
        blocks = _through_causes(blocks, first)
        root_cause = None
    elif root_cause and is_ignored(Frame(function=root_cause["function"]), "jvm"):
        # Thrown by the JDK's own check ("jdk.internal.util.Preconditions.outOfBounds", behind every
        # ArrayList.get out of range): where it was thrown says nothing; the chain's frames may.
        root_cause = None
    if root_cause:
        # Its type is the crash's; where it was thrown, the site (the frames, where the chain has them).
        frames = _full_stack(blocks[: blocks.index(root) + 1]) if root else []
        return ParsedTrace(
            format=FORMAT,
            crash_type=root_cause["type"],
            message=root.message if root else "",
            frames=tuple(frames),
            language="jvm",
            site=root_cause["function"],
        )
    if not blocks:
        return ParsedTrace(format=FORMAT, crash_type=header[0] if header else "", language="jvm")
    root = blocks[-1]
    frames = _full_stack(blocks)
    crash_type, message = root.crash_type, root.message
    inner = _exception(message) if crash_type in _COMPILER_WRAPPERS else None
    if inner:
        crash_type, message = inner
    causes = tuple(
        ParsedTrace(format=FORMAT, crash_type=b.crash_type, message=b.message, frames=tuple(b.frames), language="jvm")
        for b in blocks[:-1]
    )
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=tuple(frames),
        causes=causes,
        language="jvm",
    )
