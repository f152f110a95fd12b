"""Signature algorithm v2: crashes identified the way each ecosystem's maintainers identify them.

What changed from v1, and why (each measured on the development split of
``tests/data/dedup_split.json``, never on the test split):

- The trace is found anywhere in the text and repaired first
  (:mod:`crashes.traces.extract`): quoting, indentation, wrapping, CRLF,
  log prefixes. The repairs are kept on the signature to be shown.
- Each format says where the program gave up (``ParsedTrace.site``) and
  its crash type is the identity its maintainers use: rustc ICEs by the
  bug's location and masked message plus the running query; GCC ICEs by
  ``in FUNCTION, at FILE``; LLVM assertions by their text and function; Go
  compiler ICEs by the frame below ``Fatalf``. How many frames follow the
  site is per format (:data:`RULES`): a site already says most of it.
- A report whose only identity is a generic message ("nil pointer
  dereference", "unwrap on None", a bare exception type) with no site and
  no frames gets a bucket of its own, as does an unparsed report whose
  lines are all stock sentences: v1 let those merge unrelated crashes.
- The format family is hashed in: two formats never share a bucket.
- Frames every program has (``main``) are namespaced by the target, and so
  is a report keyed on a line of text: a stack names code, a sentence may
  be any program's.
- A program's crash is keyed within its target: the same stack filed
  against two projects (a library's assertion reached by each, a runtime
  failure every program on one machine hits) was, on the development
  split, one bug in 2 pairs out of 23. A compiler's internal error (rustc,
  GCC, Go) names a place in the compiler's own code and stays shared; an
  LLVM assertion (LLVM is embedded by many languages' compilers) does not.

The parsers (``crashes.traces``), the frame rules (``crashes.frames``), the
stock-sentence tables (``crashes.signatures.unparsed``) and :data:`RULES`
are all part of this version.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from crashes import traces
from crashes.frames import MAX_FRAMES, STACK_OVERFLOW, dependency_caller, normalize_path, significant_frames
from crashes.model import INPUT, ParsedTrace, Signature
from crashes.origins import title_function
from crashes.signatures.unparsed import (
    generic_frames,
    identity_line,
    introduces_or_tells,
    is_generic,
    names_something,
    unwrap_payload,
)
from crashes.traces.extract import clean, fenced
from crashes.traces.text import mask_message

# These rules were first released as version 2. Any change that moves a digest takes the next
# number (tests/crashes/test_current_frozen.py holds it), and `manage.py rebucket` moves stored
# findings. 3: an LLVM assertion keyed by its bare function, glibc's assert line read behind any
# prefix; pasted text repaired more (blanks at line ends, one-line quotes and list items, hard
# wraps weighed by evidence, frame and assertion lines a wrap cut joined per format); a Rust
# panic hook's {:?} print read as a panic. 4: a Rust program's panic site keeps its line (a
# rustc ICE's does not); "error: internal compiler error:" opening a line is rustc's; rustc's
# delayed-bug banner names nothing; a crate's build hash (name[4c35]::) is masked in messages;
# rustc's pre-2020 ICE lines and raising files read like today's; a Go panic re-raised after a
# recover is sited below the last panic(…); gdb's stop line before `bt` is no backtrace of its
# own; an address is never a frame; the Kotlin compiler's wrapper exceptions give way to the
# exception they wrap; three or more blank lines read as two. 5: Valgrind's reports are read
# (its first error's headline and stack; its banner is no identity); macOS crash reports are read
# (the crashed thread's stack), macOS's system libraries and symbol offsets (name+0x1a4) skipped;
# Zig's panics and stack traces are read; addresses printed without 0x are masked in messages;
# Go function lines and Rust panic lines a terminal cut are read whole. 6: a compiler's JSON
# diagnostics (cargo, RLS) are read as the text they render; a file named without a leading slash
# (src/x.rs, test.py) is masked in compilers' messages as an absolute path is; a panic raised
# inside Rust's standard library (libcore/option.rs) is no frame; early Rust's twenty-digit symbol
# hashes and ThinLTO's .llvm.<hash> suffixes are dropped; coredumpctl's indented stacks are read;
# a C++ stack dump pasted from frame 0 without its head is read (format stack-dump, keyed within
# its target); a build tool's "ninja: build
# stopped", "make: ***" or "FAILED:" line is stock; a trace too long to read whole keeps its
# first and last lines, not its first 256 KiB; a Python exception as cleo renders it (Poetry) is
# read as its traceback. 7: a crash handler's own site fields below its message (c3c's "Function:"
# and "Source file:", CoreCLR's "ASSERT FAILED" with "Expression:", "Location:", "Function:") join
# an unparsed report's identity line, without the line number; GCC's .c sources renamed .cc in
# GCC 12 are one file; GCC's recog ICEs (unrecognizable insn, insn not satisfying its constraints)
# keep the shape of the instruction printed above them; a crash headline a terminal cut inside its
# marker ("internal compiler" / " error:") is rejoined; GCC's ICE line cut in its file or on the
# blank after its comma, and its frames cut in their arguments, are read whole; glibc's assertion
# head cut in its line number or before "Assertion" keeps its function; a quote or a log indented
# as a whole (a code block in a reply) is unquoted after its indentation; a sanitizer or symbolizer
# frame a terminal or mail client cut goes on with its rest and the frames after it; LLVM's
# UNREACHABLE line cut in its file is read whole, and a shell prompt above it is no message; a
# text whose lines mostly end in blanks (a console's padding, a copy's) is unwrapped without them,
# and a line ending in two blanks is never a cut; a Go function line cut in its arguments is
# joined when the paste cut its source line short too; a list item's marker and indentation are
# undone before the fences, quotes and inline code inside it; MSVC's assertion ("Assertion failed:
# expr, file F, line N") is read, its file the site; an ICE line pasted without rustc's "error: "
# is rustc's when the text has rustc's marks and none of GCC's (and no location or tool's name
# before it); a one-line Markdown fence keeps the text inside it. 8: one rustc source file is one
# site however its path was printed (compiler/rustc_x/…, /rustc/<hash>/compiler/rustc_x/…, and
# before 2020 src/librustc_x/…); the item path in rustc's DefId(0:5 ~ crate::item) is masked; a
# relative path in a message is masked whole (its first directory too); an LLVM container helper's
# assertion keeps its site when only the C library's abort path is left of the stack; glibc's
# __clone is no frame; a rustc ICE whose only message was a stock one names nothing by it; syslog's
# and journald's line heads ("Nov 02 19:04:52 host dockerd[28586]: ") are log prefixes; a frame
# in LLVM's "(anonymous namespace)" keeps its name; a goroutine's stack pasted without its panic line
# is read as a Go stack; a Python traceback drawn in Rich's box (Typer's, Streamlit's) is read as
# CPython's; a log a terminal cut has its cut lines rejoined before its prefixes go, and its
# prefixes are looked for again once the text is unwrapped; loguru's "> File …" (the frame that
# caught the exception) is a frame; GCC's "error: unrecognizable insn:" and its instruction, pasted
# without the ICE line below them, are that ICE (in extract_insn, at recog.cc); a Rust panic line
# is read from its thread on (behind a test runner's "[x86] ", or its head cut: "hread 'main'",
# "polars-0' "), and the old form without the thread (a hook's) is read too; a Python traceback
# IPython printed (Jupyter's, Colab's; IPython 7's and 8's frame lines) is read as CPython's; the
# Kotlin compiler's "The root cause X was thrown at: f(F.kt:N)" names the crash's type and site; a
# .NET stack pasted without its exception is read by its frames (three or more). 9: a Rust panic
# line of the old form whose message is a stock one at the standard library's location ("called
# `Option::unwrap()` on a `None` value', src/libcore/option.rs") names nothing; a rustc ICE with a
# stock message keeps its site's line; assert_eq!'s operands, the standard library's
# stock panics ("no entry found for key", "already borrowed"), LLVM's "Broken function found",
# cargo's "process didn't exit successfully" and Go's deadlock name nothing; rustc's pre-2020
# diagnostics plumbing (rustc::util::bug, scoped_tls), unwrap()/expect(), core's slicing and
# iterator frames, drop glue and a panic hook's frames (above rust_panic_with_hook) are skipped; a
# line Rust prints after a panic's message is no message, and the new-form panic line alone or a
# tool's "unexpectedly panicked" banner no identity; Go stacks printed one "file.go:N (0xPC)" line
# per frame (go-errors, gitea) are read; an LLVM helper's assertion (cast<X>) with no frame to say who
# called it is keyed within its target, and macOS's bare "doit" is such a helper; LLVM's C API
# (LLVMVerifyModule) is no frame; a crash reporter's own log lines (crashpad's) and a driver saying a tool it
# ran failed ("ld returned 1 exit status") are no identity; a symbol printed as linked
# (_ZN4llvm3DIE13getUnitOrNullEv) is read by the name inside it (crashes.demangle). 10: gdb's frame
# "f (args) at file:12" or "f () from lib.so" is named f, not by its location's keyword; an LLVM
# crash is keyed within its target (LLVM is embedded by many languages' compilers); the frames of a
# format no parser knows are read as the parsers read theirs (a linked symbol by the name inside it,
# the C library's and LLVM's C API's frames skipped); a number's fraction is masked with it
# ("SystemTimeError(6795364578.871345152s)" and "(7140s)"); a Rust source path relative to its crate
# keeps its src/ ("src/fs/file.rs", as a checkout's absolute path gives it); an old-form Rust panic
# keyed on its line is keyed on its message, without the thread's name and the standard library's
# location, and what its unwrap() found names it when named by a type of two words or more
# ("SystemTimeError(Ns)", not "Error"). 11: Go's fatal-error tracebacks are read (a frame's
# registers after its source line, "fp=0x… sp=0x… pc=0x…"; the system stack under "runtime stack:";
# Go 1.23's goroutine header naming its g and m; "SIGSEGV: segmentation violation" as the message;
# a goroutine's stack whose message was cut, by its runtime.throw/gopanic frame); Go telemetry's stacks (gopls's
# "runtime.gopanic:+69" lines, plain or as Markdown links) are Go stacks keyed by their functions;
# a failure word inside an identifier ("abort_signal", "assert_equivalent") reports no failure;
# Zig's safety-check panics ("thread N panic: reached unreachable code", "integer overflow") name
# nothing, nor does a compiler error line's input position ("x.go:92:45: … assertion failed") or
# the signal Go's runtime names ("SIGSEGV: segmentation violation"); a Python file installed in
# site-packages is keyed by its last two path components, as a checkout's is; a stack overflow's
# recursion is read from its least frame (which call of the cycle ran out of stack is chance);
# Android Studio's Logcat columns and pytest's "E   " marks are log prefixes; the Kotlin IR backend's
# CompilationException is a wrapper, the error its "Details:" line names is the crash. 12: an old-form
# Rust panic line whose location was cut ("panicked at 'msg'" and the line ends) is read for its
# message; a "panic: message" line read without its stack (Go's, Zig's by thread) is a panic whose
# message is the rest of the line, its type unknown; glibc's backtrace_symbols lines (a program's own
# crash handler's: "htop(Affinity_set+0x2b)[0x…]") are read as a stack, below the handler's frames
# and the signal trampoline; a Rust v0 symbol is read by its path, without its crates' build hashes.
# 13: bun.report's symbolized stacks (the list Bun's crash reports put in an issue) and QGIS's crash
# dialog ("Crash ID", "Stack Trace") are read; Qt's event loop and signal dispatch are no frames; a
# Rust backtrace's last line cut inside its name (no symbol hash where the frames above have one) is
# no frame; a gdb backtrace's frames above "<signal handler called>" are a crash handler's when one
# of them reports (KCrash::defaultCrashHandler, waitpid, raise), as DrKonqi's "[KCrash Handler]"
# says, and of all threads printed the crash is the one DrKonqi marks, else the one gdb names as
# current, else one a handler ran in; lldb's backtraces are read (the stopped thread's reason and frames; an assertion
# above them keyed by LLVM's rules); numeric HTML entities are decoded and zero-width spaces (GitHub's
# after "#" in a migrated issue) removed; MSVC's deleting-destructor wrappers are the destructor
# and its anonymous namespace and __ptr64 qualifiers no part of a name; a glibc assertion line cut
# inside its expression keeps the expression open (the start of the whole one, which the fuzzy stage
# then finds by it); gdb's report of where a signal stopped the program, pasted without `bt`, is
# its innermost frame (also in an anonymous namespace, its "at file:line" on the next line), and a
# debugger's "received signal SIGSEGV" notice no identity of its own;
# HotSpot's crash reports are read (the error its banner names, the crashed thread's native frames
# or the problematic frame, a frame without its symbol by its module), and its banner is stock;
# Chromium's unsymbolized "#0 0x… (/app+0x…)" is no gdb call of an address, and its "Received signal
# 11 SEGV_MAPERR" line no identity; Breakpad's minidump reports are read (the crash reason without
# its sub-code, the crashed thread's frames; one without its symbol names nothing); Windows
# debuggers' call stacks (Visual Studio's, VS Code's, WinDbg's) are read by their functions, and
# Windows's own modules (ntdll, kernel32, the C runtime) are no frames; Python's exception groups
# have their boxes undone (their sub-exceptions are tracebacks, one of them the crash whatever
# order they were printed in);
# Kotlin/Native's uncaught exceptions are read (the root cause, its kfun: frames named as the JVM's);
# Crystal's exceptions are read (its class and message, frames by file and method); a Windows or
# VS Code debugger's exception is named by its code ("0xc0000005 access violation", in any language);
# Ruby's exceptions are read (its class, frames by file and method, core iterators skipped);
# JavaScript's stacks are read (V8's and Firefox's frames, Node's own skipped); macOS's JSON crash
# reports (.ips) are read as its text reports are, in their format; an exception's type with a stock
# message ("System.NullReferenceException: Object reference not set…"), a sanitizer's headline and
# notes, and a macOS report's VM region and thread headers are no identity line, nor is a sanitizer's
# kind of error ("heap-use-after-free READ") read without frames; a native frame line cut inside its
# address ("#0 0") names nothing; pytest's failure reports are read as the CPython traceback they
# stand for (its long and short forms: a test failing under pytest and run alone is one bucket);
# Z3's assertion violations are read (the check and its file; a stock sentence's file and line), and
# its "(C)ontinue, (A)bort…" prompt is no identity; in LLVM's stack dump, what its handler called
# above it (a sanitizer's `backtrace`) is no frame, CamelCase check helpers (CheckFailImpl,
# LogMessageFatal) are reporting helpers, and the C++ library's own check ("_LIBCPP_ASSERT …") is no
# identity line; bold around a whole paste is markup;
# OCaml's uncaught exceptions are read (Rocq's anomalies, Haxe's: the exception and its backtrace's
# files past the standard library, a failed assert by its file and line), and OCaml's and Haskell's
# stock failures (Not_found, "Map.!: given key is not an element in the map"), a signal's name with
# its number ("Illegal instruction: 4") and gdb's pretty printers' errors are no identity; gdb's stop
# line cut inside its path keeps its function.
# 14: color-eyre's and color-backtrace's panic reports ("The application panicked (crashed).",
# "Message:", "Location:") are read as the panic std prints; a Rust git dependency's file is named
# as the registry names it (its workspace member's folder); std's panic_with_hook (Rust 1.84's name)
# ends the hook's frames as rust_panic_with_hook did; a symbol's "<unknown>" hash is no part of its
# name; a C++ conversion operator's type is part of its name ("LE32::operator unsigned int"); a quote
# a message's line leaves open is masked as a closed one is.
# 15: Haskell programs' crashes are read (GHC's panics by their first line without the user's names and
# the module that raised them, past the panic machinery; the runtime's internal errors; a program's
# error by its message and the places of its call stack past its own crash helper and the boot
# libraries; an old GHC's ASSERT, Agda's internal error's location and a lambda's or a case's failed
# pattern match by their module and line, a function's failed match by its module and function);
# RPython's fatal errors (PyPy's) are read as their own format, not as a Python traceback: the error's
# class and RPython's function names without a specialisation's suffix, whatever the generated C's
# files and lines; Julia's errors and stack traces are read (the error's type, or its message when it
# has none, and the functions without their arguments, closures' numbers or Base's raising helpers; a
# test set's report as the REPL's error).
# 16: pasted forms the readers lost: text written on a fence's own line past what an info string is
# ("```clang++: …/SmallVector.h:298: …" wrapped, its closing fence on another line) is the trace's
# first line; MSVC's assertion line cut by a terminal is joined back, and glibc's keeps the head a
# cut put on the lines above even where the paste stops inside the expression ("' failed" cut on its
# blank reads whole); Z3's violation is read below the prompt of the command that crashed or in a
# block below the reporter's words; RPython's frames and Haskell's call-stack entries, Agda's
# location and failed matches a terminal's width cut are joined back, and so are a Rust panic's path
# cut before its location and a panic's or a rustc ICE's location cut inside its numbers or on the
# blank before the ICE's message; Crystal's frame cut inside its quoted method and its exception's
# line cut inside its last word are joined back; a native frame's location alone on the next line,
# one blank in, goes on a line of the terminal's width even where that line ends as a frame does.
# 17: stacks pasted without the lines above them: a Rust backtrace without its panic line whose frames
# carry no source lines (old toolchains) is read when std's panic machinery is among them; a Python
# traceback's last frame with the exception line right below it is read whatever the exception's class
# is named (not only *Error, *Exception), also when a terminal cut the frame after its ", in"; a
# traceback indented by tabs as a whole and pasted below a line at column 0 has its exception lines read
# where they are less indented than the source line above them. Pasted from a log or a page: Docker
# Compose's service column ("web_1  | ") is a log prefix; a prefix's blanks leave a message's own
# indentation ("  left: `1`,"); fences and inline code behind a prefix are markup; non-breaking spaces
# are blanks; a trace held as an escaped string in a log line (a JSON field's value, logfmt's stack="…",
# a repr) is read on lines of its own where it decodes as that string; Go frames printed by their
# function's name alone above a tab-indented source line (github.com/pkg/errors' "%+v", zap's
# "stacktrace") are a Go stack, and its runtime.gopanic the panic's call (the recovery handler above);
# other trackers' and forums' markup opening or closing a line (Jira's {code} and {noformat}, HTML's
# <pre> and <code>, BBCode's [code] and [quote]) is no part of the paste; a Python frame line cut on the
# blank before its line number is joined back; any logger's line head is a log prefix where half the
# lines share it, a time of day in it (Go's log, Airflow's, macOS Console's, foreman's), up to the
# last separator before their text, never into the text's own indentation or first word; a program's or
# a log channel's name before half the lines ("clangd: ", "[system.err] ", "E/Go: ", the Kotlin daemon's
# "exception: ") is a log prefix, a diagnostic's own words ("note: ", "error: ") never. 18: rustc's
# signal handler banner ("rustc interrupted by SIGSEGV, printing backtrace") names no bug; a
# backtrace_symbols line ending in its address ("lib.so(+0x1f)[0x7f…]") is whole, never unwrapped;
# rustc's "rustc-LLVM ERROR: …" is LLVM's error; rustc's "linking with `cc` failed" names no bug (the
# linker's lines below it do); GCC's "Killed (program cc1plus)" and "error reporting routines
# re-entered" name no bug (frames below do), nor does GNU's "NO warranty; not even for
# MERCHANTABILITY" banner; GCC's IL checkers' ICEs ("verify_gimple failed") are keyed by the error they
# printed above and the pass that left it; the Kotlin compiler's root cause is not its own wrapper
# ("RuntimeException: Exception while generating code for:", thrown by FunctionCodegen.generate for
# every bug) where the chain goes on to what it wrapped; Go's "[signal SIGSEGV: …]" line below an ICE's
# panic is a line of its own, never the rest of a cut ICE line; a Rust dependency's src/lib.rs keeps
# its crate's name (only the old standard library's src/libcore/… is cut at "src/lib"); an editor's
# language client saying its server died ("Connection to server got closed") names no bug; a report
# nothing names keeps its unsymbolized frames' offsets ("clangd+0x9c6b48") in its key; colour codes
# whose escape characters were lost ("[0m[1m[38;5;9merror[0m", a CI log's copy) are no part of the paste;
# a tool built in the compiler's tree (Clippy, Miri, rustfmt, Cargo) names its file as its own repository
# does, in rustup's remapped path and in a build in the tree; faulthandler's crash is its "Current
# thread"; a process pool's worker traceback is the crash the parent raised again; a Windows install's
# Lib folder is the standard library; Python's chain banners, std's double-panic line and a language
# client's request failures name no bug; a Kotlin root cause thrown by the JDK's own checks is no site;
# an Open Build Service log's seconds ("[  154s] ") and dmesg's ("[  123.456789] ") are log prefixes; an
# async runtime's task machinery (tokio's harness and scheduler, Pin::poll) is no frame; a Go SSA pass's
# panic ("panic during regalloc while compiling f:") is keyed by the pass and the panic's value, below
# ssa.Compile's recover; below a Go "runtime stack:" of runtime frames alone (a signal in cgo, a stack
# overflow), the goroutine printed next is the crash's; the Kotlin code generator's wrapper named by its
# site alone gives way to the causes pasted below it, and with none names no crash (nor do the compiler's
# banners, "Backend Internal error: Exception during IR lowering", or Gradle's "> Task :x FAILED"); the
# compiler's drivers (JvmIrCodegenFactory, cli, daemon) are no frames; a notebook's cell is one place
# whatever its run's id ("<ipython-input-40-6acb…>", "/tmp/ipykernel_3041/2874….py"); web servers'
# words above any exception ("Exception in ASGI application", "Exception on /x [POST]") name no bug;
# pytest's "INTERNALERROR> " is a log prefix; Google Play Console's "at a.B.c (B.java:12)" and
# Crashlytics' "Caused by X" are the JVM's; Android's main loop and launcher are no frames; a Go stack
# below the runtime's "[signal SIG…]" line is read without its panic line; color-eyre's compact report
# ("  <message>" then "in src/app.rs:774") is read; Gradle's lines on a failed task name no bug; Unity's
# stack ("Class.Method (args) (at path:line)") is read as .NET's, its engine's frames skipped; a Python
# exception line printed above its frames (Sentry's copy) is read below them, as CPython prints it;
# clang's driver on a command it could not run ("unable to execute command: Killed: 9") and its
# "diagnostic msg:" notes name no bug, nor does rustc's "proc-macro derive panicked"; a log record's date
# and time at column 0 starts a line of its own, never the rest of one a terminal cut; gdb's C++ frames
# without debug information ("ns::f(int, bool) () from libz3.so") are read; macOS's null trampoline
# address (eighteen zeros, no 0x) keeps a stack dump whole; Node's CHECK ("node[1738]: file.cc:649:static
# void f(…): Assertion `x' failed.") names its function.
# 19: a line naming only a file besides a stock sentence or a logger's words ("pkg/node.py:4: error:"
# with mypy's INTERNAL ERROR banner stripped, klog's "runtime.go:69]") names no bug; a C++ exception as
# Boost's diagnostic_information reports it ("X.cpp(2321): Throw in function …", "Dynamic exception type:")
# is keyed by the class thrown and the thrower's class and function (Solidity's ICEs), not by the stock
# sentence its program prints above it; a Java frame's class loader named without a module ("app//",
# Fabric's "knot//") is no part of its function, as a module's name is not; a native frame the symbolizer
# named by its place alone ("#0 0x55… /src/mjs.c:7684:57") is its file and line, not its whole file;
# glibc's allocator noticing a corrupt heap (malloc_consolidate, _int_malloc, malloc_printerr), GLib's
# signal emission and main loop, libffi's calls, libwayland's dispatch and the OpenMP runtime are no
# frames; Scala's assert helpers (Scala3RunTime.assertFailed, DottyPredef.assertFail, Predef.assert) are
# no frames; ASan's "nested bug in the same thread", Nim's "SIGSEGV: Illegal storage access" and
# Minecraft's "The game crashed whilst …" name no bug; a Rust panic in WebAssembly, as a browser shows the
# Error wasm-bindgen's panic hook threw ("Error: panicked at …" with V8's or Firefox's wasm-function
# frames), is read as the panic std prints, the JavaScript glue's frames and unnamed functions no frames;
# with no stack, what the format's parser read as the crash ("LLVM ERROR: underestimated function size")
# comes before any line of the text that also says "error" (a reporter's sentence, a build's line); an
# exception's type left alone by its stock message names no bug, nor does gdb's "unknown" signal;
# CPython's interpreter loop and calls under an extension's frame, Gradle's task executers, F#'s core
# library and Roslyn's analyzer host are no frames; Android's tombstones are read (the signal or the
# abort's message, the backtrace's symbols by their library's name, Android's own libraries skipped) and
# bionic's "Fatal signal N (SIGSEGV), code …" names no bug; sbt's lower-case levels ("[error] "), Docker
# BuildKit's "#14 81.12 " and `flutter run -v`'s "[ +126 ms] " are log prefixes; a C program's abort helper
# named with a trailing underscore ("tor_abort_") is a reporting helper; a Roslyn analyzer or generator that
# threw, as the compiler reports it without a stack (AD0001, CS8785), is keyed by the analyzer and the
# exception's class, whatever columns a build log or Visual Studio's Error List put around the line; a
# free-threaded CPython's lib/python3.13t/ is the standard library; a Go function line with its source line
# after a run of blanks (a paste's padding for the newline and tab) is two lines; Django's debug page
# ("Exception Type: X at /url", "Exception Value: …" below the frames) is read as the traceback it shows,
# and web frameworks' request dispatch (Django's handlers and middleware, Flask's dispatch, Starlette's and
# FastAPI's routing, uvicorn's, gunicorn's and anyio's workers) is no frame; a JavaScript stack pasted
# without its indentation ("at f (/app/x.ts:42:17)" at column 0) is read as V8's, and one whose files'
# paths hold blanks ("/Applications/Mark Text.app/…") is never .NET's; the Kotlin compiler's root cause in
# a console padded to its width (the frame on the line after "was thrown at:") is read; backtrace_symbols
# lines whose module is a process title ("/usr/bin/redis-server 127.0.0.1:6379(decrRefCount+0xe)[0x…]")
# are read; gdb's frame form as a program's handler pads it ("#3  0x559e…      in  f() at src/a.c:429") is
# gdb's, and a frame libbacktrace named "???() at ???:0" names nothing; jemalloc's je_* functions are no frames; MSVC's
# C1001 is read (the compiler's file and line and the user's file, within the target); a program's own
# reporting in C++'s names is no frame (~FatalMessageEmitter, DuckDBAssertInternal, _serverPanic, an
# assertion helper's Fail, an exception's constructor); color-eyre's panic section naming its line after
# a comma ("in src/buffer.rs, line 229") is read, and so is miette's ("× Main thread panicked.", "├─▶ at
# FILE:L:C", "╰─▶ MESSAGE": nushell's, espflash's); a GCC ICE on a signal with no frame of GCC's own is
# keyed by the user's function it was compiling ("In member function '…'"), within the target; older V8's
# names ("listeners.(anonymous function).forEach.listener") are JavaScript's, never .NET's, and Node's own
# modules named bare ("events.js", "ELECTRON_ASAR.js") are no frames; ClusterFuzz's crash summary ("Crash
# Type:", "Crash State:") is read as the sanitizer report it stands for; frame numbers escaped against
# Markdown ("\\#0") are frame numbers; glibc's inlined fortify wrappers (bits/unistd.h) are no frames; gdb's
# "Starting program: …" names no bug; a Java throwable's class whose name ends in neither Exception nor Error
# is read from the line right above its stack; gdb's C++ frame printed with its signature and then its
# arguments ("in Ns::C::f() const (this=0x0) at x.cpp:1188") is read; human-panic's report ("Panic
# occurred in file '…' at line N", its cause field) is read as the panic std prints, and its backtrace's
# "<unresolved>" frames name nothing; systemd's lines on a service that died name no bug, nor does Numba's
# "Failed in nopython mode pipeline (step: …)"; pytest's "INTERNALERROR>" behind a time of day is a log
# prefix; a Go panic line behind a terminal's "^C" is read; a reporter's own sentence ("I'm not sure why I'm
# getting this error", first person and no code in it) names no bug; the Kotlin front end's expression
# dispatch and timer, and the Kotlin Gradle plugin, are no frames; a failure word inside a command's option
# ("--show-error-context") reports no failure; Node's garbage collector's log above its out-of-memory crash
# names no bug, and Node's and V8's own C++ frames (node::, v8::) are no frames; a C++ return type
# before a frame's name in an unparsed stack is no name; an uncaught Objective-C exception's stack pasted
# without its crash report (Foundation's "*** First throw call stack:", Crashlytics' "Fatal Exception: X")
# is read as the report's; React Native's bridge reporting a JavaScript error is no frame; the Linux kernel's
# oops, BUG, WARNING and KASAN reports are read (the kind and the function, then the call trace's reliable
# frames past the kernel's own reporting); a logger's date and time opening an identity line (Go's
# "2020/03/28 23:34:18 ") is no part of it; Go's printf-style assertion helpers (contract.Assertf,
# failfast, Fatalf, Panicf) are reporting helpers; Lua's errors and stack tracebacks are read (Neovim's
# plugins': the message without Lua's location, the functions by their file's last two parts, C functions
# and Neovim's runtime skipped); PHP's uncaught exceptions with their "Stack trace:" are read (the class by its
# own name, the functions without paths, lines or arguments), and a namespace written with backslashes
# ("OC\\Files\\Utils\\Scanner") is no path; Biome's crash report ("Source Location:", "Message:") is read
# as the panic std prints; Elixir's exceptions are read (the module, the function a FunctionClauseError
# names, the frames by module and name past Elixir's and OTP's own applications); OCaml's exception printed
# quoted by js_of_ocaml ("exception \"Assert_failure x.ml:106:9\"") or as Base's s-expression is named;
# WinDbg's explanation of a bug check names no bug; Heroku's dyno after a log's time ("app[web.1]: ") and
# Firefox's mach build log's elapsed time ("76:12.69 ") are log prefixes; a new-form Rust panic line with its
# message on the same line (a logger's), behind a logger's field ("info=panicked at …"), and qdrant's
# "Panic occurred in file x.rs at line N: MSG" are read; klog's line head opening an identity line is no part
# of it; net/http's "http: panic serving IP:PORT: MSG" is the panic's line; an LLVM dump with no site and no
# named frame (a release build's) is keyed by the innermost pass its pretty stack trace names.
# v20: gdb's argument list printed wholly on the line below its frame is read with the frame, and an assertion whose
# function glibc names in neither frame is keyed by the frame below glibc's; glibc's allocator aborting on a
# corrupted heap is named by its message (malloc_printerr's argument); gdb's notices on loading a program or a core,
# its "<signal handler called>" frame and macOS's "crashed on child side of fork pre-exec" name no bug; a
# backtrace_symbols module with a role ("redis-server *:6379 [cluster]") is read; jemalloc's arena internals and
# xmalloc/xfree wrappers are no frames; Go's loggers (log.Panicf, zap, logrus, klog) and gopls's bug package are
# reporting frames, and telemetry's frames with their code offset ("bug.report:+35,+0x3dc") are read; NLog's time
# and level opening an identity line ("2022-06-01 11:31:00.1033|ERROR|") are no part of it, and Windows' event-log
# notice of a .NET crash names no bug; a JVM exception's class name ends in its kind (an Android log tag "E/class
# …ErrorActivity:" is none), and R8's and D8's lambda names lose their build's hash; a linkage error
# (ClassNotFoundException, NoSuchMethodError, ModuleNotFoundError, TypeLoadException…) is keyed by the name it could
# not find (the class in Android's "Failed resolution of: L…;" and "Didn't find class \"…\""); a Python wrapper
# raised from the failure with no message of its own ("raise AstroidError from e") gives way to its cause; tokio's
# JoinError of a panicked task is read as the panic; a crash handler's banner above a goroutine ("!!!!! TERRAFORM
# CRASH !!!!!") is no message; an editor's line numbers in front of every line ("  1 panic: …") are taken off, and
# Jenkins' timestamper's time of day is a log prefix; a .NET type nested in another ("cce+UnreachableException") is
# named, and a .NET paste that begins in an earlier trace's frames is read from the exception below them; a Roslyn
# analyzer's failure is keyed across targets; Android's Binder (Parcel.readException, an AIDL interface's
# $Stub$Proxy) rethrowing a service's exception is no frame; JVM frames located "(Unknown Source:383)" (Android's)
# and "(SourceFile:5)" (R8's) are the JVM's, not .NET's, and an exception opening a stack pasted as inline code
# ("`java.lang.NullPointerException") is read; the rest of Android's platform (android.*, com.android.internal.*) is
# a standard library's frames, as java.* is; the HTTP/2 server's "http2: panic serving …" is the panic's line; Go's
# time.Time printed by a logger ("… +0000 UTC: ") is a log prefix; a log's INFO, DEBUG or TRACE line names no
# failure; gdb's C++ frames whose template arguments hold blanks or parentheses, or whose name is in an anonymous
# namespace, are read; GLib's logging (g_logv, g_log) and printf family are no frames, nor are the Kotlin JVM back
# end's drivers (JvmBackendFacade, KotlinCodegenFacade); a Python frame is keyed by its file's own name, not its
# folder (a module moved between releases is the same code), except a package's __init__.py and __main__.py;
# Bugsnag's issues ("## Error in <app>", "**X** in **File.kt:12**", "File.kt:12 - pkg.Class.method") are read, not
# keyed by the app's heading; a Go dump logged behind a label ("Stack: goroutine 72 …") or a console logger's time
# and level is named by the message above it, a structured logger's (logrus's msg="…", a JSON record's "msg") by
# that field; wasm-bindgen's futures queue and closure glue are no frames; GCC's "insn does not satisfy its
# constraints" error cut before its ICE line is that ICE (extract_constrain_insn's), as "unrecognizable insn" is
# extract_insn's; GCC's "libbacktrace could not find executable to open" names no bug; an exception type ending in
# Panic or Failure ("vyper.exceptions.CompilerPanic: …") reports a failure as one ending in Error does; a compiler's
# request for the report ("… and include this error message with your report", "Please create an issue") and Vyper's
# "Error compiling: x.vy" name no bug; a Go module's major version ("…/task/v3/internal/…") is no part of a frame.
# (The fuzzy stage, versioned apart: a crash type "unknown", a debugger's or a tombstone's with no signal printed,
# may be any type, as an empty one may.)
# v21: WinDbg's padded return-address column, its inlined frames ("(Inline Function) --------`--------") and its
# call-stack window ("[0x1]   coreclr!DoJITFailFast + 0x7") are read, and its event line ("(59cc.549c): Access
# violation - code c0000005 (first chance)", !analyze's EXCEPTION_CODE_STR) names the exception; its first-chance
# and symbol-loading notices name no bug; Windows' exception dispatch (RtlDispatchException, RaiseException) and
# the C runtime's reporting and start-up (__report_gsfailure, _invalid_parameter, _CxxThrowException,
# mainCRTStartup) are no frames; with no stack to read, a line ending in a colon ("… with the following error:")
# gives way to a line just below it that reports a failure, and where the line found is the reporter's (a colon at
# its end, or words alone with nothing a tool prints) a line they pasted in a Markdown fence goes first; a tool's
# apology and advice on any crash of it ("internal fault, sorry. Suggest trying --debug --gdbbt") name no bug;
# Go's channels' and sync package's panics on a misuse ("sync: WaitGroup is reused before previous Wait has
# returned", "close of closed channel", recovered or as a fatal error) are stock, as Rust's std's are, and a Go
# frame line of before 1.0 ("runtime.panicstring+0xa3 /…/runtime.c:116") is no identity; the C runtime's
# assertion dialog ("Assertion failed!", "File: …", "Expression: …") is the assertion its console line prints;
# Windows Error Reporting's problem signature and the event log's Application Error are read (the exception's
# code, and the application, the faulting module, its version and the offset into it as the place; a .NET or C++
# exception raised through the system has none); a crash log's own head and tail ("*** End of OpenTTD Crash Report
# ***", "Crash at: <date>"), a dialog's "has failed and X must quit" and "you should report this error", and gdb
# plugins' context (PEDA's EFLAGS line) name no bug; Nim's tracebacks are read (the compiler's internal error or a
# program's unhandled exception or signal, and the frames above the compiler's and the runtime's reporting; a
# traceback cut before its end keeps none); a message quoted whole is the message, and Visual Studio's "Unhandled
# exception at 0x… in App.exe: 0xC0000005: Access violation reading location 0x…" without its call stack names no
# bug; a Python traceback printed without its exception line, other text below its frames, is keyed by its
# innermost two or more frames of the program (one the text stops inside stays unkeyed), as a faulthandler dump
# without its "Fatal Python error" line is; an application's crash banner ("X has encountered a critical error and
# needs to exit", "This crash report was generated by X") names no bug; human-panic's report is read in its other
# TOML forms (a multi-line cause, quoted keys, 2.0's "file '…' at line N" explanation; the string's closing quotes
# no part of a message or frame); CPython's report of another failure than the crash ("Exception ignored in: …",
# "Exception ignored on calling ctypes callback function", a failed excepthook's "Error in sys.excepthook:") is
# read only when nothing else is, and its heads name no bug; the JDK as Android's desugaring ships it (j$.*) is
# the JDK, and a toolkit's check that raises for its caller (SWT's checkWidget and SWT.error, Guava's
# Preconditions, Commons' Validate, IntelliJ's PluginException for an outdated PSI) is no frame of the bug; a .NET
# lambda or async method is named by the method it is in ("<Dispose>b__0" in "<>c__DisplayClass22_0",
# "<PathBoxItem_Tapped>d__208.MoveNext"), not by the compiler's numbered class, which moves between builds; interop
# raising what the other side returned (CsWinRT's ExceptionHelpers, .NET Native's __Interop stubs, GtkSharp's
# ExceptionManager) is no frame of the bug, nor is a crash reporter's handler (App Center's, WinRT's
# unhandled-error propagation); App Center's two-line frames are read as .NET's; a warning (Python's "x.py:12:
# UserWarning: …", pip's "DEPRECATION: …"), a tool's version banner ("Nuitka: Version '2.6' …") and the source line
# under a Python frame are no identity; Gradle's "* What went wrong:" block is keyed by its innermost "> " cause
# (its Exec task's "Process 'command …' finished with non-zero exit value N" is stock); clang's "fatal error: error
# in backend: …" is LLVM's "LLVM ERROR: …", and macOS's __assert_rtn is the C library's, as __assert_fail is.
# v22: UBSan's report of a signal ("ERROR: UndefinedBehaviorSanitizer: SEGV on unknown address", then its stack) is
# read as the other sanitizers' are; an allocation the allocator refused before LLVM 8 ("WARNING: AddressSanitizer
# failed to allocate 0x… bytes", its notes, the allocator's CHECK and frames) is a sanitizer report, its notes no
# identity; an allocation error is named by its kind, as its SUMMARY line names it ("allocation-size-too-big",
# "out-of-memory"), not by the sizes the input asked for, and a number left in a sanitizer's error type is masked;
# color-eyre's fields parted by blank lines (a report pasted as prose) are one report; a Rust panic's location
# on a Windows path holding blanks ("C:\Program Files\Rust\.cargo\…") is read, and a hook's labelled location
# ("Panic: compiler-core/src/exhaustiveness.rs:434") with the message indented below it is the panic's, as is, with no
# panic of a known form, any hook's line saying "panic" with a Rust location on it or just below it (Neovide's
# "… panicked with the message '…'. (File: F; Line: N, …)", a {:?} print's "Location: Some(…)"); Boost.Stacktrace's
# frames ("8# f at F:L", "3# f in M") are read, those above the signal's way in (the C library's trampoline,
# Windows' KiUserExceptionDispatcher) the handler's; Node's and V8's fatal reports ("FATAL ERROR: …", "# Check
# failed: …", Node's assertion) are read with the native frames below their reporting machinery, a JavaScript heap
# out of memory naming no frame; the stack Go's cockroachdb/errors attaches ("  -- stack trace:", each line behind a
# "  | " gutter) is read as Go's; gdb's stop line on a function it did not know ("in ?? ()") is the backtrace's first
# frame however the backtrace names that unknown ("in ??? ()"); a handler's "X received signal 11 (…)" is stock; the
# Swift runtime's trap line, in any release's form ("F.swift:N: Fatal error: m", "Fatal error: m: file F, line N"),
# is keyed by its message and file as a Rust panic is (the standard library's own files no place; its stock
# messages keep the line); faulthandler's "Fatal Python error: …" is read after other output on its line; PyTorch's
# C++ error is keyed by the check that threw ("Exception raised from f at F:N") and the frame below c10::Error's
# own, except a CUDA error reported asynchronously, whose check and frames are any kernel's; Paddle's C++ traceback
# is read innermost first under its error (a signal by its name; "No stack trace in paddle" no frame). Readers that may
# claim another format's text are tried after it: the Swift trap line after lldb's and Apple's reports,
# Boost.Stacktrace's frames after Boost's exception report, a panic hook's words after Go's and the JVM's stacks.
# v23: LLVM's verifier giving up ("LLVM ERROR: Broken function found, compilation aborted!", "Broken module found",
# clang's "error in backend: …", rustc's with its last dumped value glued before it; not a reporter's sentence quoting
# it) is named by the check it printed at column 0 above its dump ("Instruction does not dominate all uses!", "!dbg
# attachment points at wrong subprogram for function") and the failing instruction's opcode and callee, the callee
# without its build's marks (a Rust symbol's hash, ".cold.1"), not by the line every front end's bad IR ends with
# (crashes.traces.llvm_verifier); typographic quotes ("‘I’", GCC's in a UTF-8 locale) are quotes, masked as '…' and "…"
# are; a line's severity word ("e: ", "error: ", "fatal: ", Gradle's, kotlinc's, git's) is no part of what failed; the
# types rustc prints into an ICE's message ("Failed to normalize <std::option::Option<…> as std::iter::Iterator>::Item",
# "<Foo as Bar>::Out") are masked as the user's names are, the compiler's own (rustc_middle::mir::Body) kept; a Go
# frame's function line (its source indented on the next line) is never a report's identifying line.
# v24: a diagnostic's location before its severity word ("code.dfy(2,7): Error: ", "x.cpp(12): fatal error C1001: ",
# "pkg/a.py:9: error: ") is the user's file and line, no part of what failed; a function GCC made and named for the
# user's file ("global constructors keyed to 65535_0_sketch.ino.cpp.o", LTO's) is named without the file; a line
# opening with one to six hashes and a blank (a Markdown heading, a root prompt, a comment) is never a report's
# identity; an old-form Rust panic's message may run over eleven lines below its head ("Caused by:" chains); a frame's
# module printed in square brackets ("#4  f(…) [libLLVM-14.so.1+0x132a9f0]", "[linux-vdso.so.1@0x7fa9…]") is its module;
# core's slice sorting is machinery, as its iterators are (it calls whatever comparator it was handed); Windows's own
# folders with blanks in their names ("C:/Program Files (x86)/…") are masked with the rest of their path; a run of
# more than 16 blanks after a line's first word is read as 16 (a terminal's padding: a panic printed after a padded
# progress line is read; every "name, then blanks to the line's end" pattern tried each blank of a long run).
VERSION = 24
STACK, MESSAGE, EXACT, DIFFERENTIAL = "stack", "message", "exact", "differential"
# Frames kept for the fuzzy stage (crashes.similarity), beyond those hashed.
SIMILARITY_FRAMES = 8


@dataclass(frozen=True)
class Rule:
    """How a format's crashes are keyed: frames hashed without a site, and with one."""

    frames: int = 3
    frames_with_site: int = 1
    # Whether the crash type alone is a kind of crash (an exception or
    # signal name) rather than a message that may name the bug.
    typed: bool = True


