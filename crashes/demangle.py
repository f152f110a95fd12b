"""The qualified name inside an Itanium-mangled symbol, as far as a crash's frame needs it.

One reporter's tools demangle (``llvm::FPPassManager::runOnFunction``),
another's print the symbol as linked (``_ZN4llvm13FPPassManager13runOnFunctionERNS_8FunctionE``:
``backtrace_symbols``, gdb without demangling, a crash handler of its own, Rust
before its v0 mangling): one frame, which must key alike and meet the same
ignore rules. Only the name is read (namespaces, classes, the function, a
constructor or destructor), never the parameter types or template arguments,
which frame keys drop anyway. A symbol this does not understand is returned
as it was. Linear in the symbol: every step moves forward.
"""

from __future__ import annotations

import re

# Rust's legacy mangling escapes its punctuation: $LT$ for <, $u7b$ for {.
_RUST_ESCAPES = {
    "$LT$": "<",
    "$GT$": ">",
    "$C$": ",",
    "$RF$": "&",
    "$BP$": "*",
    "$SP$": "@",
    "$u20$": " ",
    "$u27$": "'",
    "$u5b$": "[",
    "$u5d$": "]",
    "$u7b$": "{",
    "$u7d$": "}",
    "$u7e$": "~",
    "$LP$": "(",
    "$RP$": ")",
}
# (A name that starts with an escape gets a "_" before it: "_$u7b$$u7b$closure$u7d$$u7d$".)
_RUST_ESCAPE = re.compile(r"(?:(?<=::)_)?\$(?:LT|GT|C|RF|BP|SP|LP|RP|u20|u27|u5b|u5d|u7b|u7d|u7e)\$")
# What follows a symbol in a backtrace line: "+0x1a", ThinLTO's ".llvm.123", GCC's ".cold".
_TAIL = re.compile(r"(?:\+0x[0-9a-fA-F]+|\.llvm\.\d+|\.(?:cold|isra|constprop|part)(?:\.\d+)*)+$")
# Template arguments and other bracketed parts a name may hold, and what closes them.
_OPENERS = frozenset("INXL")
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
    return _RUST_ESCAPE.sub(lambda found: _RUST_ESCAPES[found[0].lstrip("_")], name).replace("..", "::")


def _name_parts(mangled: str) -> list[str] | None:
    """The source names of ``_ZN…E`` (or the one of ``_Z<name>``), or None for a form not read here."""
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
        if char.isdigit():
            index, name = _source_name(mangled, index)
            if name is None:
                return None
            parts.append("(anonymous namespace)" if name.startswith("_GLOBAL__N") else name)
            if not nested:
                return parts
        elif nested and char == "E":
            return parts or None
        elif nested and char in "CD" and index + 1 < len(mangled) and mangled[index + 1].isdigit() and parts:
            # A constructor (C1, C2) is named after its class; a destructor (D0, D1, D2) with a tilde.
            parts.append(parts[-1] if char == "C" else "~" + parts[-1])
            index += 2
        elif nested and char == "I":
            index = _skip_bracketed(mangled, index)
        elif nested and mangled.startswith("St", index):
            parts.append("std")
            index += 2
        elif nested and char == "S":
            # A substitution (S_, S0_): a name seen before; which one is not worth working out here.
            end = mangled.find("_", index)
            if end == -1:
                return None
            index = end + 1
        else:
            return None
    return None


def _source_name(mangled: str, index: int) -> tuple[int, str | None]:
    """``<length><identifier>`` at ``index``: where it ends and the identifier."""
    start = index
    while index < len(mangled) and mangled[index].isdigit() and index - start < 6:
        index += 1
    length = int(mangled[start:index])
    if length == 0 or index + length > len(mangled):
        return index, None
    return index + length, mangled[index : index + length]


def _skip_bracketed(mangled: str, index: int) -> int:
    """Past the template arguments (``I…E``) at ``index``: identifiers are skipped whole by their length."""
    depth = 0
    while index < len(mangled):
        char = mangled[index]
        if char.isdigit():
            start = index
            while index < len(mangled) and mangled[index].isdigit() and index - start < 6:
                index += 1
            index += int(mangled[start:index])
            continue
        if char in _OPENERS:
            depth += 1
        elif char == "E":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return index
