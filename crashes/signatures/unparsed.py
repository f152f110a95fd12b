"""What identifies a crash report no parser understood, and which messages identify nothing.

v1 grouped an unparsed report by its first line. Real reports start with a
shell prompt, a build step or a stock sentence ("error: INTERNAL ERROR --
Please try using mypy master", "PLEASE submit a bug report"), so unrelated
crashes shared a bucket. Here the identity line is the most specific line
that says what went wrong; a report with none gets a bucket of its own
(keyed by its whole masked text), never one shared by a stock sentence.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from crashes.demangle import demangle
from crashes.frames import is_ignored
from crashes.model import Frame
from crashes.traces import rust
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.text import file_name, lines_of, mask_message, without_file_names

# Lines every crash of a tool prints, whatever the bug: never an identity.
STOCK_LINES = re.compile(
    r"(?i)(?:please (?:try|report|submit|file|include|run|use)|report (?:this|a) bug|bug report|"
    r"query stack during panic|end of query stack|indicates a bug in|has crashed\b|found a bug in|"
    # journalctl's and coredumpctl's notice to users outside the adm group.
    r"you are currently not seeing messages|"
    r"internal error -- |unexpectedly panicked|we would appreciate|"
    r"run with `?RUST_BACKTRACE|note: (?:rustc|compiler flags|some of the compiler flags|cargo)|"
    r"^\s*(?:version|rustc|go version|gcc version|clang version|target|thread model|installeddir)\b|"
    # GNU tools' --version banner: "There is NO warranty; not even for MERCHANTABILITY or FITNESS…".
    # And GCC's driver on a compiler the system killed (out of memory): "fatal error: Killed signal
    # terminated program cc1plus".
    r"killed signal terminated program|"
    r"no warranty; not even for merchantability|not even for merchantability or fitness|"
    r"^\s*\$ |^\s*[\w.-]+@[\w.-]+[:~]|^\s*\(gdb\)|core dumped|"
    # gdb starting the program, named with its input ("Starting program: /x/reader crash-001.overflow").
    r"^starting program: |"
    # Numba's compiler on any failure of a pipeline stage ("Failed in nopython mode pipeline (step: nopython
    # mode backend)"): the line below it says what failed.
    r"failed in \w+ mode pipeline \(step: |"
    # Node's garbage collector's log above its out-of-memory crash ("<--- Last few GCs --->", "[2571992:0x55…]
    # 114083 ms: Mark-Compact 4099.5 (4107.9) -> …", "allocation failure; scavenge might not succeed"): the
    # "FATAL ERROR: … JavaScript heap out of memory" line below it says what failed.
    r"^<--- (?:last few gcs|js stacktrace) --->|^\[\d+:(?:0x)?[0-9a-f]+\]\s+\d+ ms: |scavenge might not succeed|"
    # systemd on any service that died ("medusa.service: Failed with result 'exit-code'.", "Main process
    # exited, code=dumped, status=11/SEGV", "Failed to start Medusa."): the service's own lines say why.
    r"\.service: (?:failed with result|main process exited|control process exited)|^failed to start |"
    # WinDbg's explanation of a bug check, the same for every crash with its code ("This is a very common
    # BugCheck. Usually the exception address pinpoints…", "Invalid system memory was referenced.").
    r"this is a very common bugcheck|invalid system memory was referenced|usually the exception address pinpoints|"
    # A debugger saying a signal stopped the program (gdb's "Thread 1 "obs" received signal SIGSEGV,
    # Segmentation fault.", a core's "Program terminated with signal SIGSEGV"): any crash of it says so.
    r"\b(?:received|terminated with) signal SIG[A-Z]+|"
    # Chromium's (Electron's) signal handler: "Received signal 11 SEGV_MAPERR 000000000000".
    r"^received signal \d+ |^\[end of stack trace\]|"
    # A sanitizer's headline says which kind of error, never where ("SEGV on unknown address"): its frames
    # and its SUMMARY line do. And a macOS report's header fields, which every crash of a program fills.
    r"^==(?:\d+|N)==error: \w{0,40}sanitizer: |^vm region info: |^thread \d+ crashed\b|"
    # and the notes a sanitizer adds to any SEGV.
    r"the signal is caused by a \w{1,10} memory access|"
    r"^hint: (?:address points to the zero page|this fault was caused)|"
    r"sanitizer can ?not provide additional info|nested bug in the same thread, aborting|"
    # Nim's runtime on any SIGSEGV ("SIGSEGV: Illegal storage access. (Attempt to read from nil?)").
    r"illegal storage access\. \(attempt to read from nil\?\)|"
    # Minecraft's launcher on any crash of the game or a mod ("The game crashed whilst ticking entity",
    # "…whilst unexpected error"): the "Error: java.lang.X: …" line below it names the failure.
    r"^the game crashed whilst |"
    # Android's C library and debuggerd on any native crash ("Fatal signal 11 (SIGSEGV), code 1, fault addr
    # 0x8 in tid 21908 (3.io), pid 20474 (com.example)", "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault
    # addr 0x0"): the tombstone's frames say where.
    r"\bfatal signal \d+ \(sig[a-z]+\), code |^signal \d+ \(sig[a-z]+\), code |"
    # Breakpad's reason for any crash of a program ("Crash reason:  SIGSEGV /SEGV_MAPERR"; not an app's
    # own "Crash reason: <its message>"), and its header's other fields.
    r"^crash reason:\s+(?:sig[a-z]{2,8}|exc_|exception_|status_|0x)|^crash address: |^process uptime: |"
    # HotSpot's crash banner and its notes (every JVM crash prints them).
    r"a fatal error has been detected by the java runtime|an error report file with more information is saved|"
    r"the crash happened outside the java virtual machine|if you would like to submit a bug report|"
    r"^#?\s*(?:sig[a-z]{2,8}|exception_\w{2,60}) \(0x[0-9a-f]{1,8}\) at pc=|"
    r"^\s*(?:aborted|segmentation fault|killed)\s*$|"
    # Zig's build runner, whatever the compiler it ran did.
    r"the following (?:build )?command (?:crashed|failed with exit code|terminated unexpectedly)|"
    r"could not compile|build failed|^\s*error: aborting due to|^\s*(?:compiling|downloading|running|finished)\b|"
    r"go build failed|^\s*#\s*[\w./-]+\s*$|stack dump:|program arguments:|dropping into pdb|"
    r"--show-traceback|^\s*(?:warning|note|help|info)\b|"
    # A tool's generic crash banner: the bug is named elsewhere, if at all.
    r"this is a bug|daemon crashed|the '?impossible'? happened|completely unexpected|crashed thread|unexpected signal|"
    r"runtime error\s*$|^\s*\w+: runtime error\s*$|exception type:|exception codes:|termination reason:|"
    # The rest of a macOS crash report's header: the same fields in every report.
    r"exception note:|exception subtype:|termination signal:|crashed thread:|triggered by thread:|"
    # Go's runtime on memory corruption: every cause prints the same.
    r"found bad pointer in go heap|unexpected signal during runtime execution|^\s*\[signal |"
    # rustc's signal handler ("error: rustc interrupted by SIGSEGV, printing backtrace"): any stack overflow
    # or SIGSEGV of the compiler prints it; the frames below say where, when they are symbolized.
    r"interrupted by sig[a-z]{2,8}, printing backtrace|"
    # An editor's language client saying its server died, as VS Code's output panel prints it ("[Error -
    # 10:21:33 AM] Connection to server got closed. Server will restart.", "…server crashed 5 times in the
    # last 3 minutes…"): any crash of the server prints them. The short ones only as whole lines (after the
    # panel's "[Error - time]"): an application's "Server initialization failed: <why>" names its failure.
    r"connection to server (?:got closed|is erroring)|server crashed \d+ times in the last \d+ minutes|"
    r"^(?:\[(?:error|info|warn)\s*- [^\]]{1,40}\]\s*)?(?:server (?:process exited with code -?\d+|"
    r"initialization failed)|request [\w/$.]{1,80} failed)\.?$|"
    # The Kotlin compiler's wrappers' banners ("Backend Internal error: Exception during IR lowering",
    # "Front-end Internal error: Failed to analyze declaration X") and the root cause its code generator's
    # wrapper names for every bug: the exception they wrap is the crash.
    r"(?:[\w.]{1,200}exception: )?(?:back-?end|front-end)(?: \(jvm\))? internal error: "
    r"(?:exception during|failed to analyze declaration|couldn't (?:transform method node|inline method call)|"
    r"wrong bytecode generated)|"
    r"runtimeexception was thrown at: org\.jetbrains\.kotlin\.backend\.jvm\.codegen\.functioncodegen\.generate|"
    # Gradle's lines for the task that failed ("> Task :app:compileKotlin FAILED", "Execution failed for
    # task ':app:kaptDebugKotlin'.", "> A failure occurred while executing …WorkAction"): they name the
    # task, the exception below them the failure.
    r"^>?\s*task :[\w:.-]{1,200} failed$|execution failed for task '|a failure occurred while executing |"
    # and a reflective call's wrapper it prints without a message: what it wrapped is the failure.
    r"(?:invocationtarget|undeclaredthrowable|execution)exception \(no error message\)|"
    r"org\.jetbrains\.kotlin\.(?:backend\.common\.(?:backend|compilation)exception|codegen\.compilationexception|"
    r"util\.(?:fileanalysis|kotlinfrontend)exception):?\s*$|"
    # Web servers' and asyncio's words above any exception they caught: uvicorn's "Exception in ASGI
    # application", Flask's "Exception on /api [POST]", Django's "Internal Server Error: /api", gunicorn's
    # and aiohttp's "Error handling request", asyncio's "Task exception was never retrieved".
    r"exception in (?:asgi|wsgi) application|\bexception on \S{1,300} \[[a-z]{3,7}\]$|"
    r"(?:exception group )?traceback \(most recent call last\)|"
    r"\binternal server error: \S{1,300}$|error handling request\b|task exception was never retrieved|"
    # Python's words between the exceptions of a chain, and its note on a thread dying at shutdown.
    r"the above exception was the direct cause of the following exception|"
    r"during handling of the above exception, another exception occurred|"
    r"most likely raised during interpreter shutdown|"
    # Rust's standard library giving up on a second panic ("thread panicked while processing panic.
    # aborting."): what the first panic said is the crash.
    r"panicked while (?:processing panic|panicking)|caused non-unwinding panic|panic in a function that cannot unwind|"
    # rustc on a procedural macro that panicked: the macro's own message, below in "= help: message: …",
    # says what failed.
    r"proc-macro derive panicked|"
    # A program's crash handler asking for the report ("To send a redacted crash report to Bun's team,").
    r"send (?:a |the |us )?(?:redacted |full )?crash report|"
    # LLVM's verifier giving up (the line above it says what it found broken), and cargo saying the
    # command it ran died (it names the command, never the bug).
    r"broken (?:function|module) found, compilation aborted|process didn't exit successfully: |"
    # A compiler driver saying a tool it ran failed ("lto-wrapper: fatal error: avr-gcc returned 1 exit status",
    # "collect2: error: ld returned 1 exit status", "clang: error: linker command failed with exit code 1").
    r"^.{0,300}?: (?:fatal )?error: "
    r"(?:\S+ returned \d+ exit status|lto-wrapper failed|linker command failed with exit code)|"
    # rustc saying the linker it ran failed ("error: linking with `cc` failed: exit status: 1"): the
    # linker's own lines below it say why.
    r"linking with `?[^`\s]{1,200}`? failed: exit (?:status|code)|"
    # A compiler driver saying its frontend died (swift's, clang's): any crash of the frontend prints it.
    r"(?:compile|frontend) command failed (?:due to signal|with exit code)|unable to execute command: |"
    # and its notes on the reproducer it wrote ("clang: note: diagnostic msg: Crash backtrace is located in").
    r"note: diagnostic msg:|"
    # A build tool saying a step failed (ninja, make, Xcode's build system): it names the step, never the bug.
    r"^\s*ninja: build stopped|^\s*g?make(?:\[\d+\])?: \*\*\* |^\s*FAILED: |failed with a nonzero exit code|"
    # Crashpad's own log ("[pid:tid:20240605,083724.595583:ERROR file.cc:64] tag not found"), below FATAL:
    # what it met while writing the report, never the crash. (Chromium's own "[…:ERROR:x.cc(5)]" is the app's.)
    r"^\[\d+:\d+:\d{8},\d{6}\.\d+:(?:ERROR|WARNING|INFO|VERBOSE\d*) [\w.-]+:\d+\]|"
    # The C++ library's own checks ("…/c++/v1/optional:911: _LIBCPP_ASSERT 'this->has_value()' failed.
    # optional operator* called on a disengaged value"): what its caller did wrong, which frames say.
    r"_libcpp_assert |/c\+\+/(?:v1|\d+(?:\.\d+)*)/[\w/.-]{1,200}:\d+: |"
    # Haskell's call stack below such an error: where the partial function was, in its library.
    r"^callstack \(from hascallstack\)|^\s*(?:error|undefined), called at |"
    # gdb's pretty printers failing on a value it was asked to print: the debugger's, not the crash's.
    r"^python exception <class 'gdb\.|"
    # Valgrind's banner, printed by every run of the tool.
    r"\b(?:memcheck|helgrind|drd), a (?:memory|thread) error detector|"
    # A shell reporting that the command it ran died ("x.sh: line 6: 5518 Segmentation fault  cmd",
    # "zsh: segmentation fault  cmd"): it names the command, never the bug.
    r"^\S*: line \d+:\s+\d+ |^(?:zsh|bash|sh|fish): (?:segmentation fault|abort|killed|bus error|illegal hardware)"
    r")"
)
# Words that say a line reports the failure: not inside a name ("abort_signal", "assert_equivalent"),
# a path ("lib/crash/") or a module's ("node:assert"); a log's level after its time stamp is one
# (Chromium's "…595583:ERROR:gpu_process_host.cc").
_FAILURE = re.compile(
    r"(?i)(?:[a-z](?:Exception|Error)\b)|(?<!/)(?<![a-z]:)\b(?:error|exception|panic[a-z]*|fatal|assert[a-z]*|abort[a-z]*|fault|failed|failure|crash[a-z]*|"
    r"unreachable|signal|sig[a-z]{3,4}|overflow|invalid|unexpected|cannot|can't|unable|not)\b"
)
# A word each of _FAILURE's matches holds, lower-cased: most lines hold none, and finding that
# with str's own search costs a tenth of trying the expression at every position of the line.
_FAILURE_WORDS = (
    "exception",
    "error",
    "panic",
    "fatal",
    "assert",
    "abort",
    "fault",
    "fail",
    "crash",
    "unreachable",
    "sig",
    "overflow",
    "invalid",
    "unexpected",
    "cannot",
    "can't",
    "unable",
    "not",
)
# What IGNORECASE matches to an ASCII letter but lower() does not make one: İ, ı, ſ and the Kelvin sign.
_IGNORECASE_LETTERS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _reports_failure(line: str) -> bool:
    """True when ``line`` holds a word that says it reports a failure (``_FAILURE``), not in an option."""
    folded = (line if line.isascii() else line.translate(_IGNORECASE_LETTERS)).lower()
    if not any(word in folded for word in _FAILURE_WORDS):
        return False
    # A command's options say what it was asked, not what failed: "mypy . --show-error-context".
    return _FAILURE.search(_OPTION.sub("", line) if "--" in line else line) is not None


_OPTION = re.compile(r"(?<!\S)--[\w][\w-]{0,60}(?:=\S{0,200})?")


# Messages that name a kind of crash, not a bug: alone they must not bucket.
GENERIC_MESSAGES = re.compile(
    # A rustc ICE whose only message was a stock one ("unexpected panic") is left with none: "ICE:".
    # A compiler's error line starts at the input's position ("x.go:92:45: "): the user's program, no bug.
    r"(?i)^ice:$|^(?:[^\s:]{1,300}:N(?::N)?: )?(?:ice: )?(?:internal compiler error: )?"
    # Zig's and Bun's panics say which thread: "thread N panic: …", "panic(main thread): …".
    r"(?:thread n |panic\((?:main thread|thread n)\): )?(?:panic: )?(?:runtime error: )?(?:"
    r"invalid memory address or nil pointer dereference|index out of range.*|slice bounds out of range.*|"
    # Rust's std: the same stock panics
    r"index out of bounds.*|range (?:start |end )?index .* out of range.*|"
    r"no entry found for key|already (?:mutably )?borrowed(?:: borrow(?:mut)?error)?|"
    r"capacity overflow|(?:removal|insertion|swap_remove) index \(is N\) should be <=? len \(is N\)|"
    r"byte index N is (?:not a char boundary|out of bounds of).*|slice index starts at N but ends at N|"
    r"internal error: entered unreachable code|"
    r"attempt to (?:divide by zero|calculate the remainder with a divisor of zero)|"
    r"misaligned pointer dereference.*|cannot access a thread local storage value during or after destruction.*|"
    r"nil map|integer divide by zero|stack overflow|out of memory|concurrent map .*|"
    r"called '\?' on (?:a|an) '\?' value.*|explicit panic|unexpected panic|box<(?:dyn )?any>|"
    r"attempt to \w+ with overflow|assertion failed(?:: '\?')?|unreachable|not (?:yet )?implemented|"
    # assert_eq!'s own words and its operands (masked, or printed bare since Rust 1.73).
    r"assertion failed: '\?'\s*left: '\?',\s*right: '\?'|assertion '\?' failed\s+left: .*|"
    # Zig's safety checks: every bug that trips one says the same. (Not an unwrapped error that names
    # itself: "attempt to unwrap error: FileNotFound".)
    r"reached unreachable code|attempt to use null value|attempt to unwrap error|integer overflow|"
    r"integer cast truncated bits|integer does not fit in destination type|cast causes pointer to be null|"
    r"incorrect alignment|invalid enum value|invalid error code|start index N is larger than end index N|"
    r"division by zero|remainder division by zero or negative value|exact division produced remainder|"
    r"shift amount is greater than the type size|(?:left|right) shift overflowed bits|sentinel mismatch.*|"
    r"for loop over objects with non-equal lengths|access of union field '\?' while field '\?' is active|"
    r"integer part of floating point value out of bounds|switch on corrupt value|"
    r"segmentation fault at address .*|panicked during a panic\.? aborting\.?|"
    # Go's runtime naming the signal it took outside Go code ("SIGSEGV: segmentation violation").
    r"sig(?:segv|bus|fpe|ill|abrt|trap|sys|emt|stkflt|pipe): [a-z -]{1,60}|"
    r"object reference not set to an instance of an object\.?|segmentation fault|sigsegv|sigabrt|sigbus|"
    r"sigfpe|segv|deadly signal|timeout|killed|aborted|unknown|"
    # GCC's driver on a compiler the system killed (out of memory: "Killed (program cc1plus)"), and GCC's
    # diagnostics failing while reporting another error: any bug (or none) prints them, frames say where.
    r"(?:killed|segmentation fault|illegal instruction|bus error|aborted|terminated) \(program [\w.+-]{1,40}\)|"
    r"error reporting routines re-entered\.?|"
    # (With the signal's number, as macOS and GCC's driver print it: "Illegal instruction: N".)
    r"(?:illegal instruction|bus error|segmentation fault|abort trap)(?:: n)?|"
    # Haskell's partial functions (a program's name first: "elm: Map.!: given key is not an element in the map").
    r"(?:[\w.-]{1,60}: )?(?:(?:data\.)?map\.!: given key is not an element in the map|"
    r"prelude\.(?:head|tail|init|last|!!|maximum|minimum|foldr1|foldl1|read|undefined)(?:: .*)?|"
    r"maybe\.fromjust: nothing.*)|"
    # OCaml's stock exceptions: a lookup's, an index's, the runtime's.
    r"not_found|invalid_argument\(\"index out of bounds\"\)|stack_overflow|out_of_memory|division_by_zero|"
    r"end_of_file|"
    # Windows's words for any SEGV (DXC's "Internal compiler error: access violation. Attempted to read from
    # address 0x…", a debugger's "Access violation reading location 0x…").
    r"access violation\.?(?: attempted to (?:read from|write to|execute) address .*| (?:reading|writing|executing) "
    r"(?:location|address) .*)?|"
    r"no errors encountered even though .*|unexpected error.*|"
    # Go's runtime finding its heap corrupted: the symptom of any cause (a data race, cgo, unsafe).
    r"(?:fatal error: )?(?:\w+: )?(?:found )?bad pointer in (?:go heap|unexpected span).*|"
    r"unexpected signal during runtime execution|sweep increased allocation count|"
    r"(?:llvm error: )?broken (?:function|module) found, compilation aborted!?|"
    # A sanitizer's kind of error ("heap-use-after-free READ"), read without the frames that say where.
    r"(?:(?:heap|stack|global|dynamic-stack|container|intra-object)-)?(?:buffer-(?:overflow|underflow)|"
    r"use-after-(?:free|return|scope|poison)|overflow)(?: read| write)?|double-free|alloc-dealloc-mismatch|"
    r"memcpy-param-overlap|unknown-crash(?: read| write)?|stack-overflow|use-of-uninitialized-value|"
    r"signed integer overflow|unsigned integer overflow|"
    # Go's runtime finding every goroutine blocked: the goroutines' stacks say where.
    r"(?:fatal error: )?all goroutines are asleep - deadlock!?|"
    r"(?:[\w.]+\.)?(?:nullreferenceexception|nullpointerexception|argumentexception|"
    r"invalidoperationexception|indexoutofrangeexception|keynotfoundexception|assertionerror|"
    r"illegalstateexception|illegalargumentexception|runtimeexception|exception|error))$"
)
# Identity and frames of an unknown format are near the top of a report.
MAX_LINES = 2000
_INLINE_CODE = re.compile(r"^`+|`+$")
# What a paste leaves at a line's start: quoting and inline-code ticks ("> `INTERNAL ERROR…").
_LEADING_MARKUP = re.compile(r"^(?:[>`]\s*)+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
# Words every crash report uses: a line made only of these names no bug.
_VOCABULARY = frozenset(
    """the and that this with for from not was has have had are were been but you your our its into onto
    when while where which what there here can could would should will may might must did does error
    errors fatal exception panic panicked thread signal code addr address runtime failed failure fault
    segmentation violation crash crashed occurred unexpected unknown internal invalid memory pointer
    null nil dereference value type object main program process aborted abort core dumped killed
    happened bug report please issue version line file column stack trace backtrace sigsegv sigabrt
    sigbus sigill sigfpe unhandled uncaught caught raised error_code compiler none true false undefined""".split()  # noqa: SIM905 - a word list reads better as words
)
_MIN_CONTENT_WORDS = 2


def is_generic(message: str) -> bool:
    """True when a masked crash message names a kind of crash but no particular bug."""
    return not message.strip() or bool(GENERIC_MESSAGES.match(message.strip()))


def names_something(masked: str, words_wanted: int = 2) -> bool:
    """True when a masked line has ``words_wanted`` words beyond what every crash report says."""
    # An exception's name is its crash type, not what it is about ("KeyError: None").
    words = {word.lower() for word in _WORD.findall(masked) if not word.endswith(("Error", "Exception"))}
    return len(words - _VOCABULARY) >= max(words_wanted, _MIN_CONTENT_WORDS)


def identity_line(text: str) -> str:
    """The masked line of ``text`` that best says what failed, or "" when no line does.

    The first line that reports a failure, is not a stock sentence, and
    keeps enough words once masked to tell one crash from another; but
    where a crash handler names its own site in fields (:func:`site_fields`)
    just below such a line, or on it, that line and its site, whatever came
    before: the fields mark the crash's own message among a log's lines.
    """
    lines = list(lines_of(text, MAX_LINES))
    # The field lines, found once. Most texts have none: then the first line is the answer, and
    # no other is masked.
    fields = [index for index, line in enumerate(lines) if ":" in line and _FIELD.match(line)]
    candidates = _candidates(lines)
    first = None
    for index, masked in candidates:
        first = first or (index, masked)
        # The first field on the line itself (a CoreCLR "Expression: …" field may be the line that
        # reports the failure) or close below it.
        below = bisect.bisect_left(fields, index)
        if below == len(fields):
            break
        if fields[below] > index + _FIELDS_BELOW:
            continue
        site = site_fields(lines, fields[below], fields[below] + 1)
        if site is None:
            continue
        # "Assert analysing 'main.c3' at row 3, col 10." then the assert and its fields: the line
        # just above the fields is the one they describe.
        chosen = (index, masked) if index < site.at else None
        for later in candidates:
            if later[0] >= site.at:
                break
            chosen = later
        what = site.what or (chosen[1] if chosen else "")
        if what:
            return f"{what} | at {site.where}"
        break
    # CoreCLR's "ASSERT FAILED" says nothing; its "Expression:" field, above any other line, does.
    above = fields and fields[0] < (first[0] if first else len(lines))
    early = site_fields(lines, fields[0], fields[0] + 1) if above else None
    if early is not None and early.what:
        return f"{early.what} | at {early.where}"
    return first[1] if first else ""


# "Type: message" (an exception's type, dotted, and what it said), to judge the message alone.
_TYPED_MESSAGE = re.compile(r"^[A-Za-z_$][\w$]{0,100}(?:\.[A-Za-z_$][\w$]{0,100}){0,10}: (?P<message>.{1,1000})$")
# Rust's panic line before 1.73, read when its parser found no site for it (the location is the
# standard library's: libcore/option.rs): "thread 'rustc' panicked at 'message', src/libcore/x.rs:3:5".
_RUST_PANIC = re.compile(r"^(?:" + rust.THREAD + r")?panicked at (?:'(?P<message>.*)', ?[^\s']+|\S+:\d+:\d+:?)$")
# What unwrap() and expect() say before the value they found: the value may name something.
_UNWRAP_HEAD = re.compile(r"^called '\?' on (?:a|an) '\?' value:?\s*")


def unwrap_payload(masked: str) -> str:
    """What unwrap() or expect() found, of a masked message: the whole message when it is no unwrap()'s."""
    return _UNWRAP_HEAD.sub("", masked)


