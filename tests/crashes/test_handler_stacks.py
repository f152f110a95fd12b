"""Stacks a C++ program's or Node's own crash handler prints (signature v22), on real reports (tests/traces/v22).

Boost.Stacktrace's "N# name at file:line" frames (qBittorrent's handler, on Windows and Linux) and Node's and
V8's fatal reports (" N: 0xADDR name [node]" under "FATAL ERROR: …", "# Check failed: …" or an assertion)
were read by no parser before v22: each report was keyed on its first lines, so one stack pasted twice with
a different line above it made two buckets.
"""

from __future__ import annotations

from crashes import traces
from tests.crashes.signing import sign
from tests.traces import read_report


def test_boost_stacktraces_frames_below_the_handlers_are_the_crash():
    # qbittorrent/qBittorrent#18311 and #18550 (closed as its duplicate): the handler's frames, then Windows'
    # dispatch of the exception (KiUserExceptionDispatcher), then the crash; #18550 cut inside a path.
    one = sign(read_report("v22/boost_stacktrace_windows_qbittorrent_18311"), "qbittorrent")
    other = sign(read_report("v22/boost_stacktrace_windows_cut_qbittorrent_18550"), "qbittorrent")
    assert (one.trace_format, one.crash_type) == ("boost-stacktrace", "SIGSEGV")
    assert one.frames == (
        "updateTrackerEntry",
        "BitTorrent::TorrentImpl::refreshTrackerEntries",
        "BitTorrent::TorrentImpl::trackers",
    )
    assert one.digest == other.digest
    # On Linux (#19183, the same bug): the C library's unnamed signal trampoline ends the handler's frames.
    linux = sign(read_report("v22/boost_stacktrace_linux_qbittorrent_19183"), "qbittorrent")
    assert linux.frames[:2] == ("BitTorrent::TorrentImpl::refreshTrackerEntries", "BitTorrent::TorrentImpl::trackers")


def test_numbered_lines_that_are_no_stack_are_no_boost_frames():
    parsed = traces.parse("Steps:\n1# open the file\n3# save it\n4# close it\nand then it crashed\n")
    assert parsed is None or parsed.format != "boost-stacktrace"


def test_v8s_failed_check_is_one_bucket_however_much_output_cut_into_it():
    # vitest-dev/vitest#1171 and #3940: V8's "# Check failed: result.second." over Node's native stack; in #3940
    # the test runner's output cut into it and the stack shows from its third frame.
    one = sign(read_report("v22/v8_check_failed_vitest_1171"), "vitest")
    other = sign(read_report("v22/v8_check_failed_interleaved_vitest_3940"), "vitest")
    assert one.trace_format == other.trace_format == "node-native"
    assert one.crash_type == "Check failed: result.second"
    assert one.digest == other.digest


def test_nodes_fatal_error_and_assertion_are_read_with_the_stack_below_the_reporting():
    fatal = sign(read_report("v22/node_fatal_error_node_27433"), "node")
    assert fatal.crash_type == "FATAL ERROR: vN::ToLocalChecked Empty MaybeLocal"
    # nodejs/node#34475: Node's assertion line, then node::Abort and node::Assert above the frame that failed.
    parsed = traces.parse(read_report("v22/node_assertion_node_34475"))
    assert parsed.format == "node-native"
    assert parsed.crash_type == "Assertion `(execute_depth_) == (N)' failed"
    assert parsed.frames[0].function.startswith("node::(anonymous namespace)::Parser::Execute(")
    # Node 6 printed its frames without addresses (nodejs/node#13082).
    old = traces.parse(read_report("v22/node_assertion_node_13082"))
    assert old.format == "node-native"
    assert [frame.function for frame in old.frames[:1]] == [
        "node::ZCtx::Close(v8::FunctionCallbackInfo<v8::Value> const&)"
    ]


def test_a_javascript_heap_out_of_memory_names_no_bug():
    text = (
        "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory\n"
        " 1: 0xb09c10 node::Abort() [node]\n 2: 0xa1c193 node::FatalError(char const*, char const*) [node]\n"
        " 3: 0xcf8dbe v8::Utils::ReportOOMFailure(v8::internal::Isolate*, char const*, bool) [node]\n"
        " 4: 0xcf9137 v8::internal::V8::FatalProcessOutOfMemory(v8::internal::Isolate*, char const*, bool) [node]\n"
        " 5: 0xeb09d5  [node]\n 6: 0xec0e11 v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace) [node]\n"
    )
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type, parsed.frames) == ("node-native", "out of memory", ())


def test_gdbs_stop_line_on_an_unknown_function_is_the_backtraces_first_frame():
    # swaywm/sway#7946: on loading a core gdb printed "#0 … in ?? () from /usr/lib/libc.so.6", then `bt full`
    # printed it again as "#0 … in ??? () at /usr/lib/libc.so.6": one stack, not a one-frame thread beside it.
    signed = sign(read_report("v22/gdb_unknown_stop_line_sway_7946"), "sway")
    assert signed.frames[0] == "wlr_xdg_toplevel_set_size"


def test_a_handlers_received_signal_banner_names_no_bug():
    # hyprwm/Hyprland#4096 and #2241, two bugs, each pasted up to its handler's own frames: "Hyprland received
    # signal 11 (Segmentation fault)" is every crash's.
    one = sign(read_report("v22/handler_banner_hyprland_4096"), "Hyprland")
    other = sign(read_report("v22/handler_banner_hyprland_2241"), "Hyprland")
    assert "no identifying line: a bucket of its own" in one.repairs
    assert one.digest != other.digest


