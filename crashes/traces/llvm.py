"""Crashes of Clang, LLVM tools and other LLVM-based compilers (Swift, Rust's LLVM, Zig).

LLVM's triagers read an assertion by its text and the function it failed in
(``clang: …/Foo.cpp:12: void clang::Sema::Bar(…): Assertion `x' failed.``,
or macOS's ``Assertion failed: (x), function Bar, file Foo.cpp, line 12.``),
an ``UNREACHABLE executed at FILE:LINE!`` by its file and message, an ``LLVM
ERROR: …`` by its masked message, and then by the first frames of the stack
dump after the signal-handler frames (which every crash shares and which
the frame rules drop). Frames come symbolized (``#3 0x… clang::Sema::Foo(…)
(/usr/bin/clang+0x…)``) or not (``3  opt  0x… llvm::Foo() + 39``).
"""

from __future__ import annotations

import itertools
import re

from crashes.frames import LLVM_HANDLERS, MAX_NAME, is_ignored
from crashes.model import Frame, ParsedTrace
from crashes.traces import apple, llvm_verifier
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.native_frames import HANDLER_DEPTH, parse_frame
from crashes.traces.text import (
    CUT_LINES,
    MAX_LINE,
    PROMPT,
    file_name,
    find_lines,
    join_cut_lines,
    mask_message,
    per_text,
)

FORMAT = "llvm"
_MARKERS = (
    "PLEASE submit a bug report",
    "Please submit a bug report",
    "Stack dump:",
    "LLVM ERROR:",
    "error: error in backend: ",
    "UNREACHABLE executed",
)
# glibc's "file:line: " before the function. What precedes the file varies (the
# program's name, a log's "remote: " or time stamp), so the last one on the line counts.
_LINE_NUMBER = re.compile(r":\d{1,9}: ")
# Node's CHECK, after the process's name and pid, prints no blank after the line number:
# "node[1738]: ../src/node_contextify.cc:649:static void node::contextify::ContextifyScript::New(…)".
_NODE_CHECK = re.compile(r"^\s{0,8}[\w.-]{1,100}\[\d{1,10}\]: [^\s:]{1,500}:\d{1,9}:(?=\S)")
_MAC_ASSERTION = re.compile(
    r"^Assertion failed: \((?P<expr>.*)\), function (?P<function>[^,]+), file (?P<where>[^,]+),"
)
# MSVC's C runtime: "Assertion failed: expr, file S:\\src\\ASTContext.cpp, line 1317" (no function).
# (Not macOS's "Assertion failed: (expr), function f, file F, line N.", whose expression may open the same way.)
_MSVC_ASSERTION = re.compile(
    r"^`?Assertion failed: (?![^\n]{0,1000}\), function )(?P<expr>[^\n]{1,1000}?), file (?P<where>[^,\n]{1,300}), "
    r"line \d{1,9}\b"
)
# The same assert as the C runtime's dialog shows it (copied from the window or from Visual Studio's output):
# "Assertion failed!", "Program: …", "File: ../ta/ta.c, Line 335" (or "File: …" and "Line: 293"), "Expression: …".
_DIALOG_HEAD = "Assertion failed!"
_DIALOG_FILE = re.compile(r"^\s{0,8}File: (?P<where>[^,\n]{1,300}?)(?:,? [Ll]ine:? \d{1,9})?\s*$")
_DIALOG_EXPRESSION = re.compile(r"^\s{0,8}Expression: (?P<expr>[^\n]{1,1000}?)\s*$")
# How far below the dialog's head its fields are (a blank line between each, when copied from the window).
_DIALOG_SPAN = 12
_DIALOG_TRIES = 4
_UNREACHABLE = re.compile(r"^UNREACHABLE executed at (?P<where>\S+?):\d+!?")
# A program's name before it ("clang: LLVM ERROR: …"), or joined to it as rustc's handler prints it
# ("rustc-LLVM ERROR: Cannot select: …").
# Clang prints the same fatal error as a diagnostic: "fatal error: error in backend: Cannot select: …".
_FATAL = re.compile(r"^(?:\S+: |\w+-)?(?:LLVM ERROR|(?:\S+: )?fatal error: error in backend): (?P<error>.+)$")
# (macOS prints the signal trampoline's null address as eighteen zeros, without its 0x.)
_UNSYMBOLIZED = re.compile(r"^\s*(?P<index>\d+)\s+(?P<module>\S+)\s+(?:0x[0-9a-fA-F]+|0{16,18})\s*(?P<function>.*)$")
# (The lookbehind: a match starts where a run of blanks does, so a search reads a run once, not per blank.)
_OFFSET = re.compile(r"(?<!\s)\s+\+\s+\d+\s*$")


