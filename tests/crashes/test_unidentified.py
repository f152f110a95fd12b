"""Reports in which nothing names the crash (signature v18): a bucket of their own, unless the same
crash comes again, and never one keyed by a line every crash of the tool prints.

The texts are written as the tools print them (VS Code's language client, clangd's crash handler
in a release build without symbols); FreeCAD#16406 is a real report (tests/data/dedup).
"""

from __future__ import annotations

import pytest

from crashes import signatures
from crashes.signatures import unparsed
from tests.crashes.signing import sign_record as _sign
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()

_UNIDENTIFIED = "no identifying line: a bucket of its own"


def _clangd_crash(file: str, time: str, offsets: tuple[str, str]) -> str:
    """clangd's handler in a stripped build, as VS Code's output panel shows it."""
    return (
        f"I[{time}.123] ASTWorker building file /home/u/p/src/{file} version 3 with command\n"
        f"Signalled during AST worker action: Build AST\n  Filename: /home/u/p/src/{file}\n  Version: 3\n"
        " #0 0x00000000009c6b48 (/usr/bin/clangd+0x9c6b48)\n"
        " #1 0x00007f3a1c842520 (/lib/x86_64-linux-gnu/libc.so.6+0x42520)\n"
        f" #2 0x0000000001a2b3c4 (/usr/bin/clangd+0x{offsets[0]})\n"
        f" #3 0x0000000001a2c111 (/usr/bin/clangd+0x{offsets[1]})\n"
        f"[Error - {time} AM] Connection to server got closed. Server will restart.\n"
    )


@pytest.mark.parametrize(
    "line",
    [
        "[Error - 10:21:33 AM] Connection to server got closed. Server will restart.",
        "[Error - 10:21:40 AM] The clangd server crashed 5 times in the last 3 minutes. The server will not be "
        "restarted.",
        "[Error - 5:31:59 PM] Server process exited with code 101.",
        "[Error - 9:02:11 AM] Server initialization failed.",
        "[Error - 10:21:33 AM] Request textDocument/documentSymbol failed.",
    ],
)
def test_an_editors_language_client_saying_its_server_died_names_no_bug(line):
    assert unparsed.identity_line(line) == ""


@pytest.mark.parametrize(
    "line",
    [
        "Server initialization failed: Error: Cannot find module 'pg-native'",
        "Error: MCP server process exited with code 1: ModuleNotFoundError: No module named 'x'",
    ],
)
def test_an_applications_own_words_like_the_clients_still_name_its_failure(line):
    assert unparsed.identity_line(line) != ""


@pytest.mark.parametrize(
    "line",
    [
        "The above exception was the direct cause of the following exception:",
        "During handling of the above exception, another exception occurred:",
        "Exception in thread Thread-1 (most likely raised during interpreter shutdown):",
        "thread panicked while processing panic. aborting.",
        "thread 'main' panicked while panicking. aborting.",
        "c++: fatal error: Killed signal terminated program cc1plus",
        "clang: error: unable to execute command: Killed: 9",
        "clang: note: diagnostic msg: Crash backtrace is located in",
        "error: proc-macro derive panicked",
        # v19: ASan giving up on a second error (cesanta/mjs#260), Nim's runtime on any SIGSEGV
        # (nim-lang/Nim#4001, #4699: two bugs), Minecraft's launcher on any crash (AllTheMods/ATM-10#935).
        "AddressSanitizer: nested bug in the same thread, aborting.",
        "SIGSEGV: Illegal storage access. (Attempt to read from nil?)",
        "The game crashed whilst unexpected error",
        # Android's C library and debuggerd on any native crash (flutter/flutter#18398).
        "F/libc    (20474): Fatal signal 11 (SIGSEGV), code 1, fault addr 0x8 in tid 21908 (3.io)",
        "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000000",
        # gdb starting the program with its input's name (tsfn/libdoc#2: "…_N.overflow").
        "Starting program: /home/u/libdoc/reader libdoc_reader_process_file_1.overflow",
        # systemd on a service that died (pymedusa/Medusa#9485's journald paste).
        "Jan 02 10:11:12 host systemd[1]: medusa.service: Failed with result 'exit-code'.",
        "medusa.service: Main process exited, code=dumped, status=11/SEGV",
        # Numba's compiler on any stage that failed (numba/numba#6595).
        "LoweringError: Failed in nopython mode pipeline (step: nopython mode backend)",
        # WinDbg's explanation of a bug check (dokan-dev/dokany#1088, #27).
        "This is a very common BugCheck.  Usually the exception address pinpoints",
        "Invalid system memory was referenced.  This cannot be protected by try-except.",
    ],
)
def test_a_runtimes_own_banners_name_no_bug(line):
    # Python's words between a chain's exceptions (a paste cut before its exception line keyed on them),
    # std's double panic (duckdb-rs#584's rustc ICE), GCC's and Apple clang's drivers on an out-of-memory
    # kill (HaxeFoundation/hxcpp's report) and clang's notes on its reproducer, rustc on any derive macro
    # that panicked (askama's, prost's and yaserde's users' reports: the macro's message says which).
    assert unparsed.identity_line(line) == ""


