"""GCC internal compiler errors (and those of compilers built on GCC: gccrs, gdc, gfortran).

``file.c:3:1: internal compiler error: in fold_convert_loc, at fold-const.cc:2567``
followed by a backtrace of ``0x8f2a3b fold_convert_loc(...)`` lines, each
with its source on the next line. GCC's bugmasters call two ICEs the same
when they fail ``in FUNCTION, at FILE`` (the line moves between releases)
and their backtraces agree, so that is the crash type and the site. A
``Segmentation fault`` or a ``tree check`` ICE names no function of its
own: there the backtrace after ``crash_signal`` decides.
"""

from __future__ import annotations

import re

from crashes.frames import is_ignored
from crashes.model import INPUT, Frame, ParsedTrace
from crashes.traces.extract import MIN_WRAP_WIDTH
from crashes.traces.llvm import function_name
from crashes.traces.text import CUT_LINES, MAX_LINE, find_lines, join_cut_lines, mask_message

FORMAT = "gcc-ice"
_ICE = re.compile(r"^(?:.*?: )?internal compiler error: (?P<error>.+)$")
# GCC's own sources all have an extension: "at gimplify" is "at gimplify.cc:3058" cut by a terminal.
# A blank a terminal cut on is stripped with the line's end: "in tree_to_uhwi," / "at tree.h:4519".
_IN_AT = re.compile(r"in (?P<function>[\w:~<>]+)(?:,| \(?[^,]*\)?,) ?at (?P<file>[\w./+-]+?\.\w+)(?::\d+)?\s*$")
_FRAME = re.compile(r"^\s*0x[0-9a-fA-F]+\s+(?P<function>\S.*?)\s*$")
_SOURCE = re.compile(r"^\s+(?P<file>\S+?):(?P<line>\d+)\s*$")
# GCC 12 renamed its C sources to C++ ones (recog.c became recog.cc, 2022): one file, whichever
# release printed it.
_RENAMED_SOURCE = re.compile(r"\.c$")
_PASS = re.compile(r"^during (?P<pass>.+ pass: \S+)")


# A back end with no pattern for an instruction fails in recog's checks, whatever the bug: what
# tells these ICEs apart is the instruction it printed before ("error: unrecognizable insn:"
# then "(insn 277 276 278 48 (set (reg:SI 205) (const_int 2048 [0x800])) …").
_INSN_CHECKS = frozenset({"extract_insn", "extract_constrain_insn"})
_INSN_HEAD = re.compile(r"^\s*\((?:insn|jump_insn|call_insn|debug_insn)\b")
# An RTL expression's code and mode, its flags (/v, /u/c) and operands left out: they name the
# program's registers and values, not the pattern the back end lacks.
# Modes as GCC names them: SI, V2DI, VNx4SI (SVE), CC_FP.
_RTL_CODE = re.compile(r"\((?P<code>[a-z_]{2,30})(?:/[a-z])*(?::(?P<mode>[A-Z][A-Za-z0-9_]{0,9}))?")
# A MEM's attributes, "[1 MEM[(int *)p_2(D)]+0 S4 A32]", name the program's types and variables.
_ATTRIBUTES_OPEN = re.compile(r"\[\s?\d")
_INSN_LINES = 6
_INSN_CODES = 6
# How far above the ICE line the instruction's first line may be (its own lines, the pass line,
# blank lines).
_INSN_ABOVE = 40


def _insn_shape(lines: list[str], ice: int) -> str:
    """`` [set reg:SI const_int]``: the instruction printed above the ICE line, as codes and modes."""
    for start in range(ice - 1, max(-1, ice - 1 - _INSN_ABOVE), -1):
        if _INSN_HEAD.match(lines[start][:MAX_LINE]):
            break
    else:
        return ""
    # Not past the ICE line: an instruction the paste cut short must not read the backtrace's "(char const*".
    dump = " ".join(line[:MAX_LINE] for line in lines[start : min(start + _INSN_LINES, ice)])
    pattern = _without_attributes(_first_operand(dump, dump.index("(") + 1))
    codes = [f"{m['code']}:{m['mode']}" if m["mode"] else m["code"] for m in _RTL_CODE.finditer(pattern)]
    return f" [{' '.join(codes[:_INSN_CODES])}]" if codes else ""


def _without_attributes(pattern: str) -> str:
    """``pattern`` without its MEMs' attribute brackets (nested ones included); a vector's ``[…]`` stays."""
    kept, depth, position = [], 0, 0
    for found in _ATTRIBUTES_OPEN.finditer(pattern):
        if found.start() < position:
            continue  # inside a bracket already skipped
        kept.append(pattern[position : found.start()])
        depth, position = 0, found.start()
        while position < len(pattern):
            depth += {"[": 1, "]": -1}.get(pattern[position], 0)
            position += 1
            if depth == 0:
                break
    kept.append(pattern[position:])
    return "".join(kept)