def recognize(text: str) -> bool:
    """True for an LLVM tool's crash report, or a C assertion failure (glibc's or macOS's) of any program."""
    if any(marker in text for marker in _MARKERS):
        return True
    if _signal_handlers(text):
        return True
    if _headless(text) and not apple.recognize(text):
        return True
    # (A wrap may have cut the word itself: ": Asserti" / "on `x' failed.")
    if "Assertion" not in text and not ("' failed" in text and ": A" in text):
        return False
    lines, joined = _assertion_lines(text)
    whole = "\n".join(lines) if joined else text
    return bool(
        _assertion(lines)
        or (_DIALOG_HEAD in text and _dialog_assertion(lines))
        or find_lines(whole, _MAC_ASSERTION, 1, "Assertion failed")
        or find_lines(whole, _MSVC_ASSERTION, 1, "Assertion failed")
    )


# A stack dump pasted without its head (the assertion, "Stack dump:", the signal handlers): frame
# lines in LLVM's forms, "#21 0x… swift::runSILPasses(…) (/usr/bin/swift-frontend+0x…)" or, on
# macOS, "4  swift-frontend  0x… swift::Foo::bar(…) + 12". gdb's and the sanitizers' frames say
# "0x… in f"; a macOS crash report (its header, a thread's "Crashed") is apple's. Nothing in such a
# paste says it is a compiler's, so it is a format of its own, keyed within its target as a
# program's crash is: any C++ program's backtrace_symbols() prints the same lines.
HEADLESS_FORMAT = "stack-dump"
# The run must start at frame 0: a paste that starts further down holds only the outer frames (the
# driver's, the pass manager's), which every crash of the compiler shares.
_HEADLESS_FRAME = re.compile(
    r"^\s*(?:#(?P<hash>\d{1,4})\s+0x[0-9a-fA-F]{1,16} (?!in )"
    r"|(?P<index>\d{1,4})\s+\S{1,200}\s+(?:0x[0-9a-fA-F]{1,16}|0{16,18}) )\S"
)
_HEADLESS_FRAMES = 3


@per_text
def _headless(text: str) -> bool:
    """Whether ``text`` holds a stack dump's frames from frame 0 on, of C++ code, with no other mark of LLVM."""
    if "::" not in text or "0x" not in text:
        return False
    run = 0
    for line in text.split("\n"):
        frame = _HEADLESS_FRAME.match(line[:MAX_LINE])
        if frame and (run or (frame["hash"] or frame["index"]) == "0"):
            run += 1
            if run >= _HEADLESS_FRAMES and "::" in line:
                return True
        elif line.strip():
            run = 0
    return False


@per_text
def _signal_handlers(text: str) -> bool:
    """A stack dump whose head was cut off still shows LLVM's signal handlers: it is LLVM's."""
    return ("PrintStackTrace" in text or "SignalHandler" in text) and sum(
        1 for line in text.split("\n") if parse_frame(line) is not None
    ) >= 3


# LLVM's own signal handling, which prints the dump: what it calls above it (a sanitizer's
# `backtrace` interceptor, the C library's) is the handler's too.
_HANDLER = re.compile(rf"(?:{LLVM_HANDLERS})\b")


def _frames(lines: list[str]) -> tuple[Frame, ...]:
    start = next((i for i, line in enumerate(lines) if "Stack dump" in line), 0)
    frames = []
    for line in lines[start:]:
        line = line[:MAX_LINE]
        frame = parse_frame(line)
        if frame is None:
            match = _UNSYMBOLIZED.match(line)
            if match:
                frame = Frame(function=_OFFSET.sub("", match["function"]), module=match["module"])
        if frame is not None:
            frames.append(frame)
    handler = max(
        (i for i, frame in enumerate(frames[:HANDLER_DEPTH]) if _HANDLER.search(frame.function[:MAX_NAME])),
        default=-1,
    )
    return tuple(frames[handler + 1 :])


# Assertions inside LLVM's casting and container templates fail for whoever
# called them with a bad value: LLVM's triagers read the caller, so these are
# no site and the frames below decide.
_HELPER_SITE = re.compile(
    # (macOS's assert names the bare function: isa_impl_cl<…>::doit is "doit".)
    r"(?:^|::)(?:cast|dyn_cast|isa|cast_or_null|dyn_cast_or_null|isa_impl_cl|doit|operator\*|operator->|operator\[\]|"
    r"getValue|get|front|back|value)$|(?:^|::)(?:ArrayRef|SmallVector\w*|DenseMap\w*|Optional|Expected|PointerUnion|"
    r"ilist_\w+|iterator_\w+|isa_impl\w*|cast_\w+)(?:<|::)|^std::|^__gnu_cxx::"
)


