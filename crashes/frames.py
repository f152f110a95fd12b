"""Frame normalisation and the default ignore lists, per language.

A frame key must survive what changes between two hits of the same bug:
where the code is checked out, which build made the binary, the line
numbers, the arguments and template instantiations, compiler-generated
suffixes, Rust symbol hashes, lambda numbering. And frames that belong to a
runtime, a standard library, a sanitizer or the fuzzing harness say nothing
about which bug it is, so they are skipped.

The rules of signature algorithm v2 (v1's are frozen in
``crashes/v1/frames.py``). Changing a rule changes signatures: once v2 is
released, add a new algorithm version rather than editing these.
"""

from __future__ import annotations

import functools
import re

from crashes.demangle import demangle
from crashes.model import Frame

_PACKAGES = re.compile(r"^.*/(?:site|dist)-packages/")
# (Free-threaded builds name theirs with a "t": lib/python3.13t/.)
_STDLIB = re.compile(r"^.*/lib/python\d+(?:\.\d+)?t?/")

# Languages whose printed function names carry the whole identity (package,
# class, method); Python's do not (every module has a `main` and `__init__`).
_PYTHON_IGNORED_FILES = (
    re.compile(r"/lib/python\d+(\.\d+)?t?/(?!.*(site|dist)-packages/)"),  # standard library
    # Windows's installs keep it in <install>\Lib\ (C:\Python311\Lib\threading.py, …\Python311\Lib\, the
    # Store's PythonSoftwareFoundation.Python.3.11_…\Lib\, anaconda3\Lib\, a conda env's envs\x\Lib\).
    re.compile(
        r"(?i)/(?:[\w.-]*python[\w.-]*|(?:ana|mini)conda\d*|miniforge\d*|mambaforge|envs/[^/]+)/lib/"
        # (Not POSIX's lib/python3.11/, read by the rule above with its site-packages.)
        r"(?!(?:site|dist)-packages/|python\d)"
    ),
    re.compile(r"^<frozen "),
    re.compile(r"^<string>$"),
    re.compile(r"(^|/)engines/pyfunc/"),  # fuzzweb's own harness
    re.compile(r"(site|dist)-packages/(atheris|_pytest|pluggy|hypothesis)/"),
    # Web frameworks' request dispatch and servers' workers: every view's crash passes through them (Django's
    # handlers, Starlette's and FastAPI's routing and middleware, uvicorn's, gunicorn's and anyio's workers;
    # Flask's and Django's middleware by their functions below).
    re.compile(
        r"(?:site|dist)-packages/(?:django/core/handlers/|starlette/(?:routing|_exception_handler|_utils|middleware/)|"
        r"fastapi/routing\.py|uvicorn/|gunicorn/workers/|anyio/_backends/)"
    ),
)

# Entry points and request loops every crash of a tool passes through: mypy's
# command line and the dmypy daemon's loop (its maintainers read a daemon
# crash by the failing site below them), console scripts' <module>.
_PYTHON_IGNORED_FRAMES = re.compile(
    r"(?:^|/)(?:dmypy_server\.py:(?:serve|run_command)|main\.py:(?:main|run_build|console_entry)|"
    r"__main__\.py:(?:console_entry|main|<module>)|bin/[\w.-]+:<module>|runpy\.py:\w+|"
    # Flask's dispatch and Django's middleware chain, around every view.
    r"flask/app\.py:(?:wsgi_app|full_dispatch_request|dispatch_request|handle_user_exception|handle_exception|"
    r"__call__)|django/utils/deprecation\.py:__call__|werkzeug/serving\.py:\w+)$"
)