def _first_operand(dump: str, start: int) -> str:
    """The insn's pattern: its first parenthesised operand, not the location and notes after it."""
    opening = dump.find("(", start)
    if opening < 0:
        return ""
    depth = 0
    for position in range(opening, len(dump)):
        depth += {"(": 1, ")": -1}.get(dump[position], 0)
        if depth == 0:
            return dump[opening : position + 1]
    return dump[opening:]  # cut short by the paste: what there is of it


# "file.c:1413:1: error: unrecognizable insn:" is printed by fatal_insn_not_found, called from
# extract_insn alone, and "error: insn does not satisfy its constraints:" by the same function called from
# extract_constrain_insn: a paste cut before the ICE line below it is that ICE all the same.
_UNRECOGNIZABLE = re.compile(
    r"^(?:.*?: )?error: (?P<kind>unrecognizable insn|insn does not satisfy its constraints):\s*$"
)
_UNRECOGNIZABLE_SITES = {
    "unrecognizable insn": ("extract_insn", "recog.cc"),
    "insn does not satisfy its constraints": ("extract_constrain_insn", "recog.cc"),
}


def _unrecognizable(lines: list[str]) -> int | None:
    """Where an "unrecognizable insn" or "insn does not satisfy its constraints" error with its instruction
    below it is, in a text with no ICE line."""
    for index, line in enumerate(lines):
        if " insn" in line and _UNRECOGNIZABLE.match(line[:MAX_LINE]):
            below = lines[index + 1 : index + 1 + _INSN_LINES]
            if any(_INSN_HEAD.match(following[:MAX_LINE]) for following in below):
                return index
            return None
    return None


# GCC's checkers of its own intermediate forms ("verify_gimple failed", "verify_ssa failed",
# "verify_flow_info failed"): every bug they catch ends in the same checker and pass manager frames.
# What they found is the error they printed above the ICE ("error: type mismatch in binary
# expression"), and where is the pass that left it ("during GIMPLE pass: vect").
_VERIFIER = re.compile(r"^verify_\w{1,40} failed\b")
_FINDING = re.compile(r"^(?:.*?: )?error: (?P<finding>.+)$")


def _verifier_finding(lines: list[str], ice: int) -> str:
    """``: type mismatch in binary expression (during GIMPLE pass: vect)``, of what is above the ICE line."""
    finding, stage = "", ""
    for line in reversed(lines[max(0, ice - _INSN_ABOVE) : ice]):
        if not stage and line.startswith("during "):
            matched = _PASS.match(line[:MAX_LINE])
            stage = matched["pass"] if matched else ""
        elif "error: " in line and (matched := _FINDING.match(line[:MAX_LINE])):
            finding = matched["finding"].strip()  # the first of them, read upwards to the last
    # The tree code it quotes ("non-trivial conversion in 'mem_ref'") is what it found: kept, in either
    # quotes GCC prints (a UTF-8 locale's ‘mem_ref’).
    finding = finding.replace("\u2018", "'").replace("\u2019", "'")
    said = f": {mask_message(finding, 120, quoted=False)}" if finding else ""
    return said + (f" (during {stage})" if stage else "")


def recognize(text: str) -> bool:
    """True for a GCC internal compiler error (or its "unrecognizable insn" error, the ICE line cut off)."""
    # rustc's and Go's ICEs were claimed by their own parsers, earlier in the registry.
    if "internal compiler error" in text and find_lines(text, _ICE, 1, "internal compiler error"):
        return True
    return any(kind in text for kind in _UNRECOGNIZABLE_SITES) and _unrecognizable(text.split("\n")) is not None