def test_unsymbolized_frames_keep_their_offsets_in_a_report_nothing_else_names():
    # Two crashes of one stripped clangd build: masked, the texts read alike (paths, times, addresses);
    # the offsets are places in that build, and they differ.
    one = _clangd_crash("a.cpp", "10:21:33", ("1a2b3c4", "1a2c111"))
    other = _clangd_crash("b.cpp", "11:02:45", ("1777777", "1888888"))
    signed, other_signed = (signatures.compute(kind="crash", trace_text=t, target="clangd") for t in (one, other))
    assert _UNIDENTIFIED in signed.repairs and _UNIDENTIFIED in other_signed.repairs
    assert signed.digest != other_signed.digest
    # The same crash again, from another file at another time, is the same text.
    again = _clangd_crash("c.cpp", "14:00:01", ("1a2b3c4", "1a2c111"))
    assert signatures.compute(kind="crash", trace_text=again, target="clangd").digest == signed.digest


def test_an_address_is_no_offset():
    # "called from 0xd7ad8798+0x0" is one run's address: a re-post from another run is the same text,
    # while the offsets beside it ("clangd+0x9c6b48") are places in one build and still tell it apart.
    def run(address: str, offset: str) -> str:
        return _clangd_crash("a.cpp", "10:21:33", (offset, "1a2c111")).replace(
            "Version: 3\n", f"Version: 3\n  called from 0x{address}+0x0\n"
        )

    first = signatures.compute(kind="crash", trace_text=run("d7ad8798", "1a2b3c4"), target="t")
    assert _UNIDENTIFIED in first.repairs
    again = signatures.compute(kind="crash", trace_text=run("c0ffee00", "1a2b3c4"), target="t")
    elsewhere = signatures.compute(kind="crash", trace_text=run("d7ad8798", "1777777"), target="t")
    assert first.digest == again.digest != elsewhere.digest


def test_a_real_reports_unsymbolized_stack_keys_it_by_its_offsets():
    # FreeCAD/FreeCAD#16406: "libFreeCADGui.so+0x543…" frames, nothing that names the crash. Another
    # crash of the same build (one offset differs) is another bucket.
    text = RECORDS["FreeCAD/FreeCAD#16406"]["trace"]
    signature = _sign("FreeCAD/FreeCAD#16406")
    assert _UNIDENTIFIED in signature.repairs
    elsewhere = text.replace("libFreeCADGui.so+0x543", "libFreeCADGui.so+0x9a1", 1)
    assert signatures.compute(kind="crash", trace_text=elsewhere, target="t").digest != signature.digest


