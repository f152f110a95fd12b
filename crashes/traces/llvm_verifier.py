"""LLVM's IR verifier giving up: the check it printed above ``Broken function found``, and the instruction.

Every front end that hands LLVM bad IR (rustc, Crystal, Zig, Julia, Swift,
clang) ends the same way: ``LLVM ERROR: Broken function found, compilation
aborted!`` (or ``Broken module found``, or clang's ``fatal error: error in
backend: …``). That line is every such bug's; the verifier's own report
above it says which check failed (``Instruction does not dominate all
uses!``, ``fragment covers entire variable``), then dumps the IR that failed
it, indented or as metadata (``!12 = …``), maybe ``in function f``. The
check and the failing instruction's kind are what tell two bugs apart.
rustc prints the last dumped value without a newline, so the fatal line may
start with it (`` i64LLVM ERROR: Broken function found…``).
"""

from __future__ import annotations

import re

from crashes.traces.text import MAX_LINE, PROMPT

BROKEN = re.compile(r"Broken (?P<what>function|module) found, compilation aborted")
# How far above the fatal line the verifier's check may be (the IR it dumps for one check is a few lines).
_REACH = 30
# A line of the verifier's IR dump: an instruction (indented, as any value it prints below the check is),
# a value ("%x = …"), metadata ("!12 = …"), a global ("@g = …"), a type, a label, "in function f", an attribute
# group. The check itself starts at column 0.
_IR_DUMP = re.compile(
    r"^(?:\s|[!%@;<{\[#]|(?:tail |musttail |notail )?(?:call|invoke|store|load|br|ret|phi|getelementptr|bitcast|"
    r"alloca|switch|select|icmp|fcmp|extractvalue|insertvalue|unreachable|resume|landingpad|atomicrmw|cmpxchg|"
    r"fence|ptrtoint|inttoptr|addrspacecast|trunc|zext|sext|fptrunc|fpext|freeze|extractelement|insertelement|"
    r"shufflevector)\b|in function\b|label\b|ptr\b|void\b|i\d{1,4}\b|define\b|declare\b|distinct\b|metadata\b|"
    r"token\b|attributes\b|float\b|double\b|half\b)"
)
# The failing instruction, and a call's callee: one check ("inlinable function call … must have a !dbg
# location") fails for every front-end bug that drops a location, and the callee says which path dropped it.
_INSTRUCTION = re.compile(
    r"^\s*(?:%[\w.\"-]{1,100} = )?(?:tail |musttail |notail )?(?P<op>call|invoke|store|load|br|ret|phi|"
    r"getelementptr|bitcast|alloca|switch|select|icmp|fcmp|extractvalue|insertvalue)\b"
)
_CALLEE = re.compile(r"@(?P<callee>\"[^\"]{1,200}\"|[\w.$-]{1,200})\(")


def instruction(following: list[str]) -> str:
    """`` | call @callee`` (or `` | store``) for the IR instruction in ``following`` lines, or ""."""
    line = next((line for line in following if line.strip()), "")[:MAX_LINE]
    found = _INSTRUCTION.match(line)
    if found is None:
        return ""
    callee = _CALLEE.search(line) if found["op"] in ("call", "invoke") else None
    return f" | {found['op']}" + (f" @{callee['callee']}" if callee else "")


def broken_at(lines: list[str]) -> int | None:
    """The index of the line saying the verifier gave up, or None."""
    found = (index for index, line in enumerate(lines) if "compilation aborted" in line and BROKEN.search(line))
    return next(found, None)


def failed_check(lines: list[str], at: int) -> tuple[str, int] | None:
    """The verifier's check above ``lines[at]`` and its index: the nearest line that is not its IR dump."""
    for index in range(at - 1, max(at - 1 - _REACH, -1), -1):
        line = lines[index][:MAX_LINE].rstrip()
        if not line.strip() or _IR_DUMP.match(line):
            continue
        # A shell's prompt, or output that is no sentence ("-----"): the verifier said nothing above.
        if PROMPT.match(line) or not re.search(r"[A-Za-z]{2,}\s+[A-Za-z]", line):
            return None
        # (Its "!" is how every check ends, as a sentence's full stop is.)
        return line.strip().rstrip(" .!"), index
    return None