def function_name(signature: str) -> str:
    """``bool clang::interp::copyComposite(clang::interp::InterpState&, …)`` -> ``clang::interp::copyComposite``.

    ``(anonymous namespace)::`` is part of the name, not its argument list; so is a space inside template
    arguments (``isa_impl_cl<To, From*>::doit``); a ``decltype(auto)`` return type is passed over.
    """
    signature = signature.replace(ANONYMOUS, ANONYMOUS_TOKEN)
    depth, start, end, index = 0, 0, len(signature), 0
    while index < len(signature):
        char = signature[index]
        if char == "(" and depth == 0:
            if signature[start:index].strip() != "decltype":
                end = index
                break
            closing = signature.find(")", index)
            index = len(signature) if closing == -1 else closing
        elif char == " " and depth == 0:
            start = index + 1
        elif char in "<>":
            depth = max(0, depth + (1 if char == "<" else -1))
        index += 1
    name = signature[start:end].strip()
    # C's __PRETTY_FUNCTION__ binds a returned pointer to the name: ``const char *jvp_utf8_backtrack(…)``.
    name = name.lstrip("*&")
    return name.replace(ANONYMOUS_TOKEN, ANONYMOUS)


def unqualified(name: str) -> str:
    """``llvm::LexicalScopes::getOrCreateRegularScope`` -> ``getOrCreateRegularScope``, template arguments whole."""
    depth, start = 0, 0
    for index, char in enumerate(name):
        if char in "<>":
            depth = max(0, depth + (1 if char == "<" else -1))
        elif char == ":" and depth == 0 and name.startswith("::", index) and index + 2 < len(name):
            start = index + 2
    return name[start:]


# GCC's name for an anonymous namespace, with blanks and parentheses, held as one word while a name is read
# (here, and by crashes.traces.gdb).
ANONYMOUS, ANONYMOUS_TOKEN = "(anonymous namespace)", "\x00anonymous\x00"
# The first template argument of a __PRETTY_FUNCTION__ (clang's ``[To = T, From = …]``, gcc's ``[with To = T; …]``).
_TEMPLATE_ARGUMENTS = re.compile(r"<[^<>]{0,200}>")
_TEMPLATE_TO = re.compile(r"\[(?:with )?\w{1,20} = (?P<to>[^,;\]]{1,200})")


def _groups(match: dict | re.Match) -> set[str]:
    """The fields an assertion's match has (glibc's dict, macOS's or MSVC's match)."""
    return set(match) if isinstance(match, dict) else set(match.re.groupindex)


def _dialog_assertion(lines: list[str]) -> list[dict]:
    """The C runtime's assertion dialog: its expression, and its file (MSVC's assert names no function)."""
    heads = (index for index, line in enumerate(lines) if line.strip().strip("`") == _DIALOG_HEAD)
    # (The first few: a hostile text of nothing but heads is not read twelve lines per line.)
    for index in itertools.islice(heads, _DIALOG_TRIES):
        where = expr = None
        for field in lines[index + 1 : index + 1 + _DIALOG_SPAN]:
            where = where or _DIALOG_FILE.match(field[:MAX_LINE])
            expr = expr or _DIALOG_EXPRESSION.match(field[:MAX_LINE])
        if where and expr:
            return [{"expr": expr["expr"], "where": where["where"], "line": f"{_DIALOG_HEAD} {expr['expr']}"}]
    return []


def _assertion(lines: list[str]) -> list[dict]:
    """glibc's ``file:line: function: Assertion `expr' failed.``, split by hand (no backtracking over the line)."""
    for line in lines:
        line = line[:MAX_LINE]
        cut = line.find(": Assertion `")
        if cut == -1:
            continue
        where = _NODE_CHECK.match(line, 0, cut)
        for found in () if where else _LINE_NUMBER.finditer(line, 0, cut):
            where = found
        expr = line[cut + len(": Assertion `") :]
        end = expr.rfind("' failed")
        # A line wrapped before its "file:line:" keeps no trustworthy function: the frames decide.
        function = line[where.end() : cut] if where else ""
        # Without its "' failed" the line was cut inside the expression: what is left is its start.
        return [{"function": function, "expr": expr[:end] if end != -1 else expr, "line": line, "cut": end == -1}]
    return []


