"""Native frames that say less than they seem to (signature v19), on real reports (tests/traces).

A frame the symbolizer named by its place alone is that place, not its whole file: mjs's crashes at
mjs.c:7263 and mjs.c:13480 (cesanta/mjs#265, #267) are two bugs, which one key ("mjs.c") merged.
glibc's allocator noticing a corrupt heap (malloc_consolidate, _int_malloc, malloc_printerr) is where
every caller of malloc would be stopped (systemd/systemd#29906: systemd's own sd_bus_new is the frame).
GLib's signal emission, libffi's calls, libwayland's dispatch and the OpenMP runtime run whatever they
were handed, as Qt's event loop does.
"""

from __future__ import annotations

import pytest

from tests.crashes.signing import sign
from tests.traces import ROOT


def _fixture(name: str) -> str:
    return (ROOT / f"{name}.txt").read_text()


def test_a_nameless_frame_is_its_file_and_line():
    one = sign(_fixture("sanitizer/asan_nameless_frame_mjs_7263"), "mjs")
    other = sign(_fixture("sanitizer/asan_nameless_frame_mjs_13480"), "mjs")
    assert one.frames[0] == "mjs.c:7263" and other.frames[0] == "mjs.c:13480"
    assert one.digest != other.digest


def test_glibcs_allocator_is_no_frame_of_the_crash():
    signed = sign(_fixture("gdb/malloc_consolidate_systemd_sd_bus_new"), "systemd")
    assert signed.frames[:2] == ("malloc_multiply", "sd_bus_new")


@pytest.mark.parametrize(
    "runtime",
    [
        "g_closure_invoke",
        "g_signal_emit_valist",
        "g_cclosure_marshal_VOID__DOUBLEv",
        "ffi_call_unix64",
        "wl_signal_emit_mutable",
        "__kmp_invoke_microtask",
        "GOMP_parallel",
        "malloc_printerr",
    ],
)
def test_a_runtime_running_what_it_was_handed_is_no_frame(runtime):
    text = (
        "Program received signal SIGSEGV, Segmentation fault.\n"
        f"#0  0x00007ffff5e88999 in {runtime} () from /lib/x86_64-linux-gnu/libx.so.0\n"
        "#1  0x0000555555569a4c in seek_handler (widget=0x555555a63400) at gmpv_control_box.c:60\n"
        "#2  0x0000555555569b00 in update_state (data=0x1) at gmpv_player.c:12\n"
    )
    assert sign(text).frames[:2] == ("seek_handler", "update_state")


def test_cpythons_interpreter_is_no_frame_under_an_extensions_crash():
    # scipy/scipy#13147's gdb backtrace: the extension's frame, then CPython's loop and calls, which every
    # crash of every extension module passes through.
    text = (
        'Thread 1 "python" received signal SIGSEGV, Segmentation fault.\n'
        "#0  0x00007fffe2b1c2a0 in dgesdd_ () from /envs/rl/lib/python3.7/site-packages/scipy/linalg/"
        "_flapack.cpython-37m-x86_64-linux-gnu.so\n"
        "#1  0x00005555556cc61b in _PyObject_FastCallKeywords ()\n"
        "#2  0x0000555555728a79 in _PyEval_EvalFrameDefault ()\n"
        "#3  0x0000555555669059 in _PyEval_EvalCodeWithName ()\n"
        "#4  0x00005555556cb2a5 in _PyFunction_FastCallKeywords ()\n"
        "#5  0x00005555556cb2a5 in cfunction_call ()\n"
        "#6  0x00005555556cb2a5 in method_vectorcall_VARARGS ()\n"
        "#7  0x00005555556cb2a5 in Py_BytesMain ()\n"
    )
    assert sign(text).frames == ("dgesdd_",)


def test_a_backtrace_symbols_module_named_by_its_process_title_is_read():
    # redis/redis#14370 (v19): Redis sets its process title, which backtrace_symbols prints as the module.
    text = (
        "89013:M 18 Sep 2025 20:14:39.060 # Redis 6.2.7 crashed by signal: 11, si_code: 1\n\n"
        "------ STACK TRACE ------\nBacktrace:\n"
        "/lib64/libc.so.6(+0x54db0)[0x7fc0bbe54db0]\n"
        "/usr/bin/redis-server 127.0.0.1:6379(decrRefCount+0xe)[0x55d74074121e]\n"
        "/usr/bin/redis-server 127.0.0.1:6379(slowlogFreeEntry+0x29)[0x55d740799469]\n"
        "/usr/bin/redis-server 127.0.0.1:6379(listDelNode+0x37)[0x55d740717857]\n"
    )
    signed = sign(text, "redis")
    assert signed.trace_format == "glibc-backtrace"
    assert signed.frames == ("decrRefCount", "slowlogFreeEntry", "listDelNode")
    elsewhere = text.replace("127.0.0.1:6379", "*:6380")
    assert sign(elsewhere, "redis").digest == signed.digest