# What unwrap() found, named by its type or variant in two words or more (SystemTimeError(N),
# NoAvailablePixelFormat): one kind of failure, as a Python exception with a message is. Not "Error",
# "None" or "()".
_NAMED_VALUE = re.compile(r"^(?:[A-Z][a-z0-9]+){2,}\b")


def _names_nothing(message: str) -> bool:
    """True for a panic's message that names no bug: the thread's name and the standard library's
    location around it must not make the line look like one."""
    masked = mask_message(message, 200)
    payload = unwrap_payload(masked)
    if payload != masked and _NAMED_VALUE.match(payload):
        return False
    return is_generic(payload) or not names_something(payload)


# How much of a line is read for an identity: it is masked down to 200 characters anyway, and the stock
# phrases' expression (a hundred alternatives at every position) costs half a millisecond on a line of
# 2,000 (hostile text's, a hundred such lines at 256 KiB).
_LINE_READ = 500


def _candidates(lines: list[str]) -> Iterator[tuple[int, str]]:
    """``(index, masked line)`` of each line that could be the identity, in order."""
    refused: set[str] = set()  # a line printed again (a log, a hostile paste) is read once
    for index, line in enumerate(lines):
        stripped = _INLINE_CODE.sub("", _LEADING_MARKUP.sub("", line[:_LINE_READ].strip()))
        # A logger's date and time opening the line (Go's log: "2020/03/28 23:34:18 internal error: …"), where
        # too few lines carry one for it to be taken off as a prefix: the time of a run, never its failure.
        stripped = (
            _LEADING_TIMESTAMP.sub("", stripped) if stripped[:1].isdigit() or stripped[:1] in "IWEF" else stripped
        )
        if not stripped or stripped in refused or not _reports_failure(stripped):
            continue
        refused.add(stripped)
        stock = STOCK_LINES.search(stripped)
        if stock:
            # "error: cannot format x.py: INTERNAL ERROR: … Please report a bug": keep what precedes the stock part.
            stripped = stripped[: stock.start()].strip()
        if not stripped or not _reports_failure(stripped) or STOCK_LINES.search(stripped):
            continue
        panic = _RUST_PANIC.match(stripped) if "panicked at" in stripped else None
        # Since Rust 1.73 the line holds the location alone, the message on the next line.
        if panic and (panic["message"] is None or _names_nothing(panic["message"])):
            continue
        if panic:
            # The message is what failed; the thread's name ('main', '<unnamed>') and the standard
            # library's line (libcore/result.rs:997, 999, 1084 by release) only say how it was run.
            stripped = panic["message"]
        masked = mask_message(stripped, 200, quoted=False)
        # A file of the user's is no word of the crash's: "pkg/node.py:N: error:" (a stock sentence
        # stripped from its end) names nothing.
        if is_generic(masked) or not names_something(without_file_names(masked)):
            continue
        typed = _TYPED_MESSAGE.match(masked) if ": " in masked else None
        if typed and is_generic(typed["message"]):
            # "System.NullReferenceException: Object reference not set to an instance of an object": a kind of
            # crash every program has, its type and message both stock.
            continue
        if _GENERIC_FRAME.match(stripped) or _NUMBERED_FRAME.match(stripped):
            continue
        if _FIRST_PERSON.search(stripped) and not _CODE_TOKEN.search(stripped):
            # The reporter's own sentence ("I'm not sure why I'm getting this error", "We recently updated
            # to Go 1.20 and see this error:"): it tells how they met the crash, in their words, not what failed.
            continue
        if _BARE_TYPE.match(masked):
            # An exception's type whose message was stock ("org.gradle.api.tasks.TaskExecutionException:
            # Execution failed for task …" once that goes): a kind of failure, as a bare "KeyError" is.
            continue
        # A sentence's full stop is how one reporter copied it, not part of what failed.
        yield index, masked.rstrip(" .!") + _ir_instruction(lines[index + 1 : index + 3])