# LLVM's signal handling, which prints its stack dump (llvm::sys::PrintStackTrace and its callers): in every
# LLVM-based compiler's crash, never the crash's own.
LLVM_HANDLERS = "PrintStackTrace|SignalHandler|CrashRecoverySignalHandler|RunSignalHandlers"
_IGNORED_FUNCTIONS = {
    "jvm": re.compile(
        r"^(java\.|javax\.|jdk\.internal\.|sun\.|kotlin\.(collections|coroutines|jvm|internal|sequences|io|text)\.|"
        # The JDK's library as Android's desugaring ships it to older devices ("j$.nio.file.Files", R8's "j$.a.b").
        r"j\$\.|"
        # Checks that raise on a bad argument or state, for whoever called them (SWT's "Widget is disposed" from
        # checkWidget, Guava's Preconditions, Commons' Validate, IntelliJ's PluginException for an outdated PSI):
        # the caller below them is the bug.
        r"org\.eclipse\.swt\.SWT\.error|org\.eclipse\.swt\.widgets\.Widget\.(?:error|checkWidget)\b|"
        r"com\.google\.common\.base\.(?:Preconditions|Verify)\.|org\.apache\.commons\.lang3?\.Validate\.|"
        r"com\.intellij\.ide\.plugins\.PluginManagerCore\.createPluginException|com\.intellij\.diagnostic\.Plugin"
        r"(?:ProblemReporterImpl\.createPluginExceptionByClass|Exception\.createByClass)|"
        r"com\.intellij\.psi\.util\.PsiUtilCore\.ensureValid|"
        # Kotlin/Native's runtime (ThrowIrLinkageError, the exception-throwing helpers).
        r"kotlin\.native\.internal\.|"
        r"kotlin\.(ExceptionsKt|PreconditionsKt|StandardKt|LazyKt|SynchronizedLazyImpl|UnsafeLazyImpl)|"
        r"org\.junit\.|junit\.|com\.intellij\.rt\.|"
        # Gradle running a task (and its worker processes): every failed build passes through them.
        r"org\.gradle\.|worker\.org\.gradle\.|"
        # Scala's assert and require, and the helpers its compilers' asserts call (Scala 3's
        # Scala3RunTime.assertFailed, earlier DottyPredef.assertFail): where a check is reported, not which.
        r"scala\.Predef\$?\.(?:assert|require|\?\?\?)|scala\.runtime\.Scala3RunTime\$?\.|dotty\.DottyPredef\$?\.|"
        # Android's platform is its standard library, as java.* is the JDK's: its main loop, activity launcher
        # and zygote run every app's crash on the main thread, and its classes are where an app's call failed,
        # not which call (View.layout for every app's layout crash). Binder's calls into another process
        # (Parcel.readException, an AIDL interface's $Stub$Proxy) rethrow what the service threw: the app's own
        # call below them says which.
        r"android\.|com\.android\.internal\.|dalvik\.system\.|[\w.$]{1,300}\$Stub\$Proxy\.|"
        # The Kotlin compiler reporting a backend failure, and its phase runner: every IR crash passes them.
        r"org\.jetbrains\.kotlin\.backend\.common\.(?:CodegenUtil\.reportBackendException|BackendException|phaser\.)|"
        # K2's wrapping of a failure in one file: every front-end crash passes them.
        r"org\.jetbrains\.kotlin\.(?:util\.AnalysisExceptionsKt\.wrapIntoFileAnalysisExceptionIfNeeded|"
        r"fir\.FirCliExceptionHandler\.)|"
        # The compiler's drivers (the JVM back end's codegen factory, the command line, the daemon, the
        # incremental runner): every compilation runs inside them.
        r"org\.jetbrains\.kotlin\.(?:backend\.jvm\.(?:JvmIrCodegenFactory|JvmBackendFacade)\.|"
        r"codegen\.KotlinCodegenFacade\.|cli\.|daemon\.|incremental\.|"
        r"compilerRunner\.|gradle\.)|"
        # The front end's expression-typing dispatch and its timers, through which every expression is typed
        # ("Exception while analyzing expression" reports pass them whatever the bug).
        r"org\.jetbrains\.kotlin\.(?:types\.expressions\.ExpressionTypingVisitorDispatcher|util\.PerformanceCounter)\.)"
    ),
    # (And Unity's engine, under a game's scripts: crashes.traces.unity.)
    "dotnet": re.compile(
        r"^(System\.|Microsoft\.(CSharp|VisualStudio|Extensions|Win32)\.|UnityEngine\.|UnityEditor\.|"
        # F#'s core library (its async builder, its collections) and Roslyn running an analyzer: they run
        # whatever code they were handed.
        r"Microsoft\.FSharp\.|Microsoft\.CodeAnalysis\.Diagnostics\.Analyzer(?:Executor|Driver)\b|"
        # Interop raising what the other side returned, for whoever called across it: CsWinRT's HRESULT helpers,
        # .NET Native's COM marshalling stubs, GtkSharp's handler of an exception thrown in a signal callback.
        r"WinRT\.ExceptionHelpers\.|__Interop\.|GLib\.ExceptionManager\.|"
        # A crash reporter's handler of the unhandled error it was told of (App Center's, WinRT's propagation).
        r"Microsoft\.AppCenter\.|ABI\.Windows\.ApplicationModel\.Core\.IUnhandledErrorMethods\.)"
    ),
    "native": re.compile(
        r"^(__asan|__ubsan|__msan|__tsan|__lsan|__sanitizer|__interceptor_|___interceptor_|__interception|"
        r"__GI_|__libc_|__pthread|_dl_|__assert_fail|__assert_perror_fail|__assert_rtn$|__restore_rt|__kernel_|_IO_|"
        r"raise$|abort$|gsignal$|_start$|start_thread$|(?:__)?clone3?$|syscall(?:_\w+)?$|"
        r"(std::|__gnu_cxx::|__cxxabiv1::)|operator new|operator delete|"
        r"(malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|strlen|strcmp|strcpy|strncpy)$|"
        # The C library's formatting, stdio and string functions, named when its debug info is installed
        # (Valgrind and gdb print "vfprintf (vfprintf.c:1642)"), and glibc's per-CPU variants of them.
        r"(v?[fs]?n?printf|__vfprintf_internal|__v?[fs]?n?printf_chk|puts|fputs|fputc|fwrite|fread|fgets|"
        r"fflush|fclose|fopen|qsort|bsearch|strchr|strrchr|strstr|strdup|strndup|strcat|strncat|strncmp|"
        r"strtol|strtoul|strtoll|strtoull|strtod|atoi|atol|memchr|memrchr|getenv)$|"
        r"__(?:mem|str|stp|wcs|wmem)\w*_(?:avx\w*|sse\w*|evex\w*|erms|unaligned\w*)$|"
        r"fuzzer::|LLVMFuzzerTestOneInput$|rust_fuzzer_test_input$|libfuzzer_sys::|"
        # LLVM's C API (LLVMVerifyModule, LLVMTargetMachineEmitToFile): a front end handing LLVM its work.
        r"LLVM(?!Fuzzer)[A-Z][A-Za-z0-9]*$|"
        r"llvm::sys::|llvm::report_fatal_error|llvm::llvm_unreachable_internal|llvm_unreachable_internal|"
        r"llvm::PrettyStackTrace|llvm::CrashRecoveryContext|llvm::function_ref|"
        r"llvm::(legacy::)?PassManager|llvm::FPPassManager|llvm::MPPassManager|llvm::detail::PassModel|"
        r"llvm::MachineFunctionPass::runOnFunction|"
        r"internal_error$|fancy_abort$|crash_signal$|diagnostic_impl$|diagnostic_report_diagnostic$|"
        r"diagnostic_context::|error_at$|internal_error_at|_fatal_insn|"
        # (macOS prefixes a symbol with "_"; since Rust 1.89 the panic entry points are "__rustc::".)
        r"_?rust_begin_unwind|rust_panic|__rust_|__rustc::|std::panicking|core::panicking|core::panic|"
        # rustc's diagnostics and query plumbing: every ICE passes through them.
        r"rustc_errors::|rustc_middle::util::bug|rustc_span::|rustc_query_system::|rustc_query_impl::|"
        r"rustc_interface::|rustc_driver|rustc_data_structures::|rustc_middle::ty::context::tls|"
        r"rustc_middle::query::plumbing|rustc_middle::ty::query::|std::thread::|std::sys::|<unknown>$|"
        # The same before the 2020 split of librustc (rustc_middle was rustc, rustc_span syntax_pos),
        # and the globals every old compilation ran inside.
        r"rustc::util::bug|rustc::ty::context::tls|rustc::ty::query::|rustc::dep_graph::|syntax_pos::|"
        r"scoped_tls::|syntax::(?:attr::)?with_globals|"
        # The backtrace crate capturing the backtrace, and std's own printing of it.
        r"backtrace::|std::sys_common::|std::io::|std::backtrace|"
        r"core::result::unwrap_failed|core::option::(expect|unwrap)_failed|core::ops::function::|"
        # unwrap()/expect() themselves, and the slicing that raised (since track_caller they print).
        r"core::(?:option::Option|result::Result)::(?:unwrap|expect)\w*$|core::str::slice_error_fail|"
        # (Sorting, too: it calls whatever comparator it was handed.)
        r"core::slice::index::|core::str::traits::|core::iter::|core::slice::sort::|"
        # An async runtime's task machinery (tokio's scheduler and task harness, futures' combinators, Pin's
        # and UnsafeCell's forwarding): it polls whatever future it was handed.
        r"tokio::runtime::(?:task|scheduler|park|context|blocking|runtime|handle)|"
        r"tokio::task::(?:coop|harness|raw|core)::|tokio::task::Task::run$|tokio::loom::|"
        r"core::pin::Pin::poll$|core::future::|core::cell::UnsafeCell::with_mut$|futures_util::future::future::|"
        r"futures_core::|"
        # wasm-bindgen's glue in a WebAssembly build: its futures queue and closures run the callback that
        # failed, whatever it was (the browser's event loop calls them).
        r"wasm_bindgen_futures::|wasm_bindgen::convert::closures::|wasm_bindgen::closure::|"
        # Drop glue and rustc's pass timer: they run whatever they were handed.
        r"core::ptr::drop_in_place|rustc_session::session::Session::time|"
        r"core::fmt::|std::rt::|std::sys|alloc::|"
        # The same, as Rust before 1.0 named them (no ``std::``).
        r"sys::backtrace::|sys_common::|rt::unwind::|rt::lang_start|panicking::|"
        r"BaseThreadInitThunk$|RtlUserThreadStart$|KiUserExceptionDispatcher|"
        # Windows' exception dispatch and the C runtime's reporting and start-up (a /GS cookie's failure, an
        # invalid parameter, a C++ throw, mainCRTStartup): every crash on Windows passes through them.
        r"Rtl(?:p?ExecuteHandlerForException|DispatchException|RaiseException)$|RaiseException$|"
        r"__report_gsfailure$|__report_securityfailure$|_invalid_parameter\w*$|_CxxThrowException$|"
        r"__CxxFrameHandler\d?$|__scrt_\w+$|_?_?w?(?:main|WinMain)CRTStartup$|invoke_main$|"
        # glibc's allocator (and jemalloc's je_*) reporting a heap it found corrupt ("malloc(): corrupted top
        # size"): where the corruption was noticed, by every caller of malloc.
        r"malloc_printerr$|malloc_consolidate$|_int_(?:malloc|free|realloc|memalign)$|sysmalloc$|"
        r"unlink_chunk$|munmap_chunk$|tcache_\w+$|je_\w+$|arena_(?:dalloc|ralloc|malloc|palloc|salloc)\w*$|"
        # and the allocation wrappers of GNU programs (libiberty's, Vim's and Neovim's xmalloc/xfree): their
        # caller is the one that freed twice or asked for too much.
        r"x(?:malloc|calloc|realloc|free|strdup|memdupz?)$|"
        # GLib's signal emission and main loop, libffi's calls and libwayland's (a GTK or Wayland program's
        # callbacks run inside them), and the OpenMP runtime's threads (a parallel region's body runs inside
        # them, named by the region, not the code).
        r"g_closure_invoke$|_g_closure_invoke_va$|g_signal_emit\w*$|signal_emit_unlocked_R|"
        r"g_cclosure_marshal_\w+$|g_main_context_\w+$|g_main_loop_run$|ffi_call\w*$|"
        # GLib's logging (g_error and g_critical trap in g_logv) and its printf family: where a message was
        # written, by every caller of it.
        r"g_logv$|g_log$|g_log_structured\w*$|g_log_default_handler$|g_log_writer_\w+$|g_v?a?s?n?printf$|"
        r"g_strdup_v?printf$|g_string_(?:append_)?v?printf$|"
        r"wl_signal_emit\w*$|wl_closure_invoke$|wl_display_dispatch\w*$|wl_event_loop_dispatch$|"
        r"__kmp_\w+$|GOMP_\w+$|gomp_\w+$|"
        # React Native's bridge reporting a JavaScript error as a native crash (RCTFatal, the exceptions
        # manager, the module method that carried it): every unhandled JS error passes through them.
        r"RCTExceptionsManager\.|RCTModuleMethod\.|RCTCxxBridge\.|RCTNativeModule\.|facebook::react::|"
        # Node's and V8's own code below a JavaScript program's crash (a heap exhausted: "node::OOMErrorHandler",
        # "v8::internal::Heap::CollectGarbage"): the runtime's, whatever the program did.
        r"node::|v8::|heap::base::|"
        # CPython's interpreter loop and call machinery, under an extension module's code: any crash of
        # any extension passes through them.
        r"_?PyEval_\w+$|_?PyObject_(?:Call|FastCall|Vectorcall|MakeTpCall)\w*$|_?PyFunction_\w+$|"
        r"_?PyVectorcall_\w+$|_?PyCFunction_\w+$|cfunction_(?:call|vectorcall)\w*$|method_vectorcall\w*$|"
        r"slot_tp_\w+$|_?Py_(?:RunMain|BytesMain|Main)$|pymain_\w+$|_?PyRun_\w+$|run_(?:mod|eval_code_obj)$|"
        r"call_function$|function_code_fastcall$|fast_function$|do_call_core$|_ctypes_callproc$|"
        # Qt's event loop and signal dispatch, through which every Qt program's crash passes.
        r"Q(?:Core|Gui)?Application(?:Private)?::(?:notify\w*|sendThroughObjectEventFilters|sendPostedEvents|exec)$|"
        r"QGuiApplicationPrivate::process\w*Event$|QEventLoop::|QEventDispatcher\w*::|QWindowSystemInterface\w*::|"
        r"QMetaObject::activate$|QMetaCallEvent::placeMetaCall$|QObject::event$|QtPrivate::(?:QSlotObject|QFunctorSlot"
        r"Object|FunctorCall)|\w+::qt_static_metacall$|"
        # Qt's exported symbol a Windows build without its symbols names any of Qt's code by.
        r"qt_plugin_query_metadata$|"
        r"runtime\.|testing\.|"
        # macOS's loader starting the program (a crash at launch shows nothing else).
        r"_dyld_start$|dyld::|dyld4::|"
        # Valgrind's name for whatever called main (__libc_start_main and below).
        r"\(below main\)$)"
        # Anywhere in the name: crash handlers, whatever namespace they are in.
        rf"|({LLVM_HANDLERS})"
        # The C library's backtrace() (or a sanitizer's interceptor of it): only a crash handler calls it.
        r"|^(?:__interceptor_)?backtrace(?:_symbols(?:_fd)?)?$"
        # Chromium's (Electron's) stack capture in its signal handler: every crash's first frames.
        r"|^base::debug::(?:CollectStackTrace|StackTrace::StackTrace)"
    ),
}
_IGNORED_FUNCTIONS["rust"] = _IGNORED_FUNCTIONS["native"]
_IGNORED_FUNCTIONS["go"] = re.compile(
    r"^(runtime\.|runtime/|testing\.|panic$|reflect\.|sync\.|internal/)"
    # Loggers a program panics or exits through (the standard log's Panicf and Fatal, zap's, logrus's,
    # klog's), and gopls's bug package that files its "bug" reports: where a failure is reported, not where.
    r"|^log\.(?:Panic|Fatal)\w*$|^go\.uber\.org/zap(?:/zapcore)?\.|^github\.com/sirupsen/logrus\.|"
    r"^k8s\.io/klog(?:/v2)?\.|^golang\.org/x/tools/gopls/internal/(?:util/)?bug\."
)
# Native frames compiled from the C library or the compiler's runtime sources.
_IGNORED_NATIVE_FILES = re.compile(
    r"(^|/)glibc[-/]|(^|/)sysdeps/|/libgcc/|/compiler-rt/lib/|/libsanitizer/|(^|/)Fuzzer\w*\.cpp$|"
    # The C library's headers inlined into the program: its fortify wrappers ("read
    # /usr/include/x86_64-linux-gnu/bits/unistd.h:44"), and the compiler's intrinsics. (Not any header under
    # /usr/include: gdb names a program's function by the C++ header a call was inlined from.)
    r"^/usr/include/(?:[\w-]+-linux-gnu\w*/)?bits/|/lib/gcc/[^/]+/[^/]+/include/|"
    # glibc's sources as Debian's debug info names them ("_nl_load_domain ./intl/loadmsgcat.c" is
    # how assert() symbolizes in an LLVM stack dump there).
    r"^\./(?:nptl|signal|stdlib|intl|assert|csu|posix|misc|string|libio|malloc)/|"
    # Valgrind's own replacements of the C library's functions (rindex, malloc, memcpy…), and
    # Helgrind's and DRD's wrappers of pthreads.
    r"(^|/)(?:vg_replace_\w+|hg_intercepts|drd_pthread_intercepts)\.c$"
)
_IGNORED_MODULES = re.compile(
    r"(libc\.so|libc-|libstdc\+\+|libc\+\+|libgcc_s|libpthread|ld-linux|libclang_rt\.|"
    r"libasan|libubsan|libtsan|libmsan|linux-vdso|vgpreload_|"
    # Android's runtime and its system libraries below an app's native code (bionic's libc is libc.so).
    r"(?:^|/)(?:libart|libandroid_runtime|libbase|libutils|libbinder|linker64|linker)(?:\.so)?$|"
    # macOS's C library, kernel interface, signal trampoline and loader, as glibc's are above (its C++
    # runtime, libc++abi.dylib, is libc++ above).
    r"libsystem_|libdyld\.dylib|(?:^|/)dyld$|"
    # and its runtimes and system frameworks (named by file, or by bundle in older reports), as the C++
    # standard library is: the program's own frame that called them says which bug it is.
    r"(?:^|/)(?:libobjc\.A\.dylib|libdispatch\.dylib|libswiftCore\.dylib|com\.apple\.[\w.]+|"
    r"CoreFoundation|Foundation|AppKit|UIKitCore|HIToolbox)$|"
    # Windows's own: its kernel and user interfaces and the C and C++ runtimes (WinDbg names them
    # without their extension).
    r"(?i:(?:^|[\\/])(?:ntdll|kernel32|kernelbase|ucrtbased?|msvcrt|msvcp\d{2,3}(?:_\d)?d?|vcruntime\d{2,3}(?:_\d)?d?|"
    r"user32|"
    r"win32u|combase|rpcrt4)(?:\.dll)?$))"
)