# Most formats: the crash's type and the top three frames of the program's own code.
_TOP_THREE = Rule(frames=3, frames_with_site=3)
# Where the message is mostly a kind of crash (Zig's "reached unreachable code", Bun's "Segmentation
# fault at address N"), or names the program's own types (Crystal's "trying to downcast X <- Y"): the
# frames decide, and the message alone when there are none.
_TOP_THREE_UNTYPED = Rule(frames=3, frames_with_site=3, typed=False)
RULES = {
    **dict.fromkeys(
        (
            "python",
            "python-faulthandler",
            "jvm",
            "kotlin-native",
            "dotnet",
            "sanitizer",
            "valgrind",
            "apple-crash",
            "libfuzzer",
            "gdb",
            "lldb",
            "glibc-backtrace",
            "qgis",
            "hotspot",
            "breakpad",
            "android-tombstone",
            "debugger-stack",
            "ruby",
            "php",
            "elixir",
            "javascript",
            "nim",
            "app-center",
        ),
        _TOP_THREE,
    ),  # fmt: skip
    **dict.fromkeys(("zig", "crystal", "bun-report", "lua"), _TOP_THREE_UNTYPED),
    "rust": Rule(frames=2, frames_with_site=1, typed=False),
    # OCaml's exception names the failure ("Failure(\"List.skipn\")"), unless it is a stock one (Not_found).
    "ocaml": Rule(frames=3, frames_with_site=1, typed=False),
    # rustc's triagers: the panic location's file and function, and the message.
    "rustc-ice": Rule(frames=2, frames_with_site=1, typed=False),
    "go": Rule(frames=2, frames_with_site=2, typed=False),
    "go-ice": Rule(frames=2, frames_with_site=2, typed=False),
    "gcc-ice": Rule(frames=2, frames_with_site=1, typed=False),
    # GHC's maintainers: a panic's first line and the module that raised it; a program's error, its
    # message and where it was called (crashes.traces.haskell).
    "haskell": Rule(frames=2, frames_with_site=1, typed=False),
    # An assertion text without its function or a frame is often a helper's (cast<>): not enough alone.
    "llvm": Rule(frames=2, frames_with_site=1, typed=True),
    # The kernel's reports, as syzbot names them: the kind and the function, then the call trace's frames.
    "linux-kernel": Rule(frames=2, frames_with_site=1, typed=True),
    # MSVC's ICE: the compiler's file and line, and the user's file (crashes.traces.msvc).
    "msvc-ice": Rule(frames=0, frames_with_site=0, typed=True),
    # The analyzer or generator that threw, its exception's class and its top frame.
    "roslyn-analyzer": Rule(frames=3, frames_with_site=1, typed=True),
    # Boost's diagnostic_information: the throw's function, as an assertion's.
    "boost-exception": Rule(frames=2, frames_with_site=1, typed=True),
}
_DEFAULT_RULE = Rule()
# Compilers' internal errors name a place in the compiler's own code: the same ICE
# reached by two targets' programs is one bug of that compiler. Not LLVM's: LLVM is a library
# every language's compiler embeds (clang, rustc, Zig, Swift, Julia), its assertions guard what
# each frontend hands it, and one assertion reached from two projects' frontends is each
# project's bug, triaged by each (and, across languages, never one bucket). A Roslyn analyzer's failure
# names the analyzer's code: one bug of the analyzer, whichever project's build met it.
_SHARED_CODE_FORMATS = frozenset({"rustc-ice", "gcc-ice", "go-ice", "roslyn-analyzer"})
# Formats printing several stacks of which one is the crash's, and saying which; and Node's fatal report, whose
# stack is all Node's and V8's when Node itself failed: no frame-like text of its head ("Local<v8::Value> node::…")
# is read in place of them.
_WHOLE_STACK_FORMATS = frozenset({"apple-crash", "node-native"})