# (And klog's head, Kubernetes': "E0624 09:37:13.276141   26151 runtime.go:78] ".)
_LEADING_TIMESTAMP = re.compile(
    r"^(?:\d{4}[/-]\d\d[/-]\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\s+"
    r"|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{1,9}\s+\d{1,9} [\w.-]{1,100}:\d{1,9}\] )"
)
_FIRST_PERSON = re.compile(r"(?i)(?<![\w'])(?:i|i'm|i've|i'd|we|we're|we've|my|our|me|us)(?![\w'])")
# What a tool's line holds and a sentence does not: a call, a path, a qualified name, an identifier.
_CODE_TOKEN = re.compile(
    r"\(\)|::|[\w.]/[\w.]|[A-Za-z_]\.[A-Za-z_]|\w_\w|`[^`]+`|'[^'\s]+'|\"[^\"]+\"|[<>{}\[\]=]|[A-Za-z_]\d|\d[A-Za-z_]"
)
_BARE_TYPE = re.compile(r"^(?:[\w$]+\.)*[\w$]*(?:Exception|Error):?$")


# A crash handler that names where it gave up in fields of its own (c3c's "- Function:
# sema_cast(...)" and "- Source file: /src/compiler/sema_expr.c:803"; CoreCLR's "ASSERT FAILED"
# with "Expression:", "Location:" and "Function:"; "File: x.cpp Line: 121" under a JIT assert).
# Its message is often stock ("Should be unreachable"), and the site is what tells such crashes
# apart. Not "In function:": LLVM names the compiled program's function there, not its own.
# Not "Method:" either: a web log's "Method: GET" names a request.
_FIELD = re.compile(
    r"^[\s*\u2022-]{0,8}(?P<label>(?i:source file|file|location|function|func|expression|assertion))"
    r"\s*:\s*(?P<value>\S[^\n]{0,300})"
)
# A site's file is a source file, with its line: "x.c:803", "x.cpp(155)", "x.cpp Line: 121" (not
# "config.yaml:12", a user's input).
_FILE_VALUE = re.compile(
    r"^(?P<path>(?:[A-Za-z]:)?[^\s:()]{0,300}\.(?:c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inc|def|m|mm|rs|go|zig|c3|d|nim|"
    r"swift|java|kt|cs|fs|py|pyx|js|ts|ml|hs|s|asm))(?::\d+|\(\d+\)|\s+line:?\s*\d+)",
    re.I,
)
_FUNCTION_VALUE = re.compile(r"^(?P<name>[A-Za-z_$~][\w:.<>~$]{1,200})\s*(?:\(|$)")
# How far below the message its fields may start, and how many lines they may span.
_FIELDS_BELOW = 8
_FIELDS_SPAN = 6