@pytest.mark.parametrize(
    "record_id",
    [
        # "craftgrid/game_node.py:4: error: INTERNAL ERROR -- Please try using mypy master on GitHub:"
        # above a traceback cut before its exception line: the stock sentence goes, the user's file is left.
        "python/mypy#17716",
        # klog's "runtime.go:69] Observed a panic: \"invalid memory address…\"": the logger's file and a
        # stock panic; the kernel's "jq[123]: segfault at 0 ip … error 4 in libc.so": the C library's file.
        "kubernetes/kubernetes#19666",
        "jqlang/jq#1676",
    ],
)
def test_a_line_naming_only_a_file_names_no_bug(record_id):
    # Signature v19: a file named without its leading slash ("pkg/node.py", "util.go", "libc.so") is the
    # user's input or a logger's own source, never words of the crash.
    assert _UNIDENTIFIED in _sign(record_id).repairs


@pytest.mark.parametrize(
    "line",
    [
        "src/parser.rs:12: error: unexpected token in macro invocation",
        "lib/compiler/typecheck.ml:88: fatal: unification variable escaped its scope",
    ],
)
def test_a_line_naming_a_file_and_more_still_names_it(line):
    assert unparsed.identity_line(line).endswith(line.rsplit(": ", 1)[-1])


def test_a_stock_sentence_after_a_file_leaves_no_identity():
    line = "pkg/node.py:4: error: INTERNAL ERROR -- Please try using mypy master on GitHub:"
    assert unparsed.identity_line(line) == ""


@pytest.mark.parametrize(
    "above",
    [
        # tinygo-org/tinygo#2958's reporter, and a build's own words (esp8266/Arduino#1569's make line).
        "I am getting this error right after upgrading to go v1.19 I am on a mac.",
        "make: *** [Makefile:12: tests/blink] Error 1\nrecipe for target 'tests/blink' failed",
    ],
)
def test_what_the_parser_read_as_the_crash_comes_before_a_sentence_above_it(above):
    alone = signatures.compute(kind="crash", trace_text="LLVM ERROR: underestimated function size\n", target="t")
    below = signatures.compute(
        kind="crash", trace_text=f"{above}\n\nLLVM ERROR: underestimated function size\n", target="t"
    )
    assert below.message == "LLVM ERROR: underestimated function size"
    assert below.digest == alone.digest


@pytest.mark.parametrize(
    "line",
    [
        # The reporter's own words around a paste (v19: dmarkham/enumer#76, alvaroloes/enumer#69,
        # rickb777/go-sumtype#17): how they met the crash, not what failed.
        "I'm not sure why I'm getting this error",
        "We recently updated to Go 1.20 and see this error:",
        "when generating the compilation I'm getting this error",
    ],
)
def test_a_reporters_own_sentence_names_no_bug(line):
    assert unparsed.identity_line(line) == ""


@pytest.mark.parametrize(
    "line",
    [
        "Stored value type does not match pointer operand type!",
        "error: we could not find `foo` in scope",
        "my_module failed: cannot open file",
    ],
)
def test_a_tools_line_with_a_pronoun_in_it_still_names_its_failure(line):
    assert unparsed.identity_line(line) != ""


def test_a_commands_options_report_no_failure():
    # pydantic/pydantic#6992 and python/mypy#18237 (v19): "poetry run mypy . --show-error-context …", the
    # command that crashed, keyed by the word "error" in its option.
    assert unparsed.identity_line("poetry run mypy . --show-error-context --show-traceback") == ""
    assert unparsed.identity_line("error: --foo failed while parsing the manifest") != ""


def test_a_loggers_date_and_time_opening_a_line_is_no_part_of_its_identity():
    # marwan-at-work/mod#9 and dtgorski/typex#7 (v19): Go's log line "2020/03/28 23:34:18 internal error: …",
    # its date read as a path before.
    line = 'internal error: package "fmt" without types was imported from "github.com/jonbodner/taxes"'
    assert unparsed.identity_line(f"2020/03/28 23:34:18 {line}") == unparsed.identity_line(line)
    assert unparsed.identity_line(f"2023-09-15T17:26:29Z {line}") == unparsed.identity_line(line)
    # klog's head (k3s-io/k3s#5762): its level, date, time, thread and file.
    assert unparsed.identity_line(f"E0624 09:37:13.276141   26151 runtime.go:78] {line}") == unparsed.identity_line(
        line
    )
