"""gdb backtraces of a program whose crash handler ran, and of every thread ("thread apply all bt").

A handler's frames (KDE's KCrash, a program's own segv_handler) sit above the
"<signal handler called>" frame gdb prints for the signal trampoline, or
DrKonqi replaces them with "[KCrash Handler]": they are the same in every
crash of the program, and keying on them put every crash in one bucket.
"""

from __future__ import annotations

from crashes import traces
from tests.crashes.signing import record_trace, sign, sign_record

# kvirc/KVIrc#594 (https://github.com/kvirc/KVIrc/issues/594), as DrKonqi printed it.
KVIRC = """\
[Thread debugging using libthread_db enabled]
[New Thread 0xb5c49700 (LWP 25013)]
0xb7fdc430 in __kernel_vsyscall ()
[Current thread is 0 (process 25013)]

Thread 1 (Thread 0xb5c49700 (LWP 25013)):
#0  0xb7fdc430 in __kernel_vsyscall ()
#1  0xb7f0d03b in waitpid () from /lib/tls/i686/cmov/libpthread.so.0
#2  0xb6e3d18f in ?? () from /usr/lib/libkdeui.so.5
#3  0xb6e3e0e3 in KCrash::defaultCrashHandler () from /usr/lib/libkdeui.so.5
#4  <signal handler called>
#5  0x08150160 in KviQuery::ownMessage ()
#6  0xbf9f6ac4 in ?? ()
#7  0xb699c170 in ?? () from /lib/tls/i686/cmov/libc.so.6

Backtrace stopped: previous frame inner to this frame (corrupt stack?)
#0  0xb7fdc430 in __kernel_vsyscall ()
"""


def test_the_crash_handlers_frames_above_the_signal_trampoline_are_not_the_crash():
    parsed = traces.parse(KVIRC)
    assert parsed.format == "gdb"
    assert parsed.frames[0].function == "KviQuery::ownMessage"
    assert sign(KVIRC).frames[0] == "KviQuery::ownMessage"
    # Another crash of the same program is another bucket (they shared KCrash::defaultCrashHandler).
    other = KVIRC.replace("KviQuery::ownMessage", "KviChannel::ownMessage")
    assert sign(other).digest != sign(KVIRC).digest


def test_drkonqis_marker_stands_for_the_handlers_frames():
    marked = KVIRC.replace(
        "#0  0xb7fdc430 in __kernel_vsyscall ()\n#1  0xb7f0d03b in waitpid () from /lib/tls/i686/cmov/libpthread.so.0\n"
        "#2  0xb6e3d18f in ?? () from /usr/lib/libkdeui.so.5\n"
        "#3  0xb6e3e0e3 in KCrash::defaultCrashHandler () from /usr/lib/libkdeui.so.5\n#4  <signal handler called>\n",
        "[KCrash Handler]\n",
        1,
    )
    assert "[KCrash Handler]\n#5  0x08150160 in KviQuery::ownMessage" in marked
    assert sign(marked).frames == sign(KVIRC).frames


def test_of_all_threads_the_one_the_handler_ran_in_is_the_crash():
    waiting = (
        "Thread 2 (Thread 0xb3a1b700 (LWP 25014)):\n"
        "#0  0xb7fdc430 in __kernel_vsyscall ()\n"
        "#1  0xb6d13816 in pthread_cond_wait@@GLIBC_2.3.2 () from /lib/libpthread.so.0\n"
        "#2  0xb3ace16c in xine_event_wait () from /usr/lib/libxine.so.1\n\n"
    )
    body = KVIRC[KVIRC.index("Thread 1") :]
    assert sign(waiting + body).frames == sign(KVIRC).frames
    # Without a handler, the thread gdb says it stopped in.
    plain = body.replace("#3  0xb6e3e0e3 in KCrash::defaultCrashHandler () from /usr/lib/libkdeui.so.5\n", "")
    plain = plain.replace("#4  <signal handler called>\n", "").replace(
        "#1  0xb7f0d03b in waitpid ()", "#1  0xb7f0d03b in f ()"
    )
    current = "[Current thread is 1 (Thread 0xb5c49700 (LWP 25013))]\n\n" + waiting + plain
    assert [frame.function for frame in traces.parse(current).frames][:2] == ["__kernel_vsyscall", "f"]
    assert traces.parse(waiting + plain).frames[2].function == "xine_event_wait"  # else the first printed