# Rust before 1.0 appended three more characters to the hash (``::he27ef2eb40e30753Plt``), and
# early releases printed it as twenty decimal digits (``::h12013305559594873944``).
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}(?:[A-Za-z0-9]{3,4})?$|::\{\{closure\}\}|\{\{closure\}\}")
_JVM_LAMBDA = re.compile(
    # (And Android's R8 and D8, which name a lambda by a hash of one build: "Deleter.$r8$lambda$B-Gi_zHjoCZ…",
    # "PlaylistAppendDialog$$ExternalSyntheticLambda4.accept".)
    r"\.?\$r8\$lambda\$[\w-]+|\$\$(?:External|Internal)Synthetic[A-Za-z]+\d*|-\$\$Lambda\$[\w$-]+|"
    r"\$\$Lambda\$\d+/0x[0-9a-f]+|\$lambda-?\d*|\$lambda\$\d+|lambda\$(\w+)\$\d+|\$\d+"
)
_DOTNET_SUFFIX = re.compile(r"<(\w+)>[a-z]__\w+(?:\.MoveNext\b)?|[+.]<>c__DisplayClass\w+|[+.]<>c\b|`\d+|\[[^\]]*\]")
_OBJC_METHOD = re.compile(r"^[-+]\[(?P<cls>[^\s\[\]]{1,300}) (?P<selector>[^\s\[\]]{1,300})\]$")
_INNERMOST_ANGLES = re.compile(r"<[^<>]*>")
_TRAIT_IMPL = re.compile(r"<([^<>]+?) as [^<>]+>")
_SYMBOL_OFFSET = re.compile(r"\+0x[0-9a-fA-F]{1,16}$")
# GCC's clones (.isra.0, .constprop.1, .part.2, .cold) and ThinLTO's promoted locals (.llvm.5756000633998662627).
_COMPILER_SUFFIX = re.compile(r"\.(isra|constprop|part|cold|lto_priv|localalias)(\.\d+)*|\.llvm\.\d+$|\.\d+$")
_GO_FUNC_SUFFIX = re.compile(r"\.func\d+(\.\d+)*|\.gowrap\d+|\.deferwrap\d+|(?<=\.init)\.\d+$")
# A vendored copy is the same code: github.com/a/b/vendor/github.com/c/d.F -> github.com/c/d.F.
_GO_VENDOR = re.compile(r"^.*/vendor/")
_GO_MAJOR_VERSION = re.compile(r"/v\d{1,3}(?=/)")
_GO_MAJOR_VERSION_ROOT = re.compile(
    r"^((?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|gitea\.com)/[\w.-]{1,100}/[\w.-]{1,100})/v\d{1,3}(?=\.)"
)