def _digest(*parts: str) -> str:
    payload = "\n".join([f"v{VERSION}", *parts])
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


# "Unhandled exception. System.X.FooException: message", "KeyError: 'x'", "java.lang.FooError: …"
_TYPED_LINE = re.compile(
    r"^(?:.{0,80}?[\s.:])??(?P<type>[A-Za-z_$][\w$]{0,100}(?:\.[A-Za-z_$][\w$]{0,100}){0,10}(?:Exception|Error)): "
    r"(?P<message>.+)$"
)

# Go's runtime (and Zig's, by thread) print a panic as "panic: message" at the start of a line: a line
# read without the stack below it (cut, or pasted alone) is that panic's message, its type unknown.
_PANIC_LINE = re.compile(r"^(?:thread N )?panic: (?P<type>)(?P<message>.+)$")


def normalize_message(message: str) -> str:
    """A crash message with addresses, quoted names, paths and numbers masked."""
    return mask_message(message, 500)


def compute(
    *,
    kind: str,
    crash_type: str = "",
    trace_text: str = "",
    message: str = "",
    target: str = "",
    stage: str = "",
    reference: str = "",
    backends: Sequence[tuple[str, str]] = (),
    top_n: int = 3,
    ignore: tuple[re.Pattern, ...] = (),
) -> Signature:
    """Signature of one finding. ``backends`` are (name, outcome class) pairs.

    ``top_n`` is a target's own override of the frames hashed; 3 (the
    default) leaves each format's rule in charge.
    """
    if kind == "miscompilation":
        outcomes = dict(backends)
        expected = outcomes.get(reference, "ok")
        disagreeing = tuple(sorted(f"{name}={outcome}" for name, outcome in backends if outcome != expected))
        return Signature(
            version=VERSION,
            digest=_digest(kind, f"reference={reference}", *disagreeing),
            kind=kind,
            crash_type="wrong code" if "wrong_output" in outcomes.values() else "backend disagreement",
            frames=disagreeing,
            method=DIFFERENTIAL,
        )
    if kind in ("timeout", "oom"):
        where = stage or "-"
        return Signature(
            version=VERSION,
            digest=_digest(kind, target, where),
            kind=kind,
            crash_type=crash_type or ("Timeout" if kind == "timeout" else "Out of memory"),
            frames=(f"{target}:{where}",),
            method=EXACT,
        )
    cleaned = clean(trace_text) if trace_text else None
    parsed = traces.parse_cleaned(cleaned) if cleaned else None
    if parsed is not None and (parsed.frames or parsed.crash_type):
        signature = _from_trace(kind, parsed, crash_type, target, top_n, ignore)
        if signature is not None:
            return _titled(signature, parsed, ignore)
    return _from_text(kind, crash_type, message, cleaned, parsed, target, trace_text)


