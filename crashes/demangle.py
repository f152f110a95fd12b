"""The qualified name inside an Itanium-mangled symbol, as far as a crash's frame needs it.

One reporter's tools demangle (``llvm::FPPassManager::runOnFunction``),
another's print the symbol as linked (``_ZN4llvm13FPPassManager13runOnFunctionERNS_8FunctionE``:
``backtrace_symbols``, gdb without demangling, a crash handler of its own, Rust
before its v0 mangling): one frame, which must key alike and meet the same
ignore rules. Only the name is read (namespaces, classes, the function, a
constructor or destructor), never the parameter types or template arguments,
which frame keys drop anyway. A symbol in a form not read here (operators,
local names, lambdas) is returned as it was. Linear in the symbol: every step
moves forward.
"""

from __future__ import annotations

import re

# Rust's legacy mangling escapes its punctuation ($LT$ for <, $u7b$ for {), and a name that
# starts with an escape gets a "_" before it ("_$LT$bool$u20$as$u20$core..fmt..Debug$GT$").
_RUST_NAMED = {"LT": "<", "GT": ">", "C": ",", "RF": "&", "BP": "*", "SP": "@", "LP": "(", "RP": ")"}
_RUST_ESCAPE = re.compile(r"(?:(?:^|(?<=::))_)?\$(?:(?P<named>LT|GT|C|RF|BP|SP|LP|RP)|u(?P<code>[0-9a-f]{2}))\$")
# What follows a symbol in a backtrace line: "+0x1a", ThinLTO's ".llvm.123", GCC's ".cold".
_TAIL = re.compile(r"(?:\+0x[0-9a-fA-F]+|\.llvm\.\d+|\.(?:cold|isra|constprop|part)(?:\.\d+)*)+$")
_DIGITS = frozenset("0123456789")  # not str.isdigit: "²" is a digit to it, and no length
# The standard library's abbreviations.
_STD = {"t": (), "a": ("allocator",), "b": ("basic_string",), "s": ("basic_string",)}
_STD.update({"i": ("basic_istream",), "o": ("basic_ostream",), "d": ("basic_iostream",)})
# Inside template arguments: what opens a bracket that "E" closes, and the tokens to step over whole
# (substitutions S_ S0_, template parameters T_ T1_, literals Li10E, array types A16_).
_OPENERS = frozenset("INXLJF")
_TOKEN = re.compile(r"[ST][0-9A-Z]{0,8}_|L[a-z]n?[0-9a-fA-F]{0,40}E|A\d{0,9}_|D[pnT]")
_MOST_PARTS = 64


def demangle(symbol: str) -> str:
    """``_ZN4llvm3DIE13getUnitOrNullEv`` -> ``llvm::DIE::getUnitOrNull``; anything else unchanged."""
    if not symbol.startswith(("_Z", "__Z")):
        return symbol
    # macOS prefixes every symbol with "_": "__ZN…".
    mangled = _TAIL.sub("", symbol[1:] if symbol.startswith("__Z") else symbol)
    parts = _name_parts(mangled)
    if not parts:
        return symbol
    name = "::".join(parts)
    return _RUST_ESCAPE.sub(_unescape, name).replace("..", "::")


def _unescape(found: re.Match) -> str:
    return _RUST_NAMED[found["named"]] if found["named"] else chr(int(found["code"], 16))


def _name_parts(mangled: str) -> list[str] | None:
    """The source names of ``_ZN…E`` (or of ``_Z<name>``, ``_ZSt<name>``), or None for a form not read here."""
    if not mangled.startswith("_Z"):
        return None
    index, nested = 2, mangled.startswith("_ZN")
    if nested:
        index = 3
        while index < len(mangled) and mangled[index] in "rVKRO":  # cv- and ref-qualifiers of a method
            index += 1
    parts: list[str] = []
    while index < len(mangled) and len(parts) < _MOST_PARTS:
        char = mangled[index]
        if char in _DIGITS:
            index, name = _source_name(mangled, index)
            if name is None:
                return None
            parts.append("(anonymous namespace)" if name.startswith("_GLOBAL__N") else name)
            if not nested:
                return parts
        elif char == "L" and index + 1 < len(mangled) and mangled[index + 1] in _DIGITS:
            index += 1  # a name with internal linkage: static void f() is _ZL1fv
        elif char == "S" and index + 1 < len(mangled) and mangled[index + 1] in _STD:
            parts.extend(("std", *_STD[mangled[index + 1]]))
            index += 2
        elif nested and char == "E":
            return parts or None
        elif nested and char == "B" and index + 1 < len(mangled) and mangled[index + 1] in _DIGITS:
            index, _ = _source_name(mangled, index + 1)  # an ABI tag (B5cxx11): no part of the name
        elif nested and char in "CD" and parts and mangled[index + 2 : index + 3] in ("E", "I", "B"):
            # A constructor (C1, C2) is named after its class; a destructor (D0, D1, D2) with a tilde.
            if mangled[index + 1] not in _DIGITS:
                return None
            parts.append(parts[-1] if char == "C" else "~" + parts[-1])
            index += 2
        elif nested and char == "I":
            index = _skip_bracketed(mangled, index)
        elif nested and char == "S":
            # A substitution (S_, S0_): a name seen before; which one is not worth working out here.
            found = _TOKEN.match(mangled, index)
            if found is None:
                return None
            index = found.end()
        else:
            return None
    return None


def _source_name(mangled: str, index: int) -> tuple[int, str | None]:
    """``<length><identifier>`` at ``index``: where it ends and the identifier."""
    start = index
    while index < len(mangled) and mangled[index] in _DIGITS and index - start < 6:
        index += 1
    length = int(mangled[start:index])
    if length == 0 or index + length > len(mangled):
        return index, None
    return index + length, mangled[index : index + length]


def _skip_bracketed(mangled: str, index: int) -> int:
    """Past the template arguments (``I…E``) at ``index``: identifiers skipped whole by their length."""
    depth = 0
    while index < len(mangled):
        char = mangled[index]
        token = _TOKEN.match(mangled, index) if char in "STLAD" else None
        if token is not None:
            index = token.end()
            continue
        if char in _DIGITS:
            index, _ = _source_name(mangled, index)
            continue
        if char in _OPENERS:
            depth += 1
        elif char == "E":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return index