# "__mh_execute_header": what a stripped macOS binary's every address symbolises to.
_NAMELESS = {"", "??", "???", "<unknown>", "<unknown function>", "<unresolved>", "__mh_execute_header"}
# Names every program has: only the target says which program's they are.
_AMBIGUOUS = {"main", "main.main", "<module>", "__main__", "run", "start", "_start", "main.init", "WinMain", "wmain"}


# Both brackets of a pair, found at the engine's speed by _strip_balanced.
_BRACKETS = {("(", ")"): re.compile(r"[()]"), ("<", ">"): re.compile(r"[<>]")}


def _strip_balanced(text: str, opening: str, closing: str) -> str:
    """Drop every balanced ``opening ... closing`` group, nested ones included, in one pass.

    An unmatched ``opening`` (a name cut off mid-template) is kept with
    everything after it, as a regex substitution would have kept it. Only
    the brackets are visited: names are mostly text between them.
    """
    if opening not in text:
        return text
    kept: list[str] = []
    depth = 0
    outside = 0  # where the text outside any group resumes
    group = 0  # where the outermost open group began
    for found in _BRACKETS[(opening, closing)].finditer(text):
        if found[0] == opening:
            if depth == 0:
                kept.append(text[outside : found.start()])
                group = found.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                outside = found.end()
    kept.append(text[group:] if depth else text[outside:])
    return "".join(kept)