def _titled(signature: Signature, parsed: ParsedTrace, ignore: tuple[re.Pattern, ...]) -> Signature:
    """``signature`` with the function its title names, read from every frame of a Python trace.

    Added after v2's digests were recorded, and outside them: the hashed
    frames may be a comprehension's where the trace still names the target's
    function (``crashes.origins``). Signatures keyed on a line of text keep
    that line as their title.
    """
    if parsed.language != "python" or not parsed.frames:
        return signature
    return replace(signature, title_frame=title_function(parsed.frames[:MAX_FRAMES], ignore))


def _site_key(parsed: ParsedTrace) -> str:
    if not parsed.site:
        return ""
    # A file site ("compiler/rustc_x/src/y.rs") is already normalised by its parser.
    return parsed.site if "/" in parsed.site else normalize_path(parsed.site)


def _from_trace(kind, parsed: ParsedTrace, crash_type, target, top_n, ignore) -> Signature | None:
    rule = RULES.get(parsed.format, _DEFAULT_RULE)
    if parsed.language == "python" and not parsed.crash_type and parsed.cut:
        # Python prints the innermost frame last: a traceback the text stopped inside (cut before its
        # exception line) kept only the outer frames every crash shares. One that ended with other text
        # below it was printed without its exception line (a program's own formatting of it, "'Music'  File
        # …"): its innermost frames are there.
        return None
    site = _site_key(parsed)
    wanted = rule.frames_with_site if site else rule.frames
    if top_n != 3:
        wanted = top_n
    # The site is a frame already: only frames that differ from it follow.
    candidates = [f for f in parsed.frames if not (site and f.source == "panic site")]
    crash = (parsed.crash_type or crash_type).strip()
    # (Hashed after the crash type, and compared with it by the fuzzy stage: another name is another bug.)
    missing = _missing_name(crash, parsed.message)
    overflow = bool(STACK_OVERFLOW.search(crash))
    frames = significant_frames(
        candidates, parsed.language, max(wanted, SIMILARITY_FRAMES), ignore, target, overflow=overflow
    )
    if site and frames and frames[0].split("(")[0].endswith(site.rsplit("::", 1)[-1]):
        frames = frames[1:]
    hashed = frames[:wanted]
    if parsed.language == "python" and not crash and len(hashed) < _TYPELESS_FRAMES:
        # A traceback printed without its exception line is keyed by its innermost frames alone: one frame
        # ("black.py:assert_equivalent", a module's "<module>") is where many failures pass.
        return None
    if site and parsed.site_line is not None and is_generic(crash):
        # A file without its line (rustc's ICEs) and a stock message ("index out of bounds") say
        # only which file gave up, and a compiler's file holds many checks: the line says which,
        # though it moves between versions (then the fuzzy stage weighs the frames). Kept with
        # frames too, so that one report with a backtrace and one without still share the site.
        site = f"{site}:{parsed.site_line}"
    identified = bool(site or hashed or parsed.context) or (not rule.typed and not is_generic(crash))
    if not identified:
        return None
    key_frames = ((f"site {site}",) if site else ()) + tuple(parsed.context) + hashed
    caller = None if site else dependency_caller(candidates, parsed.language, ignore, target)
    if caller and caller not in hashed:
        key_frames += (f"caller {caller}",)
    # A compiler's crash keyed by the user's input it was compiling (no frame of its own) is the target's.
    by_input = any(part.startswith(INPUT) for part in parsed.context)
    scope = "" if parsed.format in _SHARED_CODE_FORMATS and not by_input else target
    return Signature(
        version=VERSION,
        digest=_digest(kind, parsed.format, scope, crash, *((f"missing {missing}",) if missing else ()), *key_frames),
        kind=kind,
        crash_type=crash,
        frames=key_frames,
        message=parsed.message,
        method=STACK,
        trace_format=parsed.format,
        similarity_frames=frames,
        repairs=parsed.repairs,
        fuzzy_message=_fuzzy_message(parsed.message),
        fuzzy_crash_type=f"{crash}: {missing}" if missing else crash,
    )