def test_a_handlers_padded_frames_are_read_as_gdbs():
    # fluent/fluent-bit#6958 (v19): its handler prints "#3  0x559e…      in  flb_sds_printf() at src/flb_sds.c:429";
    # frames libbacktrace could not name ("???() at ???:0") name nothing.
    text = (
        "[2023/03/06 08:56:47] [engine] caught signal (SIGSEGV)\n"
        "#0  0x7f07e2fcd319      in  ???() at ???:0\n"
        "#1  0x7f07e2ed7f75      in  ???() at ???:0\n"
        "#3  0x559e77e486f2      in  flb_sds_printf() at src/flb_sds.c:429\n"
        "#4  0x559e77ff0452      in  debug_event_mask() at plugins/in_tail/tail_fs_inotify.c:69\n"
        "#5  0x559e77ff0924      in  tail_fs_event() at plugins/in_tail/tail_fs_inotify.c:199\n"
    )
    signed = sign(text)
    assert signed.trace_format == "gdb"
    assert signed.frames == ("flb_sds_printf", "debug_event_mask", "tail_fs_event")


@pytest.mark.parametrize(
    "reporter",
    [
        # include-what-you-use#1162, Dart's VM (dart-lang/sdk#27019), DuckDB's asserts and its internal
        # exception's constructor, Redis's panic (redis/redis#11166): where a failure is reported (v19).
        "clang::include_what_you_use::FatalMessageEmitter::~FatalMessageEmitter",
        "dart::DynamicAssertionHelper::Fail",
        "duckdb::DuckDBAssertInternal",
        "duckdb::InternalException::InternalException",
        "_serverPanic",
    ],
)
def test_a_programs_own_failure_reporting_is_no_frame(reporter):
    text = (
        "Program received signal SIGABRT, Aborted.\n"
        f"#0  0x0000555555569a00 in {reporter} (this=0x1) at src/report.cc:10\n"
        "#1  0x0000555555569a4c in seek_handler (widget=0x555555a63400) at gmpv_control_box.c:60\n"
        "#2  0x0000555555569b00 in update_state (data=0x1) at gmpv_player.c:12\n"
    )
    assert sign(text).frames[:2] == ("seek_handler", "update_state")


def test_the_c_librarys_inlined_fortify_wrappers_are_no_frames():
    # mpruett/audiofile#48 (v19): "read /usr/include/x86_64-linux-gnu/bits/unistd.h:44", glibc's wrapper of
    # read(2) inlined into the caller; a C++ header a program's own function was inlined from is its own.
    text = (
        "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 at pc 0x1 bp 0x2 sp 0x3\n"
        "WRITE of size 4096 at 0x6 thread T0\n"
        "    #0 0x4a7f2f in __interceptor_read (/audiofile/sfconvert+0x4a7f2f)\n"
        "    #1 0x43d865 in read /usr/include/x86_64-linux-gnu/bits/unistd.h:44\n"
        "    #2 0x43d865 in FilePOSIX::read(void*, unsigned long) /audiofile/libaudiofile/File.cpp:221\n"
        "    #3 0x436d05 in PCM::runPull() /usr/include/c++/12/optional:1007\n"
    )
    assert sign(text).frames == ("FilePOSIX::read", "PCM::runPull")


def test_markdown_escaped_frame_numbers_are_frame_numbers():
    # yaml/libyaml#225 (v19): "    \#0 0x576847 in …" and "\# 1 …", escaped by hand against Markdown's heading.
    text = (
        "==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60 at pc 0x1 bp 0x2 sp 0x3\n"
        "READ of size 4 at 0x60 thread T0\n"
        "    \\#0 0x576847 in yaml_emitter_emit_flow_mapping_key /src/libyaml/src/emitter.c:810:27\n"
        "    \\# 1 0x56b0a8 in yaml_emitter_emit /src/libyaml/src/emitter.c:300:15\n"
        "    \\#2 0x56b0a9 in yaml_emitter_dump_node /src/libyaml/src/dumper.c:300:15\n"
    )
    signed = sign(text)
    assert signed.frames == ("yaml_emitter_emit_flow_mapping_key", "yaml_emitter_emit", "yaml_emitter_dump_node")
    assert sign(text.replace("\\# ", "#").replace("\\#", "#")).digest == signed.digest