def _unwrap_impl(name: str) -> str:
    """``<A<T> as Trait>::f`` or ``<A<T>>::f`` -> ``A<T>::f``."""
    if not name.startswith("<"):
        return name
    depth = 0
    for index, char in enumerate(name):
        depth += {"<": 1, ">": -1}.get(char, 0)
        if depth == 0:
            inner, rest = name[1:index], name[index + 1 :]
            return inner.split(" as ", 1)[0] + rest
    return name


# A notebook's cell, as each IPython names it: "<ipython-input-40-6acb74aaf00d>" (its count and a hash of
# its text, new at every run), the kernel's compiled cell "/tmp/ipykernel_3041/2874263845.py".
_NOTEBOOK_CELL = re.compile(r"^<ipython-input-\d{1,9}-[0-9a-f]{1,40}>$|/ipykernel_\d{1,10}/\d{1,20}\.py$")


def normalize_path(path: str) -> str:
    """Drop machine-specific prefixes: install trees, home and build directories."""
    path = path.replace("\\", "/")
    if _NOTEBOOK_CELL.search(path):
        return "<cell>"  # as IPython 8 names it ("Cell In[40], line 8")
    if path.startswith("<"):
        return path
    if _PACKAGES.match(path):
        # An installed package's file is keyed as a checkout's is, below: one file is one key whether
        # it ran from site-packages (pylint/utils/ast_walker.py) or a checkout (…/pylint/pylint/utils/…).
        path = _PACKAGES.sub("", path)
    elif _STDLIB.match(path):
        return "stdlib/" + _STDLIB.sub("", path)
    # Elsewhere the checkout's location is arbitrary (/home/a/src, /tmp/ci);
    # the last two components say which file it is.
    return "/".join(path.rstrip("/").split("/")[-2:])