# How many of the program's frames a Python traceback without its exception line must have to be keyed by them.
_TYPELESS_FRAMES = 2


# Errors of a program that could not find a piece of itself (a class, a method, a module, an assembly):
# the name it looked for is the bug, and every such crash passes the same loader's frames.
_LINKAGE_ERROR = re.compile(
    r"(?:^|[.:])(?:ClassNotFoundException|NoClassDefFoundError|NoSuchMethodError|NoSuchFieldError|"
    r"NoSuchMethodException|UnsatisfiedLinkError|AbstractMethodError|IncompatibleClassChangeError|"
    r"ModuleNotFoundError|TypeLoadException|MissingMethodException|MissingFieldException)$"
)
# A JVM class named as the loader does ("kotlinx/coroutines/flow/FlowKt"), not a path; and the class in
# Android's wordings ("Failed resolution of: Lkotlin/time/Duration;", "Didn't find class \"x.Y\" on path:
# DexPathList[[zip file \"/data/app/~~RAEJ…==/…/base.apk\"]…", the path one install's).
_INTERNAL_CLASS_NAME = re.compile(r"^[\w$]+(?:/[\w$]+)+$")
_ANDROID_CLASS = re.compile(
    r"Failed resolution of: L(?P<internal>[\w$/]{1,300});|Didn't find class \"(?P<named>[\w$.]{1,300})\""
)


