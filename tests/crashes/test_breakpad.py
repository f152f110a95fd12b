"""Breakpad's minidump reports (crashes.traces.breakpad)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import breakpad
from tests.crashes.signing import sign
from tests.traces import ROOT

# ariya/phantomjs#12600 (https://github.com/ariya/phantomjs/issues/12600): minidump_stackwalk's
# output for a build without symbols.
PHANTOMJS = (ROOT / "breakpad" / "phantomjs_unsymbolized.txt").read_text()

# The frames rust-minidump/rust-minidump#157 shows for Firefox's IPC thread, under a crashed thread's head.
REVISION = "9519a923633720f5848a217f23790e15885dec5c"
SYMBOLIZED = f"""Crash reason:  EXC_BAD_ACCESS / KERN_INVALID_ADDRESS
Crash address: 0x0

Thread 0 (crashed)
 0  libsystem_kernel.dylib!mach_msg_trap + 0xa
    rax = 0x000000000100001f   rdx = 0x0000000000000000
    Found by: given as instruction pointer in context
 1  XUL!ReceivePort::WaitForMessage(MachReceiveMessage*, unsigned int) [mach_ipc_mac.mm:{REVISION} : 237 + 0xf]
    rbp = 0x000070000de10ef0   rsp = 0x000070000de10ee0
    Found by: previous frame's frame pointer
 2  XUL!mozilla::ipc::PortServerThread(void*) [SharedMemoryBasic_mach.mm:{REVISION} : 344 + 0xd]
    Found by: previous frame's frame pointer

Thread 1
 0  libsystem_kernel.dylib!kevent + 0xa
"""


def test_the_crash_reason_and_the_crashed_threads_frames():
    parsed = traces.parse(SYMBOLIZED)
    assert (parsed.format, parsed.crash_type) == (breakpad.FORMAT, "EXC_BAD_ACCESS")
    second = parsed.frames[1]
    assert (second.function, second.file, second.line, second.module) == (
        "ReceivePort::WaitForMessage",
        "mach_ipc_mac.mm",
        237,
        "XUL",
    )
    assert len(parsed.frames) == 3  # the next thread's are not the crash's
    assert sign(SYMBOLIZED).frames == ("ReceivePort::WaitForMessage", "mozilla::ipc::PortServerThread")
    # Another build: other source revisions and offsets, the same crash.
    rebuilt = SYMBOLIZED.replace(REVISION, "0e1f" * 10).replace("+ 0xf]", "+ 0x13]")
    assert sign(rebuilt).digest == sign(SYMBOLIZED).digest


def test_frames_without_symbols_name_nothing_and_the_reason_alone_is_no_identity():
    parsed = traces.parse(PHANTOMJS)
    assert parsed.format == breakpad.FORMAT and parsed.crash_type == "SIGSEGV"
    assert all(not frame.function for frame in parsed.frames)
    assert "no identifying line: a bucket of its own" in sign(PHANTOMJS, "phantomjs").repairs


def test_a_named_crashed_thread_and_a_wrapped_frame_line():
    # rust-minidump names the thread ("Thread 0 main (crashed) - tid: 4242"); a mail client wraps a long
    # frame at its width.
    named = SYMBOLIZED.replace("Thread 0 (crashed)", "Thread 0 main (crashed) - tid: 4242")
    assert traces.parse(named).frames == traces.parse(SYMBOLIZED).frames
    first = " 1  XUL!ReceivePort::WaitForMessage(MachReceiveMessage*, unsigned int) [mach_ipc_mac.mm:"
    assert first in SYMBOLIZED
    wrapped = SYMBOLIZED.replace(first, first + "\n", 1)
    assert [frame.function for frame in traces.parse(wrapped).frames][2] == "mozilla::ipc::PortServerThread"


def test_an_apps_own_crash_reason_still_names_its_crash():
    # Not Breakpad's "Crash reason:  SIGSEGV": an app's handler saying what failed.
    signature = sign("Crash reason: Assertion failed: texture != nullptr (renderer.cpp:120)\n", "app")
    assert "no identifying line: a bucket of its own" not in signature.repairs
