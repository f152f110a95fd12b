"""The operations a (reduced) C program performs: the shape of a C difference where no pipeline names a cause.

A C wrong-code bug usually has a culprit flag or pass (engines.differential.culprit).
Where it has none, the shape of the reduced program is what tells two bugs
apart, as for Python (engines.differential.shape). That happens when the compiler
is neither gcc nor clang (tcc, a user's own compiler), when the program is
still wrong with every ``-f`` flag of its level off or every LLVM pass
skipped (a bug in the level itself, the front end or code generation), or
when the clang prints no opt-bisect lines.

Read off tokens, not a parse: a reduced program is often not valid C any
more than C-Vise needs it to be (implicit ``int``, missing declarations), and a
lexer reads whatever text it is given in one linear pass. Operators are
told apart by the token before them (``a - b`` subtracts, ``= -b`` negates;
``*p`` dereferences, ``a * b`` multiplies). Kept:

- operators, assignment operators (``+=``), increments, the conditional
  operator, member access and subscripts;
- the statements that carry control (loops, branches, ``switch``, ``goto``);
- telling types: ``unsigned``, floating point, ``_Bool``, ``struct`` and
  ``union``, bit-fields;
- calls of library functions and builtins the program does not define,
  and whether it defines functions besides ``main`` (inlining, calls);
- floating-point literals.

Left out as plumbing, as a reduced difference always keeps it: the
function that shows the value (``printf``, ``abort``, ``exit``), ``return``,
plain integer types and qualifiers (``volatile`` is how a generator keeps
values from being folded, kept by one reduction and not another), names,
integer literals and declarations. Pure of Django.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<directive>^[ \t]*\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)
  | (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eEpP][+-]?\d+)?[a-zA-Z]*|0[xX][0-9a-fA-F.]+(?:[pP][+-]?\d+)?[a-zA-Z]*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<punct><<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^<>=!~?:;,.(){}\[\]])
  | (?P<other>.)
    """,
    re.S | re.M | re.X,
)

# An if's other branch is not listed: the if is the construct.
_CONTROL = frozenset({"for", "while", "do", "if", "switch", "goto", "break", "continue"})
_TELLING_TYPES = frozenset({"unsigned", "float", "double", "_Bool", "struct", "union", "_Complex"})
# How a reduced difference shows its value, or stops: never what went wrong.
_PLUMBING_CALLS = frozenset(
    {"printf", "fprintf", "puts", "putchar", "abort", "__builtin_abort", "exit", "_exit", "main"}
)
_KEYWORDS = _CONTROL | _TELLING_TYPES | frozenset(
    {
        "else", "int", "char", "short", "long", "signed", "void", "const", "volatile", "static", "extern", "register",
        "inline", "return", "case", "default", "typedef", "enum", "auto", "restrict", "sizeof",
    }
)  # fmt: skip
_BINARY = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!=", "&&", "||"})
_UNARY = {"-": "neg", "+": "pos", "*": "deref", "&": "addr", "~": "~", "!": "!"}
# Assignment operators, increments, the conditional and member access through a pointer.
_KEPT_AS_WRITTEN = frozenset({"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "++", "--", "->", "?"})
# After one of these a '-', '*' or '&' is binary: the token ends an operand.
_OPERAND_END = frozenset({")", "]"})
# Longer than this, a text is not a reduced program: read no further (the caller has no shape for it).
MAX_CHARS = 200_000


def tokens(program: str) -> list[tuple[str, str]]:
    """(kind, text) of each significant token: names, numbers, strings and punctuators."""
    found = []
    for match in _TOKEN.finditer(program[:MAX_CHARS]):
        kind = match.lastgroup
        if kind in ("space", "comment", "directive"):
            continue
        found.append((kind, match.group()))
    return found


def c_features(program: str) -> frozenset[str] | None:
    """The operations ``program`` performs, or None when it is no program (no body) or too long to be reduced."""
    if len(program) > MAX_CHARS:
        return None
    lexed = tokens(program)
    if not any(text == "{" for _, text in lexed):
        return None  # no function body: not a program
    defined = _defined_functions(lexed)
    features: set[str] = set()
    previous: tuple[str, str] = ("", "")
    conditionals = 0  # '?' not yet closed by their ':'
    for index, (kind, text) in enumerate(lexed):
        following = lexed[index + 1][1] if index + 1 < len(lexed) else ""
        operand_before = previous[0] in ("name", "number", "string") and previous[1] not in _KEYWORDS
        operand_before = operand_before or previous[1] in _OPERAND_END
        if kind == "name":
            if text in _CONTROL:
                features.add(text)
            elif text in _TELLING_TYPES:
                features.add(f"type:{text}")
            elif following == "(" and text not in _KEYWORDS and text not in defined and text not in _PLUMBING_CALLS:
                features.add(f"call:{text}")
        elif kind == "number" and _is_float(text):
            features.add("literal:float")
        elif kind == "punct":
            if text in _KEPT_AS_WRITTEN:
                features.add(text)
                conditionals += text == "?"
            elif text == "." and previous[0] == "name":
                features.add("member")
            elif text == "[" and operand_before:
                features.add("subscript")
            elif text == ":" and conditionals:
                conditionals -= 1
            elif text == ":" and _bit_field(lexed, index):
                features.add("bit-field")
            elif text in _BINARY and operand_before:
                features.add(text)
            elif text in _UNARY and not operand_before:
                features.add(_UNARY[text])
        previous = (kind, text)
    if defined - {"main"}:
        features.add("function")
    return frozenset(features)


def _defined_functions(lexed: list[tuple[str, str]]) -> set[str]:
    """Names followed by a parameter list and a body at file level: ``name ( … ) {``."""
    closing, stack = {}, []
    for index, (_, text) in enumerate(lexed):
        if text == "(":
            stack.append(index)
        elif text == ")" and stack:
            closing[stack.pop()] = index
    defined, depth = set(), 0
    for index, (kind, text) in enumerate(lexed):
        if text == "{":
            depth += 1
        elif text == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and kind == "name" and lexed[index + 1 : index + 2] == [("punct", "(")]:
            after = closing.get(index + 1, len(lexed)) + 1
            if after < len(lexed) and lexed[after][1] == "{":
                defined.add(text)
    return defined


def _is_float(number: str) -> bool:
    if number[:2].lower() == "0x":
        return "." in number or "p" in number.lower()
    return "." in number or "e" in number.lower().rstrip("fl")


def _bit_field(lexed: list[tuple[str, str]], index: int) -> bool:
    """A ``:`` between a member's name and a width (the caller has ruled out a conditional's)."""
    before = lexed[index - 1] if index else ("", "")
    after = lexed[index + 1] if index + 1 < len(lexed) else ("", "")
    earlier = lexed[index - 2][1] if index > 1 else ""
    return before[0] == "name" and after[0] == "number" and earlier not in (";", "{", "}", "case", "goto")