_ASSERTION_WORD = ": Assertion `"
# What a line cut inside glibc's ": Assertion `" ends with: ": A" to ": Assertion".
_WORD_HEADS = tuple(_ASSERTION_WORD[:size] for size in range(3, len(_ASSERTION_WORD)))


def _join_cut_word(lines: list[str]) -> list[str]:
    """``lines`` with the first line a wrap cut inside ``: Assertion ``` joined to the next."""
    for index, line in enumerate(lines[:-1]):
        if line.endswith(_WORD_HEADS):
            head = next(head for head in reversed(_WORD_HEADS) if line.endswith(head))
            if lines[index + 1].startswith(_ASSERTION_WORD[len(head) :]):
                return [*lines[:index], line + lines[index + 1], *lines[index + 2 :]]
        # Cut on the blank (kept at the line's end, or stripped): "helpers.c:89: try_leave: " / "Assertion `…".
        if line.rstrip(" ").endswith(":") and lines[index + 1].startswith(_ASSERTION_WORD[2:]):
            return [*lines[:index], line.rstrip(" ") + " " + lines[index + 1], *lines[index + 2 :]]
    return lines


def _join_cut_assertion(lines: list[str]) -> tuple[list[str], int]:
    """Join the first assertion line a hard wrap cut, whatever the width.

    glibc's line runs from ``prog: file:line: function`` to ``' failed.``, macOS's from
    ``Assertion failed: (`` to ``, line N.``, MSVC's from ``Assertion failed: `` to ``, line N``:
    one cut short at either end is joined to the lines around it while that makes it whole. (One long
    line in a short report shows no width for ``crashes.traces.extract`` to find.)
    """
    lines = _join_cut_word(lines)
    for index, line in enumerate(lines):
        glibc = ": Assertion `" in line
        mac = line.startswith("Assertion failed: (")
        # MSVC's, from ``Assertion failed: `` to ``, line N``, cut in its expression or its file's path.
        msvc = (
            not glibc
            and not mac
            and len(line) >= MIN_WRAP_WIDTH
            and line.lstrip("`").startswith("Assertion failed: ")
            and not _MSVC_ASSERTION.match(line[:MAX_LINE])
        )
        if not glibc and not mac and not msvc:
            continue
        start = index
        if glibc and not _LINE_NUMBER.search(line, 0, line.find(": Assertion `")):
            # The head (program, file:line, function) went to the lines before, its "file:line: "
            # maybe cut too ("…/STLExtras.h:48" / "3: decltype(auto) …"): looked for in the pieces joined.
            for back in range(index - 1, max(-1, index - 1 - CUT_LINES), -1):
                head = "".join(piece[:MAX_LINE] for piece in lines[back:index])
                if _LINE_NUMBER.search(head + line[: line.find(": Assertion `")]):
                    start = back
                    break
        head = joined = "".join(lines[start : index + 1])
        end = index
        whole = _MSVC_ASSERTION if msvc else _MAC_ASSERTION
        while not ("' failed" in joined if glibc else whole.match(joined[:MAX_LINE])):
            end += 1
            if end >= len(lines) or end > index + CUT_LINES:
                # The paste itself stopped inside the expression: its head is still its head.
                end, joined = index, head
                break
            # A cut on the blank before "failed." (the blank stripped with the line's end) loses it.
            joined += (" " if glibc and joined.endswith("'") and lines[end].startswith("failed") else "") + lines[end]
        if end == start:
            return lines, 0
        return [*lines[:start], joined, *lines[end + 1 :]], end - start
    return lines, 0


@per_text
def _assertion_lines(text: str) -> tuple[tuple[str, ...], int]:
    """:func:`_join_cut_assertion` of ``text``'s lines (for recognize and parse alike)."""
    lines, joined = _join_cut_assertion(text.split("\n"))
    return tuple(lines), joined


