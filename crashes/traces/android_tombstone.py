"""Android's native crash reports (tombstones, as debuggerd prints them to logcat and to a file).

``signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0``
``Abort message: 'Check failed: x != nullptr'``
``backtrace:``
``      #00 pc 00000000001a4f2c  /data/app/~~Ab==/com.example-Xy==/lib/arm64/libflutter.so (BuildId: 1a2b)``
``      #01 pc 00000000001a5010  /data/app/…/libflutter.so (flutter::Rasterizer::Draw(…)+124) (BuildId: 1a2b)``
``      #02 pc 00000000000c8f3c  /apex/com.android.runtime/lib64/bionic/libc.so (__pthread_start(void*)+204)``

Every NDK program's crash (Flutter's engine, React Native's, a game's) is
reported this way. The crash is the signal without its code, and with
``Abort message:`` its message; the frames are the backtrace's symbols
without their offsets (``+124``), each in its library by file name (the
install path holds a per-install id). A frame without its symbol names
nothing: its pc moves with every build. The Android system's libraries
(bionic's libc, ART) are skipped as any C library is.
"""

from __future__ import annotations

import re

from crashes.frames import MAX_FRAMES
from crashes.model import Frame, ParsedTrace
from crashes.traces.llvm import function_name
from crashes.traces.text import MAX_LINE, file_name, find_lines, lines_of, mask_message

FORMAT = "android-tombstone"
# "#00 pc 00000000001a4f2c  /path/libx.so (symbol+124) (BuildId: …)"; older Androids print 8 hex digits.
_FRAME = re.compile(r"^\s*#(?P<index>\d{2,3})\s+pc\s+(?:0x)?[0-9a-fA-F]{4,16}\s+(?P<rest>\S.{0,2000})$")
_SIGNAL = re.compile(r"^\s*signal \d{1,3} \((?P<signal>SIG[A-Z]{2,8})\)")
_ABORT = re.compile(r"^\s*Abort message: '(?P<message>.{1,1000})'\s*$")
_OFFSET = re.compile(r"\+\d{1,12}$")
# A parenthesised group that is no symbol: the library's build id, its offset inside an APK, "(deleted)".
_NOT_SYMBOL = re.compile(r"^(?:BuildId: |offset 0x|deleted$)")
_FRAMES_WANTED = 2


def recognize(text: str) -> bool:
    """True for two or more "#NN pc …" frame lines."""
    if " pc " not in text:
        return False
    return len(find_lines(text, _FRAME, _FRAMES_WANTED, " pc ")) >= _FRAMES_WANTED


def _groups(rest: str) -> tuple[str, list[str]]:
    """The library's path and the parenthesised groups after it, nested parentheses kept whole."""
    path, _, tail = rest.partition(" ")
    groups, depth, start = [], 0, -1
    for index, char in enumerate(tail):
        if char == "(":
            if depth == 0:
                start = index + 1
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                groups.append(tail[start:index])
    return path, groups


def _frame(rest: str) -> Frame:
    path, groups = _groups(rest)
    symbol = next((group for group in groups if not _NOT_SYMBOL.match(group)), "")
    # "base.apk!libflutter.so": the library inside the APK.
    module = file_name(path).rsplit("!", 1)[-1]
    return Frame(function=function_name(_OFFSET.sub("", symbol.strip())) if symbol else "", module=module)


def parse(text: str) -> ParsedTrace:
    frames = []
    for line in lines_of(text):
        if " pc " not in line:
            continue
        found = _FRAME.match(line[:MAX_LINE])
        if found is None:
            continue
        # Only the first backtrace: a tombstone goes on with other threads' ("--- --- ---") and memory maps.
        if frames and found["index"] in ("00", "000"):
            break
        frames.append(_frame(found["rest"].rstrip()))
        if len(frames) >= MAX_FRAMES:
            break
    signal = find_lines(text, _SIGNAL, 1, "signal ")
    abort = find_lines(text, _ABORT, 1, "Abort message:")
    message = abort[0]["message"].strip() if abort else ""
    # An abort's message names the check that failed ("Check failed: …"), as an assertion's text does.
    crash_type = f"abort: {mask_message(message, 160)}" if message else (signal[0]["signal"] if signal else "unknown")
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=message, frames=tuple(frames), language="native")