def parse(text: str) -> ParsedTrace:
    """Parse the ICE line and the backtrace after it."""
    lines = text.split("\n")
    index = next(
        (i for i, line in enumerate(lines) if "internal compiler error: " in line and _ICE.match(line[:MAX_LINE])),
        None,
    )
    if index is None:
        return _cut_before_the_ice(lines, text)
    error = _ICE.match(lines[index][:MAX_LINE])["error"].strip()
    in_at = _IN_AT.search(error)
    if in_at is None and len(lines[index]) >= MIN_WRAP_WIDTH:
        # Cut by a terminal ("in extract_in" / "sn, at recog.cc:2791"): read with the lines it goes on in.
        for end in range(index + 1, min(index + 1 + CUT_LINES, len(lines))):
            if not lines[end].strip() or lines[end][:1].isspace():
                break
            joined = error + "".join(line.strip() for line in lines[index + 1 : end + 1])
            in_at = _IN_AT.search(joined[:MAX_LINE])
            if in_at:
                error, index = joined, end
                break
    site = ""
    if in_at:
        site = in_at["function"]
        # "tree check: expected tree_list, have identifier_node in foo, at tree.h:3411" keeps its check.
        head = error[: in_at.start()].strip()
        crash_type = (
            f"internal compiler error: {mask_message(head, 80) + ' ' if head else ''}in {site}, "
            f"at {_RENAMED_SOURCE.sub('.cc', in_at['file'])}"
        )
        if site in _INSN_CHECKS:
            crash_type += _insn_shape(lines, index)
    else:
        crash_type = f"internal compiler error: {mask_message(error, 120)}"
        if _VERIFIER.match(error):
            crash_type += _verifier_finding(lines, index)
    frames: list[Frame] = []
    # A frame a terminal cut in its arguments ("0x10026f8 f(std::pair<unsigned int," / " std::vector<…>&&)")
    # goes on until its parentheses close, on lines that are not a frame's source or another frame.
    following, _ = join_cut_lines(
        lines[index + 1 :],
        starts=lambda line: (
            len(line) >= MIN_WRAP_WIDTH
            and line.count("(") > line.count(")")
            and _FRAME.match(line[:MAX_LINE]) is not None
        ),
        whole=lambda joined, _next: joined.count("(") <= joined.count(")"),
        goes_on=lambda line: bool(line) and not line.startswith("\t") and not _FRAME.match(line[:MAX_LINE]),
    )
    for position, line in enumerate(following):
        match = _FRAME.match(line[:MAX_LINE])
        if not match:
            continue
        source = _SOURCE.match(following[position + 1][:MAX_LINE]) if position + 1 < len(following) else None
        frames.append(
            Frame(
                function=match["function"],
                file=source["file"] if source else "",
                line=int(source["line"]) if source else None,
            )
        )
    stage = find_lines(text, _PASS, 1, "during ")
    message = error + (f" (during {stage[0]['pass']})" if stage else "")
    context = ()
    if not site and not any(not is_ignored(frame, "native") for frame in frames):
        # A signal ("Segmentation fault") with no frame of GCC's own (a release build's backtrace is libc's):
        # the user's function GCC was compiling says which crash it is, as GCC's frames would; it is the
        # user's input, so the key is the target's.
        compiled = _compiled_function(lines, index)
        context = (INPUT + compiled,) if compiled else ()
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=tuple(frames),
        language="native",
        site=site,
        context=context,
    )


# GCC's "In function 'f':" (or "In member function 'void ns::C::f(T)':", in typographic quotes too) above
# the ICE's line, naming the function it was compiling.
_IN_FUNCTION = re.compile(r"\bIn (?:member |static member )?function [‘'](?P<function>[^’'\n]{1,500})[’']:\s*$")
_FUNCTION_ABOVE = 6
# A function GCC made itself, named for the file it was made for ("global constructors keyed to
# 65535_0_sketch.ino.cpp.o", LTO's): the file is the user's, one per report; the kind of function is GCC's.
_KEYED_TO = re.compile(r"^(global (?:constructors|destructors) keyed to) .+$")


def _compiled_function(lines: list[str], ice: int) -> str:
    """The function GCC was compiling when the ICE at ``lines[ice]`` struck, or ""."""
    for line in reversed(lines[max(0, ice - _FUNCTION_ABOVE) : ice]):
        found = _IN_FUNCTION.search(line[:MAX_LINE]) if "function " in line else None
        if found:
            keyed = _KEYED_TO.match(found["function"])
            return f"{keyed[1]} <file>" if keyed else function_name(found["function"])
    return ""


def _cut_before_the_ice(lines: list[str], text: str) -> ParsedTrace:
    """An "unrecognizable insn" (or "insn does not satisfy its constraints") error and its instruction,
    pasted without the ICE line that follows."""
    error_at = _unrecognizable(lines)
    kind = _UNRECOGNIZABLE.match(lines[error_at][:MAX_LINE])["kind"]
    function, file = _UNRECOGNIZABLE_SITES[kind]
    crash_type = f"internal compiler error: in {function}, at {file}" + _insn_shape(
        lines, min(len(lines), error_at + 1 + _INSN_LINES)
    )
    stage = find_lines(text, _PASS, 1, "during ")
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=kind + (f" (during {stage[0]['pass']})" if stage else ""),
        frames=(),
        language="native",
        site=function,
    )