def _missing_name(crash: str, message: str) -> str:
    """What a linkage error says was missing, masked, or "" for any other crash."""
    if not message or not _LINKAGE_ERROR.search(crash):
        return ""
    # (Android adds where the class it searched was loaded from: "(declaration of 'kotlin.time.Duration'
    # appears in /data/app/~~RAEJ…==/com.example-jvqF…/base.apk!classes3.dex)", one install's path.)
    first = message.strip().split("\n", 1)[0][:300].split(" (declaration of ", 1)[0]
    android = _ANDROID_CLASS.search(first)
    if android:
        first = android["named"] or android["internal"]
    if _INTERNAL_CLASS_NAME.match(first):
        first = first.replace("/", ".")
    return mask_message(first, 200, quoted=False)


# A message pasted without its type must say this much more to be matched by.
_UNTYPED_CONTENT_WORDS = 5


def _fuzzy_message(message: str, untyped: bool = False) -> str:
    """A message worth matching frameless reports by: its first line, masked, unless it names nothing."""
    first = message.strip().split("\n", 1)[0]
    masked = mask_message(first, 200, quoted=False).rstrip(".")
    wanted = _UNTYPED_CONTENT_WORDS if untyped else 2
    # Judged with its quoted names masked too: "called `Option::unwrap()` on a `None` value" is Rust's
    # stock panic, whatever its backticks hold.
    # (What unwrap() found may still name something: "…on an `Err` value: ShaderCompile(…)".)
    stock = is_generic(masked) or is_generic(unwrap_payload(mask_message(first, 200).rstrip(".")))
    return "" if stock or not names_something(masked, wanted) else masked