@dataclass(frozen=True)
class Site:
    at: int  # the index of the first field's line
    where: str  # "function (file)", "function" or "file": the line number moves between builds
    what: str  # the masked expression or assertion the fields name, if any


def site_fields(lines: list[str], start: int, stop: int) -> Site | None:
    """The site a crash handler printed as fields starting between ``lines[start]`` and ``lines[stop]``."""
    for index in range(start, min(len(lines), stop)):
        if ":" in lines[index] and _FIELD.match(lines[index]):
            break
    else:
        return None
    function = file = what = ""
    for at in range(index, min(len(lines), index + _FIELDS_SPAN)):
        field = _FIELD.match(lines[at])
        if field is None:
            continue
        label, value = field["label"].lower(), field["value"].strip().strip("`'\"")
        if label in ("function", "func") and not function:
            named = _FUNCTION_VALUE.match(value)
            # Code, not a word in capitals ("Function: NONE").
            function = named["name"] if named and not named["name"].isupper() else ""
        elif label in ("source file", "file", "location") and not file:
            located = _FILE_VALUE.match(value)
            if located is None and len(lines[at]) >= MIN_WRAP_WIDTH and at + 1 < len(lines):
                # A long path a terminal cut: "…/src/compiler/sema_e" / "xpr.c:803".
                located = _FILE_VALUE.match(value + lines[at + 1].strip())
            file = file_name(located["path"]) if located else ""
        elif label in ("expression", "assertion") and not what:
            what = mask_message(value, 200, quoted=False)
    if not (function or file):
        return None
    where = f"{function} ({file})" if function and file else function or file
    return Site(at=index, where=where, what=what)