def normalize_function(name: str, language: str) -> str:
    """The stable part of a printed function name.

    Remembered for names of ordinary length: a target's crashes pass through
    the same functions again and again, and each name costs a dozen regular
    expressions. A hostile, longer one is normalised afresh and not kept.
    """
    if len(name) > MAX_NAME:
        return _normalize_function(name, language)
    return _normalize_function_cached(name, language)


# gdb's "f (args) at file:12" and "f () from lib.so", read up to their location: the keyword is no name.
_GDB_LOCATION_WORD = re.compile(r"(?<=\))\s+(?:at|from)$")


_OPERATOR = re.compile(r"\boperator\b")


def _normalize_function(name: str, language: str) -> str:
    name = name.strip()
    if language in ("native", "rust"):
        name = demangle(name)  # a symbol as linked is the name a demangling tool prints
        # rustc's own crates carry a hash in brackets: std[5204e9590b4985ef].
        name = re.sub(r"\[[0-9a-f]{8,}\]", "", name)
        name = re.sub(r"\{closure#\d+\}|\{shim:[^}]*\}", "{closure}", name)
        # "<Foo as core::fmt::Display>::fmt" names Foo's method; keep Foo.
        if " as " in name:
            # Per innermost <…> (the only place the pattern can match): tried on the whole name, its lazy
            # part re-read the rest of the name at every " as " of an unclosed one.
            name = _INNERMOST_ANGLES.sub(lambda found: _TRAIT_IMPL.sub(r"\1", found[0]), name)
        # "<zip::ZipArchive<R>>::new": an inherent impl, same idea.
        name = _unwrap_impl(name)
    if language == "native" and "`" in name:
        name = _msvc_names(name)
    if language == "dotnet":
        # A compiler-made name before the angle brackets go: "<PathBoxItem_Tapped>d__208.MoveNext" is the async
        # method PathBoxItem_Tapped (its state machine's number is the build's), "<>c__DisplayClass12_0.<Bar>b__0"
        # the lambda in Bar.
        name = _DOTNET_SUFFIX.sub(r"\1", name)
    if language in ("native", "rust", "dotnet"):
        # Rust hashes first: `::h…` would otherwise survive as a path segment.
        name = _RUST_HASH.sub("", name)
        # GCC's clones as gdb names them ("Foo::bar() [clone .cold]") and ABI tags ("f[abi:cxx11]()"):
        # the function's own name.
        name = _ABI_TAG.sub("", _CLONE.sub("", _GDB_LOCATION_WORD.sub("", name)))
        name = _strip_balanced(_strip_balanced(name, "(", ")"), "<", ">").strip()
        name = _QUALIFIERS.sub("", name)
        objc = _OBJC_METHOD.match(name) if language == "native" else None
        if objc:
            # "-[FooWorker processItem:]": the class names the method as much as the selector does.
            name = f"{objc['cls']}.{objc['selector']}"
        # Drop a return type: "void foo::bar" -> "foo::bar". A conversion operator's type is part of
        # its name ("LE32::operator unsigned int"): only a blank before the operator ends a return type.
        elif " " in name and language == "native":
            operator = _OPERATOR.search(name)
            head = name[: operator.start()] if operator else name
            name = name[head.rfind(" ") + 1 :]
        name = _COMPILER_SUFFIX.sub("", name)
        if language == "native":
            # An unsymbolized offset into the symbol ("_platform_memmove+0x1a4"), which moves with every build.
            name = _SYMBOL_OFFSET.sub("", name)
    if language == "go":
        name = re.sub(r"\([^()]*\)$", "", name)  # arguments: (0xc000010000, 0x3)
        name = re.sub(r"\(\*?([\w.]+)\)", r"\1", name)  # method receivers: (*Server).Serve
        name = re.sub(r"\[[^\]]*\]", "", name)  # generic instantiation: Map[...]
        name = _GO_FUNC_SUFFIX.sub("", _GO_VENDOR.sub("", name))
        # A module's major version ("github.com/go-task/task/v3/internal/…", "…/pulumi/pkg/v3/resource/…",
        # "github.com/caddyserver/caddy/v2.Stop"): the same code across releases. A version with no folder below
        # it is only a code host's owner/repo's: elsewhere it may be a package ("k8s.io/api/autoscaling/v1.X").
        name = _GO_MAJOR_VERSION_ROOT.sub(r"\1", _GO_MAJOR_VERSION.sub("", name))
    if language == "jvm":
        name = _JVM_LAMBDA.sub("", name)
    return name.strip(" .:")


# MSVC's names for what GCC and Clang print otherwise: its anonymous namespace, and the wrappers it
# emits around a destructor (which delete the object after running it).
_MSVC_ANONYMOUS = "`anonymous namespace'::"
_MSVC_DELETING = ("::`scalar deleting destructor'", "::`vector deleting destructor'")


def _msvc_names(name: str) -> str:
    """``Foo::`scalar deleting destructor'`` -> ``Foo::~Foo``; ```anonymous namespace'::f`` -> ``f`` (as GCC's
    ``(anonymous namespace)::f`` is read)."""
    name = name.replace(_MSVC_ANONYMOUS, "")
    for wrapper in _MSVC_DELETING:
        at = name.find(wrapper)
        if at > 0:
            owner = name[:at]
            short = owner.rsplit("::", 1)[-1].rsplit(" ", 1)[-1]
            name = f"{owner}::~{short}{name[at + len(wrapper) :]}"
    return name


