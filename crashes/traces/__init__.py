"""Stack-trace parsers of signature v2: one module per format, tried in registry order.

Each format module exposes ``recognize(text) -> bool`` and
``parse(text) -> ParsedTrace``, pure functions over the text that
:func:`crashes.traces.extract.clean` made canonical. A new format or a
changed rule here changes v2 signatures only until v2 is released with it;
after that, it belongs in a new version (v1's parsers are frozen in
``crashes/v1/traces``).
"""

from __future__ import annotations

from dataclasses import replace

from crashes.model import Frame, ParsedTrace
from crashes.traces import (
    android_tombstone,
    app_center,
    apple,
    apple_ips,
    boost_exception,
    boost_stacktrace,
    breakpad,
    bugsnag,
    bun_report,
    c10_error,
    cleo,
    clusterfuzz,
    crystal,
    debugger_stack,
    dotnet,
    elixir,
    extract,
    faulthandler,
    gcc,
    gdb,
    glibc_backtrace,
    go,
    go_errors,
    go_telemetry,
    haskell,
    hotspot,
    javascript,
    julia,
    jvm,
    kernel,
    kotlin_native,
    libfuzzer,
    lldb,
    llvm,
    lua,
    msvc,
    nim,
    node_native,
    ocaml,
    paddle,
    php,
    pytest_report,
    python,
    qgis,
    roslyn,
    rpython,
    ruby,
    rust,
    rust_hook_words,
    sanitizer,
    swift,
    valgrind,
    windows_error_report,
    z3,
    zig,
)

# Ordered: the first format that recognizes a text parses it, so the most
# specific come first. (ClusterFuzz's summary after the sanitizer's report it may quote: the report's
# frames say more.) A sanitizer report often sits inside libFuzzer output
# and names the real error; so does Valgrind's first error in whatever the
# program printed as it died; atheris prints a Python traceback inside
# libFuzzer output (and cleo, for Poetry, renders one its own way); rustc's
# and Go's ICEs say "internal compiler error" as GCC's do, so they are tried
# before GCC; LLVM's stack dump after every other compiler that may embed
# LLVM (and before a macOS crash report, whose assertion, when it has one,
# names the bug better than its crashed thread); glibc's backtrace_symbols lines
# and Boost.Stacktrace's (a program's own crash handler) after those that may print them among their
# own; gdb's generic frames near the end. QGIS's crash dialog comes before Python's traceback
# (newer dialogs print the Python threads' stacks above the crash's own); bun.report's list before
# Zig's panic line, which Bun's terminal output prints above it; pytest's report after CPython's
# traceback (a traceback inside a test's captured output is the crash's); HotSpot's crash report before a
# Java stack (its log may quote one among the VM's events); lldb's backtrace before LLVM's
# parser, which would read the assertion above it but not its frames (lldb gives it to LLVM's rules).
# OCaml's exceptions late: a program's own words may start a line with "Anomaly" above another format's trace.
# Haskell's panics and call stacks after those: a log quoting one above another format's trace is
# that format's crash. A Roslyn analyzer's or generator's failure after .NET's stack: printed with the stack,
# the crash is the stack's, as it is printed without the compiler's line. MSVC's C1001 beside GCC's ICEs
# (its compiler file is never another format's). Android's tombstone frames
# ("#00 pc …") are no other format's, read before Breakpad's. The kernel's reports early: their heads are
# their own ("BUG: KASAN: …", "WARNING: CPU: 1 PID: 42 at …"), and other parsers read their frames badly.
# PyTorch's C++ error before Python's traceback, which it is raised into: the check that threw names the bug; and
# Paddle's C++ traceback, whose head ("C++ Traceback (most recent call last):") Python's reader would take.
# Node's and V8's fatal reports before JavaScript's stack, which an uncaught error prints above them, and before
# LLVM's assertion, which Node's assertion line looks like. App Center's two-line frames after .NET's own stack,
# which a report may hold beside them. The Swift runtime's trap line after lldb's stack and Apple's crash
# report, which may quote it above the frames that say whose trap it was.
# Bugsnag's issue before the JVM's stack and every other format: its stack lines ("File.kt:12 - f") are its
# own, and the stack it reports may be quoted below it as Java prints it.
# Boost.Stacktrace's frames after Boost's report of an exception, which may carry them as its stacktrace tag; a
# panic hook's own words with a Rust location (crashes.traces.rust_hook_words) after every format that may
# mention a panic of another runtime (Go's, a JVM's). Boost's report of an exception it caught is read before
# gdb's frames, which a report may quote below it (the throw's site says more than the abort's stack). Z3's
# File:/Line: fields last: a tool's log may print such fields around another format's trace. Windows Error
# Reporting's problem signature, which names no frame, after every format that reads a stack: a report holding
# both is the stack's.
REGISTRY = (
    sanitizer, clusterfuzz, valgrind, kernel, qgis, rpython, c10_error, paddle, python, pytest_report, cleo, libfuzzer,
    rust, go, go_errors, go_telemetry, bun_report, zig, hotspot, kotlin_native, bugsnag, jvm, dotnet, app_center,
    roslyn, debugger_stack, crystal, ruby, php, elixir, node_native, javascript, julia, lua, nim, gcc, msvc, lldb, llvm,
    android_tombstone, breakpad, apple_ips, apple, swift, glibc_backtrace, ocaml, haskell, boost_exception,
    boost_stacktrace, rust_hook_words, gdb, faulthandler, windows_error_report, z3,
)  # fmt: skip

__all__ = ["Frame", "ParsedTrace", "REGISTRY", "parse"]


def parse(text: str) -> ParsedTrace | None:
    """Clean ``text`` and parse it with the first format that recognizes it, or return None."""
    return parse_cleaned(extract.clean(text))


def parse_cleaned(cleaned: extract.Cleaned) -> ParsedTrace | None:
    """Parse text :func:`crashes.traces.extract.clean` already made canonical."""
    for module in REGISTRY:
        if module.recognize(cleaned.text):
            parsed = module.parse(cleaned.text)
            # A parser's own repairs (a Python frame line a wrap cut) come after the text's.
            return replace(parsed, repairs=cleaned.repairs + parsed.repairs)
    return None