# LLVM's IR verifier prints each failed check followed by the instruction that failed it; one check
# ("inlinable function call … must have a !dbg location") fails for every front-end bug that drops a
# location, and the instruction's callee says which code generator path dropped it.
_IR_INSTRUCTION = re.compile(
    r"^\s*(?:%[\w.\"-]{1,100} = )?(?:tail |musttail |notail )?(?P<op>call|invoke|store|load|br|ret|phi|"
    r"getelementptr|bitcast|alloca|switch|select|icmp|fcmp|extractvalue|insertvalue)\b"
)
_CALLEE = re.compile(r"@(?P<callee>\"[^\"]{1,200}\"|[\w.$-]{1,200})\(")


def _ir_instruction(following: list[str]) -> str:
    """`` | call @callee`` (or `` | store``) for the IR instruction just after a verifier's message."""
    line = next((line for line in following if line.strip()), "")
    instruction = _IR_INSTRUCTION.match(line)
    if instruction is None:
        return ""
    callee = _CALLEE.search(line) if instruction["op"] in ("call", "invoke") else None
    return f" | {instruction['op']}" + (f" @{callee['callee']}" if callee else "")


# Frame lines of formats no parser knows (Zig, Crystal, GHC, Nim, a gdb
# backtrace without its "#0"): "0xADDR in FUNC", "at FUNC (", "FUNC +OFFSET".
# (A C++ function's return type before its name is no name: "0x104862c34 void heap::base::Stack::f<…>".)
_GENERIC_FRAME = re.compile(
    r"^\s*(?:\[?0x[0-9a-fA-F]+\]?\s+(?:in\s+)?"
    r"(?:(?:void|bool|int|char|auto|unsigned|long|short|double|float|static|virtual|const|inline) ){0,3}"
    r"(?P<a>[*\w:.<>~$]{3,200})"
    r"|0x[0-9a-fA-F]+ in (?P<b>[\w:.<>~$]{3,200})"
    r"|at (?P<c>[\w:.<>~$]{3,200}) ?\("
    r"|(?P<d>[*\w:.<>~$]{3,200}) \+\d+\s*$"
    # macOS crash reports and unsymbolized LLVM dumps: "3  libfoo.dylib  0x00007fff… name + 90".
    r"|\d+\s+\S+\s+0x[0-9a-fA-F]+ (?P<e>[*\w:.<>~$]{3,200}) \+ \d+)"
)
# A numbered frame of a backtrace ("12:     0x7f3c5ccaa3a7 - std::panicking::…", "#3 0x… in f"): a frame
# says where, never what failed.
_NUMBERED_FRAME = re.compile(r"^(?:#\s*)?\d{1,4}:?\s+(?:0x[0-9a-fA-F]+\s*-?\s|[\w:<>~]+::)")
_RUNTIME_FRAME = re.compile(
    r"(?i)(?:^_?_?libc|^_start$|^main$|raise|abort|sigfault|signal|handler|backtrace|callstack|panic|kill|"
    r"^_?_?pthread|^_sigtramp|^dyld|^start$|^thread_start|"
    r"^std[.:]|^core[.:]|^__|^\?\?$|^start_thread$|^clone|^syscall)"
)