_ABI_TAG = re.compile(r"\[abi:\w{1,40}\]")
_CLONE = re.compile(r"(?<!\s)(?:\s*\[clone [^\]]{0,100}\])+\s*$")
# A method's qualifiers after its arguments, however many: "Baz::qux() const &".
# (Each "&" run is taken whole: "&&?" could split a run of them every way, exponentially many. The
# lookbehinds here and on _CLONE start a match only where a run of blanks or "&" starts, where the
# leftmost match starts anyway: a search tried at each blank of a run reads the run once per blank.)
# (MSVC adds its pointer size: "Foo::bar(int) __ptr64".)
_QUALIFIERS = re.compile(r"(?<![\s&])(?:\s*\b(?:const|volatile|__ptr64|__ptr32)\b|\s*&+(?!&))+\s*$")


_normalize_function_cached = functools.lru_cache(maxsize=16_384)(_normalize_function)


_PACKAGE_FILES = frozenset({"__init__.py", "__main__.py"})


def frame_key(frame: Frame, language: str, name: str | None = None, target: str = "") -> str | None:
    """A frame's normalised key, or None when the frame names nothing (``??``).

    Names every program has (``main``, Go's ``main.main``) are namespaced by
    ``target``: two programs' ``main`` say nothing about a shared bug.
    """
    if language == "python":
        # By the file's own name: a module moved between releases ("qt/base/results_model.py" to
        # "qt/results_model.py") is the same code. A package's __init__.py and __main__.py are named by it.
        path = normalize_path(frame.file)
        file = path.rsplit("/", 1)[-1]
        return f"{path if file in _PACKAGE_FILES else file}:{frame.function}"
    if frame.function.strip() not in _NAMELESS:
        function = normalize_function(frame.function, language) if name is None else name
        if function in _AMBIGUOUS:
            return f"{target or '?'}:{function}"
        if function:
            return function
    if frame.file.strip("?"):
        # A frame the symbolizer named by its place alone ("#0 0x55… /src/mjs.c:7684:57"): a file holds
        # many functions, its line says which (mjs's three crashes in mjs.c were three bugs).
        name = normalize_path(frame.file).rsplit("/", 1)[-1]
        return f"{name}:{frame.line}" if frame.line is not None and language == "native" else name
    return None


# core's indexing and iteration implemented for a type ("<usize as core::slice::index::SliceIndex<[T]>>::index"
# reads "usize::index" once its impl is unwrapped): where a slice was indexed, not by whom.
_CORE_IMPL = re.compile(r" as core::(?:slice::index::SliceIndex|iter::)")


# A program's own reporting helpers (jerry_fatal, g_assertion_message_expr,
# my_abort): where a crash is reported, not where it happened.
_REPORTING_HELPER = re.compile(
    # (C's internal functions end in "_": tor's "tor_abort_".)
    # (And Go's assertion helpers, printf-style: pulumi's contract.Assertf, contract.failfast.)
    r"(?i)^(?:[a-z0-9]+_)*(?:fatal|abort|assert|assertion|panic|die|croak|bug|unreachable|failfast)(?:_[a-z0-9]+)*_?$"
    r"|^(?:assert|fatal|panic)f$"
    # And in C++'s CamelCase: Carbon's CheckFailImpl, abseil's LogMessageFatal, ReportFatalError, DuckDB's
    # DuckDBAssertInternal, Redis's _serverPanic, and the destructor of a fatal message that reports it
    # (include-what-you-use's ~FatalMessageEmitter).
    r"|^(?-i:~?_*(?:[a-z][a-z0-9]*)?(?:[A-Z][a-z0-9]*)*?(?:CheckFail(?:ed|ure)?|Assert(?:ion)?(?:Fail(?:ed|ure)?)?|"
    r"Fatal(?:Error)?|Abort|Panic|Die|Unreachable)(?:Impl|Internal|Message|Emitter|Handler)*f?)$"
)


# A reporting class's method that fails (Dart's DynamicAssertionHelper::Fail), and an exception's constructor
# (DuckDB's InternalException::InternalException): where a failure is raised or reported, not where it happened.
_REPORTING_CLASS = re.compile(r"^\w*(?:Assert|Fatal|CheckFail)\w*$")
_REPORTING_METHODS = frozenset({"Fail", "Failed", "Report", "Raise", "Throw"})


def _reports(parts: list[str]) -> bool:
    """Whether a native name's parts (``["dart", "DynamicAssertionHelper", "Fail"]``) are a reporting helper's."""
    last = parts[-1] or ""
    if _REPORTING_HELPER.match(last):
        return True
    if len(parts) < 2:
        return False
    owner = parts[-2]
    return (last in _REPORTING_METHODS and bool(_REPORTING_CLASS.match(owner))) or (
        last == owner and last.endswith(("Exception", "Error"))
    )


def is_ignored(frame: Frame, language: str, extra: tuple[re.Pattern, ...] = (), name: str | None = None) -> bool:
    """True for frames of runtimes, standard libraries, sanitizers and harnesses.

    ``name`` is the frame's normalised function name, if already known.
    """
    if language == "python":
        path = frame.file.replace("\\", "/")
        if any(p.search(path) for p in _PYTHON_IGNORED_FILES):
            return True
        if _PYTHON_IGNORED_FRAMES.search(f"{path}:{frame.function}"):
            return True
    else:
        pattern = _IGNORED_FUNCTIONS.get(language)
        if name is None:
            name = normalize_function(frame.function, language)
        if pattern is not None and (pattern.search(name) or (name[:1] == "<" and pattern.search(name.lstrip("<")))):
            # (A Rust impl's "<<std::thread::Builder>::spawn_unchecked_<…" cut before its brackets close
            # is never unwrapped: its path is read past the "<".)
            return True
        if language in ("native", "rust") and _CORE_IMPL.search(frame.function[:MAX_NAME]):
            return True
        if language in ("native", "rust", "go") and _reports(re.split(r"::|\.", name)):
            return True
        if frame.module and _IGNORED_MODULES.search(frame.module):
            return True
        if language in ("native", "rust") and frame.file and _IGNORED_NATIVE_FILES.search(frame.file):
            return True
    return any(p.search(frame.function) or p.search(frame.file) for p in extra)


