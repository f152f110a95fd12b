"""A JVM's own crash (HotSpot's ``hs_err`` report), as Minecraft's, IntelliJ's and JavaFX users paste it.

``# A fatal error has been detected by the Java Runtime Environment:``
``#  SIGSEGV (0xb) at pc=0x00007f3b2c5e1a2c, pid=12345, tid=12346``
``# Problematic frame:``
``# C  [liblwjgl.so+0x1a2c]  Java_org_lwjgl_system_JNI_invokePV+0x2c``

and, in the whole ``hs_err_pid….log``, the crashed thread's stack under
``Native frames:``, one frame a line, marked by its kind: ``C`` native code,
``V`` the VM's, ``j`` interpreted and ``J`` compiled Java. The crash is the
error the banner names (a signal or Windows exception without its
addresses, the VM's ``Internal Error (file)`` or its failed guarantee's
message, an out-of-memory error) and the frames are the stack's, else the
problematic frame alone. A native frame without its symbol
(``[atio6axx.dll+0x1a2c]``: a graphics driver's) is named by its module:
its offset moves with every driver release, the module says whose code
crashed. Every such report opens with the same banner, which named no
crash: before this format was read, every JVM crash of a project shared
one bucket by it.
"""

from __future__ import annotations

import itertools
import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, find_lines, mask_message

FORMAT = "hotspot"
_BANNER = "A fatal error has been detected by the Java Runtime Environment"
# "#  SIGSEGV (0xb) at pc=…", "#  EXCEPTION_ACCESS_VIOLATION (0xc0000005) at pc=…",
# "#  Internal Error (g1ConcurrentMark.cpp:1234), pid=…", "#  Out of Memory Error (os_linux.cpp:2749), pid=…";
# a copy from a rendered page may have lost the "#" (Markdown read it as a heading's).
_SIGNAL = re.compile(r"^#?\s*(?P<signal>SIG[A-Z]{2,8}|EXCEPTION_[A-Z_]{2,60}) \(0x[0-9a-fA-F]{1,8}\) at pc=")
# (Since JDK 9 the file is named by its path: "Internal Error (/work/src/hotspot/share/gc/x.cpp:1234)".)
_INTERNAL = re.compile(
    r"^#?\s*(?P<internal>Internal Error|Out of Memory Error) \((?:[^()\s]{0,500}[/\\])?(?P<where>[\w.]{1,200}?)"
    r"(?::\d{1,9})?\)"
)
# The failed check an Internal Error names on its next lines: "#  guarantee(x) failed: msg",
# "#  assert(x) failed: msg", "#  Error: ShouldNotReachHere()", JDK 9+'s "#  fatal error: msg".
_CHECK = re.compile(
    r"^#?\s*(?P<check>(?:guarantee|assert)\(.{1,500}?\) failed: .{0,300}|(?:fatal error|Error): .{1,300})$"
)
# "C  [libc.so.6+0x9a2c]  memmove+0x2c", "V  [libjvm.so+0x5e1a2c]  G1Foo::bar(int)+0x2c",
# "j  org.lwjgl.system.JNI.invokePV(JJ)V+0", "J 1234 c2 java.lang.String.hashCode()I java.base@17 (49 bytes) @ 0x…",
# "C  [atio6axx.dll+0x1a2c]" (no symbol); after "# " on the problematic frame's line.
_FRAME = re.compile(
    r"^(?:#)?\s*(?P<kind>[CVvjJA])\s+(?:\d{1,9}%?\s+(?:[cC][12]|jvmci|JVMCI)\s+)?(?:\[(?P<module>[^\]\s+]{1,300})"
    r"(?:\+0x[0-9a-fA-F]{1,16})?\]\s*)?(?P<rest>.{0,2000})$"
)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{1,16}$")
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]{1,16}$|\+\d{1,9}$")
# A Java frame's method, without its signature: "org.a.B.c(JJ)V+0" -> "org.a.B.c".
_JAVA_METHOD = re.compile(r"^(?P<method>[\w$.<>]{1,1000}?)\(")


def recognize(text: str) -> bool:
    """True for HotSpot's crash banner, or its error line with the problematic frame below (pasted without it)."""
    if _BANNER in text:
        return True
    return "Problematic frame:" in text and bool(
        find_lines(text, _SIGNAL, 1, " at pc=") or find_lines(text, _INTERNAL, 1, " Error (")
    )


def _frame(found: re.Match) -> Frame:
    rest = found["rest"].strip()
    module = found["module"] or ""
    if found["kind"] in "jJ":
        method = _JAVA_METHOD.match(rest)
        return Frame(function=method["method"] if method else rest.split(" ", 1)[0], module=module)
    name = _OFFSET.sub("", rest.split("  ", 1)[0].strip())
    if _ADDRESS.match(name):
        name = ""  # "C  0x00007f3b2c5e1a2c": an address moves with every run
    # A native frame without its symbol names its module (a driver's offset moves with each release).
    return Frame(function=name or module.rsplit("/", 1)[-1], module=module)


def _native_frames(lines: list[str]) -> list[Frame]:
    """The crashed thread's stack under "Native frames:" (or "Java frames:" alone), or []."""
    headers = [index for index, line in enumerate(lines) if line.startswith(("Native frames:", "Java frames:"))]
    for index in headers[:2]:
        frames = []
        for following in itertools.islice(lines, index + 1, index + 1 + 4 * MAX_FRAMES):
            found = _FRAME.match(following[:MAX_LINE]) if following.strip() else None
            if found is None:
                break
            frames.append(_frame(found))
        if frames:
            return frames[:MAX_FRAMES]
    return []


def _problematic_frame(lines: list[str]) -> list[Frame]:
    for index, line in enumerate(lines[:-1]):
        if "Problematic frame:" in line:
            found = _FRAME.match(lines[index + 1][:MAX_LINE])
            return [_frame(found)] if found else []
    return []


def _crash_type(text: str) -> tuple[str, str]:
    """(crash type, message) from the banner's error line and the check it names below it."""
    signal = find_lines(text, _SIGNAL, 1, " at pc=")
    if signal:
        return signal[0]["signal"], ""
    internal = find_lines(text, _INTERNAL, 1, " Error (")
    if not internal:
        return "JVM crash", ""
    found = internal[0]
    kind = f"{found['internal']} ({found['where']})"
    below = text[text.find(found.string) + len(found.string) :].split("\n", 3)[1:3]
    for line in below:
        check = _CHECK.match(line[:MAX_LINE])
        if check:
            said = check["check"].strip()
            return f"{kind}: {mask_message(said, 200)}", said
    return kind, ""


def parse(text: str) -> ParsedTrace:
    """The banner's error and the crashed thread's frames (the problematic frame without the whole log)."""
    lines = text.split("\n")
    crash_type, message = _crash_type(text)
    frames = _native_frames(lines) or _problematic_frame(lines)
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="native")