# An address read where a name should be ("Stack trace: 0x7ff80c2c3f47 0x7ff80c2c58b1 …"): it moves
# with every build and every run (ASLR), so it names nothing.
_ADDRESS = re.compile(r"(?:0x)?[0-9a-fA-F]+")


def _names_code(name: str) -> bool:
    return not _RUNTIME_FRAME.search(name) and not _ADDRESS.fullmatch(name)


def generic_frames(text: str, limit: int) -> tuple[str, ...]:
    """Function names of the first frame-like lines no parser claimed, past crash handlers."""
    found: list[str] = []
    for line in lines_of(text, MAX_LINES):
        if "0x" not in line and "at " not in line and "+" not in line:
            continue
        if "0x" in line and " + " in line and (mac := _GENERIC_FRAME.match(line.strip())) and mac["e"]:
            name = mac["e"].lstrip("*")
            if _names_code(name) and name not in found:
                found.append(name)
                if len(found) >= limit:
                    break
            continue
        cut = line.find(": 0x")
        # "file:12:3: 0xADDR in FUNC": read from the address on, not with a lazy prefix.
        match = _GENERIC_FRAME.match(line[cut + 2 :] if cut != -1 else line)
        if not match:
            continue
        # A symbol as linked (Crystal prints LLVM's _ZN4llvm…) by the name inside it, as every parser reads it.
        name = demangle(next(group for group in match.groups() if group).lstrip("*"))
        if not _names_code(name) or name in found or is_ignored(Frame(function=name), "native"):
            continue
        if line.lstrip().startswith("at ") and is_ignored(Frame(function=name), "jvm"):
            continue  # a JVM frame of the runtime's or of a compiler's failure reporting
        found.append(name)
        if len(found) >= limit:
            break
    return tuple(found)