# A third-party module's source, by where its toolchain keeps downloaded code:
# Go's module cache, Cargo's registry and git checkouts.
_DEPENDENCY_FILES = {
    "go": re.compile(r"/pkg/mod/|^pkg/mod/"),
    "rust": re.compile(r"[/\\]\.?cargo[/\\](?:registry|git)[/\\]"),
}


def dependency_caller(frames, language: str, extra: tuple[re.Pattern, ...] = (), target: str = "") -> str | None:
    """The key of the first frame of the program's own code below a third-party module's frames, or None.

    A dependency's assertion (go-cty's "value is marked", a crate's unwrap)
    is reached from many places in the programs that use it; its maintainers
    fix the caller, so the caller is part of the identity. None when the
    crash is in the program's own code, or where the frames do not say
    where their code comes from.
    """
    pattern = _DEPENDENCY_FILES.get(language)
    if pattern is None:
        return None
    in_dependency = False
    for frame in frames[:MAX_FRAMES]:
        name = normalize_function(frame.function[:MAX_NAME], language)
        if is_ignored(frame, language, extra, name):
            continue
        if not frame.file:
            return None
        if pattern.search(frame.file.replace("\\", "/")):
            in_dependency = True
            continue
        return frame_key(frame, language, name, target) if in_dependency else None
    return None


_MAX_PERIOD = 4
# Frames read for a signature at most, and characters of a name normalised:
# past these a stack is all runtime frames or a hostile one.
MAX_FRAMES = 512
MAX_NAME = 1000


def fold_push(folded: list[str], key: str, max_period: int = _MAX_PERIOD) -> None:
    """Append ``key`` to ``folded`` unless it completes a repeat of the block of up to four before it.

    ``a b b b c`` -> ``a b c``; ``x y x y x y z`` -> ``x y z``; so recursion
    that overflowed at different depths hashes the same. Constant work per
    key: a 10,000-deep recursion folds in linear time.
    """
    folded.append(key)
    for period in range(1, max_period + 1):
        if len(folded) >= 2 * period and folded[-period:] == folded[-2 * period : -period]:
            del folded[-period:]
            return


def fold_recursion(keys: list[str], max_period: int = _MAX_PERIOD) -> list[str]:
    """``keys`` with repeated blocks folded (see :func:`fold_push`)."""
    folded: list[str] = []
    for key in keys:
        fold_push(folded, key, max_period)
    return folded


# What a stack overflow's crash type says: where in its recursion the stack ran out is chance.
STACK_OVERFLOW = re.compile(
    r"(?i)stackoverflow|stack[ _-]overflow|recursionerror|maximum recursion depth|overflowed its stack|"
    r"stack exceeds|insufficientexecutionstack"
)


def significant_frames(
    frames,
    language: str,
    top_n: int,
    extra: tuple[re.Pattern, ...] = (),
    target: str = "",
    overflow: bool = False,
) -> tuple[str, ...]:
    """Normalised keys of the top ``top_n`` frames of the target's own code.

    Frames are read innermost first and only as far as needed: a 50-frame
    LLVM stack dump or a 1,000-deep recursion costs little more than the
    frames that end up in the signature. Names repeat a lot in such stacks,
    so each distinct frame is normalised once per call.

    ``overflow``: the crash is a stack overflow. Its top frames are a cycle
    of mutually recursive calls, and which of them the stack ran out in is
    chance: the cycle is read from its least key, so every report of one
    recursion names the same top frames.
    """
    seen: dict[tuple[str, str, str], tuple[bool, str | None]] = {}
    first: list[str] = []  # the first keys as printed, before folding, to find a cycle at the top
    folded: list[str] = []
    # Keys deeper than one block from the end are never folded away again.
    wanted = top_n + 2 * _MAX_PERIOD
    for frame in frames[:MAX_FRAMES]:
        memo_key = (frame.function, frame.file, frame.module)
        if memo_key not in seen:
            name = None if language == "python" else normalize_function(frame.function[:MAX_NAME], language)
            seen[memo_key] = (is_ignored(frame, language, extra, name), frame_key(frame, language, name, target))
        ignored, key = seen[memo_key]
        if ignored or key is None:
            continue
        if overflow and len(first) < 2 * _MAX_PERIOD:
            first.append(key)
        fold_push(folded, key)
        if len(folded) >= wanted:
            break
    if overflow:
        folded = _from_least_key(first, folded)
    # Nothing but runtime frames: no frames at all. (v1 kept the runtime's
    # frames then, and every abort() in a project shared one bucket.)
    return tuple(folded[:top_n])


def _from_least_key(first: list[str], folded: list[str]) -> list[str]:
    """``folded`` with the cycle its stack starts with (``first``: its keys unfolded) read from its least key.

    A cycle is a run of distinct frames that the stack then starts again (a paste may show only the
    start of its second round); not one that repeats within itself, which folds differently from
    each place it may be entered. Distinct frames never fold among themselves, so ``folded`` starts
    with the cycle as printed.
    """
    for period in range(1, _MAX_PERIOD + 1):
        block, again = first[:period], first[period : 2 * period]
        if again and again == block[: len(again)] and len(set(block)) == period:
            start = block.index(min(block))
            return block[start:] + block[:start] + folded[period:]
    return folded