def test_a_crash_inside_a_signal_handler_keeps_its_frames():
    text = (
        "Program received signal SIGSEGV, Segmentation fault.\n"
        "#0  0x0000555555555189 in tick (n=0) at alarm.c:7\n"
        "#1  0x00005555555551b0 in on_alarm (sig=14) at alarm.c:12\n"
        "#2  <signal handler called>\n"
        "#3  0x00005555555551e0 in main () at alarm.c:20\n"
    )
    assert [frame.function for frame in traces.parse(text).frames][:3] == ["tick", "on_alarm", "main"]


def test_newer_gdbs_trampoline_and_library_frames():
    # gdb 12 on: the trampoline as a frame of the C library, and "at /lib64/libc.so.6" for a library
    # without debug information (older gdb said "from").
    text = (
        "Thread 1 (Thread 0x7fbc1d6e4a40 (LWP 2345)):\n"
        "#0  0x00007fbc1e06a2f2 in waitpid () at /lib64/libc.so.6\n"
        "#1  0x000000000066bf99 in crash_handler (sig_num=11) at ../app/signals.c:206\n"
        "#2  0x00007fbc1df9dfd0 in <signal handler called> () at /lib64/libc.so.6\n"
        "#3  0x00000000004e3f2a in gimp_layer_tree_view_drop (view=0x2a3c1e0) at gimplayertreeview.c:812\n"
        "#4  0x00000000004e5a11 in gimp_container_tree_view_drop_cb () at gimpcontainertreeview.c:301\n"
    )
    parsed = traces.parse(text)
    assert [frame.function for frame in parsed.frames] == [
        "gimp_layer_tree_view_drop",
        "gimp_container_tree_view_drop_cb",
    ]


def test_gdbs_current_thread_comes_before_a_thread_parked_in_a_signal_handler():
    # A runtime parks its other threads in a signal handler of its own (WebKit's GC suspends them):
    # the thread gdb names as current (a core's first: the one that crashed) is the crash.
    parked = (
        "Thread 3 (Thread 0x7f00 (LWP 3)):\n"
        "#0  0x1 in __GI___poll () at /lib64/libc.so.6\n"
        "#1  0x2 in WTF::Thread::signalHandlerSuspendResume () at /lib64/libjavascriptcoregtk-4.1.so.0\n"
        "#2  <signal handler called>\n"
        "#3  0x3 in g_main_context_iterate () at /lib64/libglib-2.0.so.0\n"
    )
    crashed = (
        "Thread 1 (Thread 0x7f01 (LWP 1)):\n"
        "#0  0x4 in webkit_web_view_get_uri (web_view=0x0) at WebKitWebView.cpp:2876\n"
        "#1  0x5 in ephy_window_update_title (window=0x55) at ephy-window.c:512\n"
    )
    text = "[Current thread is 1 (Thread 0x7f01 (LWP 1))]\n" + parked + crashed
    assert traces.parse(text).frames[0].function == "webkit_web_view_get_uri"


def test_where_gdb_says_a_signal_stopped_the_program_is_its_frame_and_the_notice_no_identity():
    # obsproject/obs-studio#8986 (tytan652: "Duplicate of #8056"): gdb's stop report alone, no `bt`.
    signature = sign_record("obsproject/obs-studio#8986")
    assert (signature.trace_format, signature.crash_type, signature.frames) == ("gdb", "SIGSEGV", ("XDisplayString",))
    # The notice alone names no crash: two such reports of one program are not one bucket by it.
    notice = 'Thread 1 "obs" received signal SIGSEGV, Segmentation fault.\n'
    alone = sign(notice)
    assert "no identifying line: a bucket of its own" in alone.repairs
    other = notice + "0x00007ffff7a4 in obs_source_release (source=0x0) at /build/obs/libobs/obs-source.c:512\n"
    assert sign(other).frames == ("obs_source_release",) and sign(other).digest != signature.digest