# An unsymbolized frame's module and offset: "clangd+0x9c6b48", "libc.so.6+0x42520", "libfoo.so(+0x1f)".
# (A name, not an address: "0xd7ad8798+0x0" is one run's.)
_MODULE_OFFSET = re.compile(r"(?<![\w.-])[A-Za-z_][\w.-]{0,99}\(?\+0x[0-9a-fA-F]{1,16}\b")
# How much of a text its offsets are read from (a hostile text may hold nothing else).
_OFFSETS_READ = 64 * 1024


def _from_text(
    kind, crash_type, message, cleaned, parsed: ParsedTrace | None, target: str, trace_text: str = ""
) -> Signature:
    """No usable stack: the most specific line and any frames of an unknown format, or a bucket of its own."""
    text = cleaned.text if cleaned else ""
    line = identity_line(message) if message else ""
    if not line and parsed is not None and parsed.crash_type:
        # What the format's parser read as the crash ("LLVM ERROR: underestimated function size", an
        # assertion), when it says something: never the reporter's sentence above it that also says "error".
        masked = mask_message(parsed.crash_type, 200, quoted=False)
        # (Not an exception's type alone: "org.jetbrains.kotlin.backend.common.BackendException" is a kind.)
        if " " in masked and names_something(masked, 3) and not is_generic(masked):
            line = masked
    if not line:
        line = identity_line(text)
        if line and trace_text and introduces_or_tells(line):
            # The reporter's line introducing what they pasted, too far below for the lead-in rule ("Opening the
            # following file in an editor generates a panic:", a reproducer's block, then the panic's): what they
            # pasted as code says what failed, if it says.
            inside = fenced(trace_text)
            line = (identity_line(clean(inside).text) if inside else "") or line
    if parsed is not None and parsed.crash_type and not is_generic(parsed.crash_type):
        line = line or parsed.crash_type
    repairs = cleaned.repairs if cleaned else ()
    # Frame-like lines of a format that knows which of its stacks is the crash's are not read again:
    # a macOS report cut before its crashed thread shows only other threads' stacks.
    frames = generic_frames(text, 2) if text and not (parsed and parsed.format in _WHOLE_STACK_FORMATS) else ()
    if line or frames:
        typed = (_TYPED_LINE.match(line) or _PANIC_LINE.match(line)) if line else None
        read_message = parsed is not None and parsed.language == "rust" and bool(parsed.message.strip())
        return Signature(
            version=VERSION,
            # A line is weaker evidence than a stack: trusted within one target only.
            digest=_digest(kind, target, crash_type, "message", line, *frames),
            kind=kind,
            crash_type=crash_type
            or (parsed.crash_type if parsed else "")
            or (typed["type"] if typed else "")
            or line[:100],
            frames=frames,
            message=line,
            method=MESSAGE,
            trace_format=parsed.format if parsed else "",
            repairs=repairs,
            # "System.InvalidCastException: Unable to cast …" with no stack: its type
            # and message may find the bucket of a report that had one.
            similarity_frames=frames,
            # Rust's parser read the panic's message: the line is one, as a type would say.
            fuzzy_message=_fuzzy_message(typed["message"] if typed else line, untyped=not (typed or read_message)),
            fuzzy_crash_type=typed["type"] if typed else "",
        )
    # Nothing in it names this crash: alone, unless the same text comes again
    # (all of it: two reports from one template share their first screen).
    whole = mask_message(text or message or crash_type, len(text or message or crash_type) + 1, quoted=False)
    # Masked, two stacks of unsymbolized frames ("(/usr/bin/clangd+0x9c6b48)") read alike; their offsets are
    # places in one build, so they stay: the same crash of one build again is the same text.
    offsets = tuple(found.group(0) for found in _MODULE_OFFSET.finditer(text[:_OFFSETS_READ])) if text else ()
    # A message pasted alone ("Cyclic reference found while evaluating …") may
    # still find, by the fuzzy stage, the bucket of a report that had a stack.
    pasted = [line for line in text.split("\n", 4)[:4] if line.strip()] if text else []
    alone = _fuzzy_message(pasted[0].strip("`"), untyped=True) if len(pasted) == 1 else ""
    return Signature(
        version=VERSION,
        digest=_digest(kind, target, crash_type, "unidentified", whole, *offsets),
        kind=kind,
        crash_type=crash_type or (parsed.crash_type if parsed else "") or "unidentified crash",
        frames=(),
        message=(text or message)[:500],
        method=MESSAGE,
        trace_format=parsed.format if parsed else "",
        repairs=repairs + ("no identifying line: a bucket of its own",),
        fuzzy_message=alone,
    )
