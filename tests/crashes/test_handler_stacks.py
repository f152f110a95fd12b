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
