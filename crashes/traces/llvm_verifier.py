"""LLVM's IR verifier giving up: the check it printed above ``Broken function found``, and the instruction.

Every front end that hands LLVM bad IR (rustc, Crystal, Zig, Julia, Swift,
clang) ends the same way: ``LLVM ERROR: Broken function found, compilation
aborted!`` (or ``Broken module found``, or clang's ``fatal error: error in
backend: …``). That line is every such bug's; the verifier's own report
above it says which check failed (``Instruction does not dominate all
uses!``, ``!dbg attachment points at wrong subprogram for function``), at
column 0, then dumps what failed it: instructions indented, types after a
blank, metadata (``!12 = …``), globals (``@g = …``), maybe ``in function
f``. The check and the failing instruction's opcode are what tell two bugs
apart. rustc prints the last dumped value without a newline, so the fatal
line may start with it (`` i64LLVM ERROR: Broken function found…``).
"""

from __future__ import annotations

import re

from crashes.traces.text import MAX_LINE, PROMPT

# The fatal line, as LLVM, clang ("error in backend: ") and rustc (glued to the dump) print it; not a reporter's
# sentence quoting it ('I get "LLVM ERROR: Broken function found…"'). Before LLVM 3.x: "compilation terminated".
_BROKEN = re.compile(
    r"(?<![\"'`])(?:LLVM ERROR|error in backend): (?P<error>Broken (?P<what>function|module) found, "
    r"compilation (?:aborted|terminated)!?)"
)
# How far above the fatal line the verifier's check may be (the IR it dumps for one check is a few lines).
_REACH = 30
_OPCODES = (
    "call|invoke|store|load|br|ret|phi|getelementptr|bitcast|alloca|switch|select|icmp|fcmp|extractvalue|"
    "insertvalue|extractelement|insertelement|shufflevector|unreachable|resume|landingpad|atomicrmw|cmpxchg|fence|"
    "ptrtoint|inttoptr|addrspacecast|trunc|zext|sext|fptrunc|fpext|fptoui|fptosi|uitofp|sitofp|freeze|add|sub|"
    "mul|udiv|sdiv|urem|srem|shl|lshr|ashr|and|or|xor|fadd|fsub|fmul|fdiv|frem|fneg|va_arg|callbr|indirectbr|"
    "cleanuppad|catchpad|catchswitch|catchret|cleanupret"
)
# A line of the verifier's dump at column 0: a value, global or metadata node with its definition ("%x = …",
# "@g = …", "!12 = …", "$c = comdat any"), a metadata or attribute reference, a type, a label, a function's
# header, "in function f", a number, an attribute string. (An instruction is indented, as a type printed
# alone is: any indented line is the dump's. A check may open with "!dbg" or an opcode's name, as a word.)
_IR_DUMP = re.compile(
    r"^(?:\s|[%@$][\w.\"$-]{0,200} = |![\w.$-]{0,200} = |!\d|!\{|![\"<]|[;<{\[#\"]|\d+\s*$|"
    r"(?:in function|label|ptr|void|i\d{1,4}|define|declare|distinct|metadata|token|attributes|float|double|half|"
    r"bfloat|fp128|x86_fp80|ppc_fp128|x86_amx|x86_mmx|target\()(?:\b|\s|$))"
)
# The failing instruction (indented, a value's definition or not).
_INSTRUCTION = re.compile(r"^\s*(?:%[\w.\"-]{1,100} = )?(?:tail |musttail |notail )?(?P<op>" + _OPCODES + r")\b")
_CALLEE = re.compile(r"@(?P<callee>\"[^\"]{1,200}\"|[\w.$-]{1,200})\(")
# What one build adds to a symbol's name (kept out of the callee).
_BUILD_MARKS = re.compile(
    r"17h[0-9a-f]{16}(?=E)|\.(?:cold|llvm|constprop|isra|part|lto_priv)\.\d+|(?<=\?A0x)[0-9A-Fa-f]{8}"
)
# Two words at least: what a check says, and a rule of dashes or a lone token does not.
_SENTENCE = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]")
# A Markdown quote's marks before a pasted line.
_QUOTE_MARKS = re.compile(r"^(?:>\s?)+")


def instruction(following: list[str]) -> str:
    """`` | call @callee`` (or `` | store``) for the IR instruction in ``following`` lines, or "".

    One check ("inlinable function call … must have a !dbg location") fails
    for every front-end bug that drops a location: the callee says which
    code generator path dropped it. Its build's marks are left out: a Rust
    symbol's hash (``_ZN1a1f17h84769ced50b3359cE``), a split-off part's
    suffix (``.cold.1``), MSVC's anonymous namespace (``?A0x8C4B31D0``).
    """
    line = next((line for line in following if line.strip()), "")[:MAX_LINE]
    found = _INSTRUCTION.match(line)
    if found is None:
        return ""
    callee = _CALLEE.search(line) if found["op"] in ("call", "invoke") else None
    return f" | {found['op']}" + (f" @{_BUILD_MARKS.sub('', callee['callee'])}" if callee else "")


def broken_at(lines: list[str]) -> tuple[int, re.Match] | None:
    """The line saying the verifier gave up: its index, and its match (``error``: from "Broken" on; ``what``:
    function or module), or None."""
    for index, line in enumerate(lines):
        found = _BROKEN.search(line[:MAX_LINE]) if "Broken " in line else None
        if found:
            return index, found
    return None


def failed_check(lines: list[str], at: int) -> tuple[str, int] | None:
    """The verifier's check above ``lines[at]`` and its index: the nearest line that is not its dump."""
    for index in range(at - 1, max(at - 1 - _REACH, -1), -1):
        line = _QUOTE_MARKS.sub("", lines[index][:MAX_LINE]).rstrip()
        if not line.strip() or _IR_DUMP.match(line):
            continue
        # A shell's prompt, or output that is no sentence ("-----"): the verifier said nothing above.
        if PROMPT.match(line) or not _SENTENCE.search(line):
            return None
        # (Its "!" is how every check ends, as a sentence's full stop is.)
        return line.strip().rstrip(" .!"), index
    return None