# electron/electron#33889 and #9236: Chromium's signal handler, its frames unsymbolized.
ELECTRON_UNSYMBOLIZED = """Received signal 11 SEGV_MAPERR 000000000000
#0 0x561dcb863463 (/tmp/app/path+0x4d1b462)
#1 0x561dcb8fba5a (/tmp/app/path+0x4db3a59)
#2 0x7f99beaab560 (/usr/lib/libc.so.6+0x4255f)
#3 0x561dc8c807a4 (/tmp/app/path+0x21387a3)
"""
ELECTRON_UNKNOWN = """Received signal 11 SEGV_MAPERR 000000000000
#0 0x7f5f5acc9d07 <unknown>
#1 0x7f5f48ecffe0 <unknown>
#2 0x7f5f6012f39c <unknown>
  r8: 00000000beeddead  r9: 00000000beeddead r10: 000009af72c938f0 r11: 00000000beeddead
[end of stack trace]
"""


def test_chromiums_unsymbolized_frames_are_no_calls_and_its_signal_line_no_identity():
    # "#0 0x561dcb863463 (/tmp/app/path+0x4d1b462)" once read as a call of "0x561dcb863463": every run
    # its own addresses. And "Received signal 11 SEGV_MAPERR …" is what every crash of the app prints.
    for text in (ELECTRON_UNSYMBOLIZED, ELECTRON_UNKNOWN):
        signature = sign(text, "app")
        assert not any(frame.startswith("0x") for frame in signature.frames)
        assert "no identifying line: a bucket of its own" in signature.repairs
    assert sign(ELECTRON_UNSYMBOLIZED, "app").digest != sign(ELECTRON_UNKNOWN, "app").digest


def test_prose_saying_received_signal_first_does_not_hide_gdbs_notice():
    text = (
        "My app received signal SIGSEGV when I opened the file.\n"
        'Thread 1 "obs" received signal SIGSEGV, Segmentation fault.\n'
        "XDisplayString (dpy=0x0) at /usr/src/debug/libx11/libX11-1.8.4/src/Macros.c:119\n"
    )
    assert sign(text).frames == ("XDisplayString",)


def test_a_stop_in_an_anonymous_namespace_with_its_place_on_the_next_line():
    # Rust-GCC/gccrs#382: gdb's stop report, the C++ name in anonymous namespaces and its long line's
    # "at file:line" moved by gdb to the next line.
    signature = sign_record("Rust-GCC/gccrs#382")
    assert (signature.trace_format, signature.crash_type) == ("gdb", "SIGSEGV")
    assert signature.frames == ("TypeCheckExpr::Resolve",)
    parsed = traces.parse(record_trace("Rust-GCC/gccrs#382"))
    assert parsed.frames[0].file.endswith("rust-hir-type-check-expr.h") and parsed.frames[0].line == 45


def test_a_cpp_frame_printed_with_its_signature_and_its_arguments_is_read():
    # qutebrowser/qutebrowser#3619 (v19): gdb prints a C++ function with its parameter types and const, then
    # its arguments: "in Ns::C::f() const (this=0x0) at …/web_contents_adapter.cpp:1188".
    text = (
        'Thread 1 "qutebrowser" received signal SIGSEGV, Segmentation fault.\n'
        "#0  0x00007fffe3c3a2b0 in QtWebEngineCore::WebContentsAdapter::webContents() const (this=0x0) at "
        "/build/qtwebengine/src/core/web_contents_adapter.cpp:1188\n"
        "#1  0x00007fffe3c3b000 in QtWebEngineCore::WebContentsAdapter::load(QUrl const&) (this=0x5555, url=...) at "
        "/build/qtwebengine/src/core/web_contents_adapter.cpp:600\n"
    )
    signed = sign(text)
    assert signed.trace_format == "gdb"
    assert signed.frames == (
        "QtWebEngineCore::WebContentsAdapter::webContents",
        "QtWebEngineCore::WebContentsAdapter::load",
    )