def parse(text: str) -> ParsedTrace:
    """Parse the crash reason and the stack dump."""
    joined_lines, joined = _assertion_lines(text)
    lines = list(joined_lines)
    frames = _frames(lines)
    if joined:
        text = "\n".join(lines)
    assertion = (
        _assertion(lines)
        or find_lines(text, _MAC_ASSERTION, 1, "Assertion failed")
        or find_lines(text, _MSVC_ASSERTION, 1, "Assertion failed")
        or (_dialog_assertion(lines) if _DIALOG_HEAD in text else [])
    )
    unreachable = find_lines(text, _UNREACHABLE, 1, "UNREACHABLE")
    if not unreachable and "UNREACHABLE executed at " in text:
        # Cut by a terminal inside its file ("…/WebAssemblyCFG" / "Stackify.cpp:252!"): read with the next lines.
        lines, _ = join_cut_lines(
            lines,
            starts=lambda line: line.startswith("UNREACHABLE executed at ") and len(line) >= MIN_WRAP_WIDTH,
            whole=lambda joined, _next: _UNREACHABLE.match(joined[:MAX_LINE]) is not None,
        )
        text = "\n".join(lines)
        unreachable = find_lines(text, _UNREACHABLE, 1, "UNREACHABLE")
    fatal = find_lines(text, _FATAL, 1, "LLVM ERROR") or find_lines(text, _FATAL, 1, "error in backend")
    # (rustc prints the verifier's last value without a newline: " i64LLVM ERROR: Broken function found…".)
    broken = llvm_verifier.broken_at(lines) if "Broken " in text else None
    site = ""
    if assertion:
        match = assertion[0]
        crash_type = f"Assertion `{match['expr'].strip()}' failed"
        if isinstance(match, dict) and match.get("cut"):
            # An expression cut short is kept open, the start of the whole one: the fuzzy stage finds a
            # report of it whole by that start (crashes.similarity), as it does a message cut short.
            crash_type = f"Assertion `{match['expr'].rstrip()}"
        if "function" not in _groups(match):
            # MSVC's assert names no function: its file (without the line) is the site.
            site = file_name(match["where"])
        elif _HELPER_SITE.search(site := function_name(match["function"])):
            # With no frames to decide, what the caller asked the helper for is all that tells two apart:
            # ``llvm::cast(From *) [To = llvm::MDNode, From = llvm::Metadata]`` -> ``llvm::cast<llvm::MDNode>``.
            wanted = _TEMPLATE_TO.search(match["function"]) if isinstance(match, dict) else None
            plain = _TEMPLATE_ARGUMENTS.sub("", site)
            # (Frames of the C library's abort path alone, a paste cut below __assert_fail, decide nothing.)
            # (An unsymbolized frame, "(/usr/lib/libLLVM-17.so.1+0xd7f37b)", decides nothing either.)
            deciding = any(frame.function and not is_ignored(frame, "native") for frame in frames)
            site = f"{plain}<{wanted['to'].strip()}>" if wanted and not deciding else ""
        else:
            # macOS's assert names the bare function (``__func__``), glibc's the qualified one:
            # one assertion in one function is one site, whichever C library printed it.
            site = unqualified(site)
        message = (match["line"] if isinstance(match, dict) else match.group(0)).strip()
    elif unreachable:
        where = file_name(unreachable[0]["where"])
        index = next(i for i, line in enumerate(lines) if line.startswith("UNREACHABLE executed"))
        # The message is the line before ("undeduced type in IR-generation"), unless that is the
        # shell's prompt and command: llvm_unreachable() was given no message.
        said = lines[index - 1].strip() if index else ""
        if PROMPT.match(said):
            said = ""
        crash_type = f"UNREACHABLE: {mask_message(said, 120)}"
        site = where
        message = said
    elif fatal or broken is not None:
        check = llvm_verifier.failed_check(lines, broken[0]) if broken is not None else None
        if check:
            # The verifier's check, not its "Broken function found" that every bad IR ends with.
            said, at = check
            instruction = llvm_verifier.instruction(lines[at + 1 : at + 3])
            crash_type = f"LLVM ERROR: Broken {broken[1]['what']} found: {mask_message(said, 120)}{instruction}"
            message = said
        else:
            error = fatal[0]["error"] if fatal else broken[1]["error"]
            crash_type = f"LLVM ERROR: {mask_message(error, 160)}"
            message = error.strip()
    elif not any(marker in text for marker in _MARKERS) and not _signal_handlers(text) and _headless(text):
        # The head, which said what failed, was not pasted.
        return ParsedTrace(
            format=HEADLESS_FORMAT, crash_type="crash (stack dump only)", frames=frames, language="native"
        )
    else:
        crash_type = "SEGV"
        message = ""
    context = ()
    if not site and not any(frame.function for frame in frames):
        # A release build's dump names no function: the innermost pass its stack names ("4.	Running pass
        # 'X86 DAG->DAG Instruction Selection' on function '@foo'"), without the user's function, says where.
        passes = find_lines(text, _RUNNING_PASS, 8, "Running pass '") if "Running pass '" in text else []
        context = (f"pass {passes[-1]['name']}",) if passes else ()
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=frames,
        language="native",
        site=site,
        context=context,
        repairs=(f"{joined} cut assertion lines joined",) if joined else (),
    )


_RUNNING_PASS = re.compile(r"^\s*\d{1,3}\.\s+Running pass '(?P<name>[^'\n]{1,200})'")