def test_pytorchs_cpp_error_is_its_checks_function_and_the_frames_that_called_it():
    # DeepLink-org/deeplink.framework#109: a RuntimeError raised into Python from a device check; "Exception raised
    # from current_device at …" names the check, and below c10::Error's own frames is the call.
    parsed = traces.parse(read_report("v22/c10_error_deeplink_framework_109"))
    assert (parsed.format, parsed.site) == ("c10-error", "current_device")
    assert parsed.crash_type.startswith("RuntimeError: call cnrt error")
    assert [frame.function for frame in parsed.frames] == ["dipu::devapis::current_device()"]


def test_an_asynchronously_reported_cuda_error_names_neither_check_nor_frames():
    # vllm-project/vllm#8177: NCCL's watchdog reported "CUDA error: an illegal memory access was encountered" that
    # some earlier kernel caused; its check and frames are any such error's (vllm's #4108 and #9308, other bugs,
    # print the same).
    parsed = traces.parse(read_report("v22/c10_cuda_asynchronous_vllm_8177"))
    assert parsed.crash_type == "CUDA error: an illegal memory access was encountered"
    assert (parsed.site, parsed.frames) == ("", ())
    signed = sign(read_report("v22/c10_cuda_asynchronous_vllm_8177"), "vllm")
    assert "illegal memory access" not in signed.message


def test_node_reports_read_only_what_node_printed():
    # nodejs/node#43617 on Windows: each frame is the nearest exported symbol and an offset into it
    # ("v8::internal::CodeObjectRegistry::~CodeObjectRegistry+114207"): the offset is one build's.
    windows = traces.parse(read_report("v22/v8_check_failed_windows_node_43617"))
    assert windows.frames and not any(frame.function.rstrip("0123456789").endswith("+") for frame in windows.frames)
    # nodejs/node#34475: every frame below the assertion is Node's own; no frame-like text of the head
    # ("Local<v8::Value> node::(anonymous namespace)::Parser::Execute(…)") is read in their place.
    assert sign(read_report("v22/node_assertion_node_34475"), "node").frames == ()
    # A program's console.assert above Node's fatal error is the program's line, not the crash's.
    text = "Assertion failed: cache should be warm\n" + read_report("v22/node_fatal_error_node_27433")
    assert traces.parse(text).crash_type == "FATAL ERROR: vN::ToLocalChecked Empty MaybeLocal"


def test_later_readers_leave_other_formats_their_texts():
    # A Swift trap quoted above lldb's stack: the stack says whose trap it was.
    lldb = (
        "Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range\n"
        "(lldb) bt\n* thread #1, queue = 'com.apple.main-thread', stop reason = Fatal error: Index out of range\n"
        "    frame #0: 0x00000001a2b3c4d8 libswiftCore.dylib`_assertionFailure(_:_:file:line:flags:) + 1396\n"
        "  * frame #1: 0x0000000100a1b2c4 MyApp`TableController.row(at:) at TableController.swift:42:17\n"
        "    frame #2: 0x0000000100a1b3d0 MyApp`TableController.reload() at TableController.swift:30:9\n"
    )
    assert traces.parse(lldb).format == "lldb"
    # A Go panic that names a Rust file: Go's stack.
    go = (
        "panic: rust library returned error: ffi panic in src/ffi.rs:88\n\ngoroutine 1 [running]:\n"
        "main.loadIndex(0xc000010000)\n\t/app/index.go:42 +0x1a5\nmain.main()\n\t/app/main.go:10 +0x25\n"
    )
    assert traces.parse(go).format == "go"
    # Boost's report of an exception carrying Boost.Stacktrace's frames as its tag: the throw's site.
    boost = (
        "/src/app/config.cpp(42): Throw in function void app::Config::load(std::string const&)\n"
        "Dynamic exception type: boost::wrapexcept<std::runtime_error>\nstd::exception::what: cannot open file\n"
        "[tag_stacktrace*] =  0# app::Config::load(std::string const&) at /src/app/config.cpp:42\n"
        " 1# app::run(int, char**) at /src/app/main.cpp:20\n 2# main at /src/app/main.cpp:5\n"
    )
    assert traces.parse(boost).format == "boost-exception"


def test_paddles_cpp_traceback_is_read_innermost_first_under_its_signal():
    # PaddlePaddle/Paddle#61332: the C++ frames printed outermost first ("most recent call last"), then "Error
    # Message Summary:" and the signal its handler caught. Before v22, Python's reader took the head
    # ("C++ Traceback (most recent call last):") and found no frame.
    signed = sign(read_report("v22/paddle_traceback_paddle_61332"), "PaddlePaddle/Paddle")
    assert (signed.trace_format, signed.crash_type) == ("paddle", "SIGSEGV")
    assert signed.frames[:2] == (
        "paddle::framework::OperatorWithKernel::BuildPhiKernelContext",
        "paddle::framework::OperatorWithKernel::RunImpl",
    )
    # Paddle#43411 and PaddleSeg#2506, different causes outside Paddle: "No stack trace in paddle" and the
    # handler's banner are every such crash's.
    one = sign(read_report("v22/paddle_no_stack_paddle_43411"), "paddle")
    other = sign(read_report("v22/paddle_no_stack_paddleseg_2506"), "paddle")
    assert "no identifying line: a bucket of its own" in one.repairs
    assert one.digest != other.digest
