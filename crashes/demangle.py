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
    """``_ZN4llvm3DIE13getUnitOrNullEv`` -> ``llvm::DIE::getUnitOrNull``; anything else unchanged.

    Rust's v0 symbols too: ``_RNvNtCs1234_7mycrate3foo3bar`` -> ``mycrate::foo::bar``.
    """
    if symbol.startswith(("_R", "__R")):
        return _rust_v0(symbol)
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


# Rust's v0 mangling (rustc's own libraries are built with it, and ``-C symbol-mangling-version=v0``):
# a path of crate roots (C), nested names (N), impls (M, X, Y), generic arguments (I…E) and back
# references (B) to earlier offsets. Only the path's names are read, impls by their self type; the
# crate's disambiguator (a hash of its build, "Cs8Kb3sJ5M0qR_") is left out, so one function keys
# alike in every build of the compiler.
_BASIC_TYPES = {
    "a": "i8", "b": "bool", "c": "char", "d": "f64", "e": "str", "f": "f32", "h": "u8", "i": "isize", "j": "usize",
    "l": "i32", "m": "u32", "n": "i128", "o": "u128", "s": "i16", "t": "u16", "u": "()", "v": "...", "x": "i64",
    "y": "u64", "z": "!", "p": "_",
}  # fmt: skip
_BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Nesting a symbol may take before it is given up on (back references may repeat a path, never loop:
# each points before itself).
_MOST_DEPTH = 64


class _NotV0(ValueError):
    """A symbol, or a part of one, this reader does not read."""


def _rust_v0(symbol: str) -> str:
    mangled = _TAIL.sub("", symbol[1:] if symbol.startswith("__R") else symbol)[2:]
    start = 0
    while start < len(mangled) and mangled[start] in _DIGITS:
        start += 1  # the encoding's version
    try:
        _, parts = _V0Reader(mangled).path(start, 0)
    except (_NotV0, IndexError):
        return symbol
    return "::".join(part for part in parts if part) or symbol


class _V0Reader:
    """Reads the path of a v0 symbol (without "_R"): each method returns where it stopped."""

    def __init__(self, mangled: str):
        self.mangled = mangled
        # Back references re-read what they point at: two to one path at each level would double
        # the work a level. A budget of steps in the symbol's length keeps any symbol linear.
        self.steps = 4 * len(mangled) + 64

    def _step(self, depth: int) -> None:
        self.steps -= 1
        if depth > _MOST_DEPTH or self.steps < 0:
            raise _NotV0("too deep, or too much re-read")

    def path(self, index: int, depth: int) -> tuple[int, list[str]]:
        self._step(depth)
        mangled, tag = self.mangled, self.mangled[index]
        if tag == "C":
            return self.identifier(index + 1, name_only=True)
        if tag == "N":
            namespace = mangled[index + 1]
            index, parts = self.path(index + 2, depth + 1)
            index, name = self.identifier(index)
            if namespace == "C":
                name = ["{closure}"]
            elif namespace.isupper():
                name = [f"{{{name[0] or namespace.lower()}}}"] if name else []
            return index, parts + name
        if tag == "M":
            index, _ = self.path(self.disambiguator(index + 1), depth + 1)
            return self.type(index, depth + 1)
        if tag == "X":
            index, _ = self.path(self.disambiguator(index + 1), depth + 1)
            index, self_type = self.type(index, depth + 1)
            index, _trait = self.path(index, depth + 1)
            return index, self_type
        if tag == "Y":
            index, self_type = self.type(index + 1, depth + 1)
            index, _trait = self.path(index, depth + 1)
            return index, self_type
        if tag == "I":
            index, parts = self.path(index + 1, depth + 1)
            while mangled[index] != "E":
                index = self.generic_argument(index, depth + 1)
            return index + 1, parts
        if tag == "B":
            return self.backref(index, depth, self.path)
        raise _NotV0(tag)

    def backref(self, index: int, depth: int, read) -> tuple[int, list[str]]:
        end, target = self.base62(index + 1)
        if target >= index:
            raise _NotV0("a back reference forward")
        return end, read(target, depth + 1)[1]

    def base62(self, index: int) -> tuple[int, int]:
        """``<base-62 digits>_`` at ``index``: where it ends, and its value ("_" is 0, "0_" is 1)."""
        value, mangled = 0, self.mangled
        if mangled[index] == "_":
            return index + 1, 0
        while mangled[index] != "_":
            digit = _BASE62.find(mangled[index])
            if digit < 0 or value > 1 << 62:
                raise _NotV0("base 62")
            value = value * 62 + digit
            index += 1
        return index + 1, value + 1

    def disambiguator(self, index: int) -> int:
        return self.base62(index + 1)[0] if self.mangled[index] == "s" else index

    def identifier(self, index: int, name_only: bool = False) -> tuple[int, list[str]]:
        """``[s<disambiguator>][u]<length>[_]<bytes>``: a name (empty for a closure's)."""
        mangled = self.mangled
        index = self.disambiguator(index)
        if mangled[index] == "u":
            index += 1  # Punycode: kept as encoded, still one name in every build
        start = index
        while mangled[index] in _DIGITS:
            index += 1
        if index == start or index - start > 6:
            raise _NotV0("identifier")
        length = int(mangled[start:index])
        if length and mangled[index] == "_":
            index += 1
        if index + length > len(mangled):
            raise _NotV0("identifier")
        return index + length, [mangled[index : index + length]]

    def type(self, index: int, depth: int) -> tuple[int, list[str]]:
        self._step(depth)
        mangled, tag = self.mangled, self.mangled[index]
        if tag in _BASIC_TYPES:
            return index + 1, [_BASIC_TYPES[tag]]
        if tag in "CNMXYI":
            return self.path(index, depth)
        if tag == "B":
            return self.backref(index, depth, self.type)
        if tag in "RQ":  # a reference, with its lifetime or without
            index += 1
            if mangled[index] == "L":
                index = self.base62(index + 1)[0]
            index, _ = self.type(index, depth + 1)
            return index, ["&_"]
        if tag in "PO":
            index, _ = self.type(index + 1, depth + 1)
            return index, ["*_"]
        if tag == "S":
            index, _ = self.type(index + 1, depth + 1)
            return index, ["[_]"]
        if tag == "A":
            index, _ = self.type(index + 1, depth + 1)
            return self.constant(index, depth + 1), ["[_; _]"]
        if tag == "T":
            index += 1
            while mangled[index] != "E":
                index, _ = self.type(index, depth + 1)
            return index + 1, ["(_)"]
        raise _NotV0(tag)  # fn pointers and dyn types: not read here

    def generic_argument(self, index: int, depth: int) -> int:
        tag = self.mangled[index]
        if tag == "L":
            return self.base62(index + 1)[0]
        if tag == "K":
            return self.constant(index + 1, depth)
        return self.type(index, depth)[0]

    def constant(self, index: int, depth: int) -> int:
        mangled, tag = self.mangled, self.mangled[index]
        if tag == "p":
            return index + 1
        if tag == "B":
            return self.base62(index + 1)[0]
        if tag not in _BASIC_TYPES:
            raise _NotV0(tag)
        index += 1
        if mangled[index] == "n":
            index += 1
        while mangled[index] != "_":
            if mangled[index] not in "0123456789abcdef":
                raise _NotV0("constant")
            index += 1
        return index + 1
