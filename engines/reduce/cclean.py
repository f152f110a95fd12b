"""What C-Vise leaves of a Csmith program, made into C a maintainer would paste.

C-Vise stops at a fixpoint of its own passes, which keep Csmith's
scaffolding: the overflow-checking wrappers (``safe_add_func_int32_t_s_s(a,
b)``) from Csmith's headers, the CRC machinery that turns every global into
one checksum (``transparent_crc``, ``crc32_gentab``, ``platform_main_end``),
and declarations nothing reads any more. A report wants ``(int32_t)(a +
b)`` and a ``printf`` of the value that differs.

Each rewrite is a candidate the caller's interestingness test decides on (a
test that, for a miscompilation, also refuses undefined behaviour, so a
wrapper whose check the bug needed stays): every site of a kind at once
first, then one site at a time. Pure text and pure of Django.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator

_SAFE = re.compile(
    r"\bsafe_(add|sub|mul|div|mod|lshift|rshift|unary_minus)_func_(u?int(?:8|16|32|64)_t)_[su](?:_[su])?\s*\("
)
_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%", "lshift": "<<", "rshift": ">>"}
_CRC = re.compile(r"\btransparent_crc\s*\(")
# Csmith's run-time set-up and checksum output: statements a program without the CRC does not need.
_SCAFFOLD = re.compile(
    r"^[ \t]*(?:platform_main_begin|crc32_gentab|platform_main_end)[ \t]*\([^;\n]*\)[ \t]*;[ \t]*\n", re.M
)
_CSMITH_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]csmith\.h[>"][ \t]*\n', re.M)
_PLAIN_INCLUDES = "#include <stdint.h>\n#include <stdio.h>\n"
# A declaration of one variable on its own line: "static int32_t g_5 = 0L;", "int print_hash_value = 0;".
_DECLARATION = re.compile(
    r"^[ \t]*(?:(?:static|const|volatile|unsigned|signed|struct \w+|u?int(?:8|16|32|64)_t|int|long|short|char)"
    r"[ \t*]+)+(\w+)(?:[ \t]*\[[^\]\n]*\])*[ \t]*(?:=[^;\n]*)?;[ \t]*\n",
    re.M,
)
MAX_TESTS = 200
# Larger programs are left as C-Vise left them: the rewrites are for what a maintainer pastes.
MAX_SIZE = 100_000
# Nested wrappers deeper than this are left alone (the rewrite recurses once per level).
MAX_DEPTH = 200


def _arguments(text: str, start: int) -> tuple[int, list[str]] | None:
    """The top-level arguments of the call whose "(" ends just before ``start``, and the index after its ")"."""
    depth, current, arguments, index = 0, start, [], start
    while index < len(text):
        char = text[index]
        if char in "\"'":
            closing = index + 1
            while closing < len(text) and text[closing] != char:
                closing += 2 if text[closing] == "\\" else 1
            index = closing
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                arguments.append(text[current:index])
                return index + 1, [argument.strip() for argument in arguments]
            depth -= 1
        elif char == "," and depth == 0:
            arguments.append(text[current:index])
            current = index + 1
        index += 1
    return None


def _enclosed(expression: str) -> bool:
    """Is the whole expression one parenthesised group, or a cast of one ("(int16_t)(a * b)")?"""
    if not expression.startswith("("):
        return False
    parsed = _arguments(expression, 1)
    if parsed is None:
        return False
    end, _ = parsed
    rest = expression[end:]
    return not rest or (bool(re.fullmatch(r"\(\s*u?int(?:8|16|32|64)_t\s*\)", expression[:end])) and _enclosed(rest))


def _grouped(expression: str) -> str:
    simple = re.fullmatch(r"\w+(?:\[[^\[\]]*\]|->\w+|\.\w+)*", expression)  # g_1, b[1], p->f0, s.f1
    call = re.match(r"\w+\s*(?=\()", expression)
    if simple or _enclosed(expression) or (call and _enclosed(expression[call.end() :])):
        return expression
    return f"({expression})"


def _plain(kind: str, c_type: str, arguments: list[str]) -> str | None:
    if kind == "unary_minus" and len(arguments) == 1:
        return f"({c_type})(-{_grouped(arguments[0])})"
    if kind in _OPERATORS and len(arguments) == 2:
        left, right = (_grouped(argument) for argument in arguments)
        return f"({c_type})({left} {_OPERATORS[kind]} {right})"
    return None


def unwrap_safe_math(text: str, sites: set[int] | None = None) -> tuple[str, int]:
    """``text`` with Csmith's safe-math calls (all, or the numbered ``sites``) as plain operations; how many sites."""
    counter = [0]
    return _unwrap(text, sites, counter), counter[0]


def _unwrap(text: str, sites: set[int] | None, counter: list[int], depth: int = 0) -> str:
    if depth > MAX_DEPTH:
        return text
    out, index = [], 0
    while (match := _SAFE.search(text, index)) is not None:
        parsed = _arguments(text, match.end())
        if parsed is None:
            break
        end, arguments = parsed
        number = counter[0]
        counter[0] += 1
        inner = [_unwrap(argument, sites, counter, depth + 1) for argument in arguments]
        replacement = _plain(match.group(1), match.group(2), inner) if sites is None or number in sites else None
        out.append(text[index : match.start()])
        out.append(replacement or f"{text[match.start() : match.end()]}{', '.join(inner)})")
        index = end
    out.append(text[index:])
    return "".join(out)


def print_values(text: str, sites: set[int] | None = None) -> tuple[str, int]:
    """``transparent_crc(value, "name", flag)`` calls (all, or ``sites``) as a printf of the value; how many."""
    out, index, number = [], 0, 0
    while (match := _CRC.search(text, index)) is not None:
        parsed = _arguments(text, match.end())
        if parsed is None:
            break
        end, arguments = parsed
        out.append(text[index : match.start()])
        if (sites is None or number in sites) and arguments:
            out.append(f'printf("%llu\\n", (unsigned long long)({arguments[0]}))')
        else:
            out.append(text[match.start() : end])
        number += 1
        index = end
    out.append(text[index:])
    return "".join(out), number


def _without_scaffold(text: str) -> str:
    text = _SCAFFOLD.sub("", text)
    return _CSMITH_INCLUDE.sub(_PLAIN_INCLUDES, text, count=1) if not _uses_csmith_header(text) else text


def _uses_csmith_header(text: str) -> bool:
    body = _CSMITH_INCLUDE.sub("", text)
    return bool(_SAFE.search(body) or _CRC.search(body) or re.search(r"\bcrc32_\w+|\bplatform_main_\w+", body))


def _unused_declarations(text: str) -> Iterator[str]:
    """Candidates without one declaration whose name is read nowhere else."""
    for match in _DECLARATION.finditer(text):
        name = match.group(1)
        if len(re.findall(rf"\b{re.escape(name)}\b", text)) == 1:
            yield text[: match.start()] + text[match.end() :]


def clean(
    text: str,
    interesting: Callable[[str], bool],
    seconds: float | None = None,
    max_tests: int = MAX_TESTS,
) -> tuple[str, int]:
    """The cleaned program (still ``interesting``) and how many tests it took."""
    if len(text) > MAX_SIZE or not (_CSMITH_INCLUDE.search(text) or _uses_csmith_header(text)):
        return text, 0  # C-Vise's own passes already took unused code out of programs Csmith did not write
    deadline = None if seconds is None else time.monotonic() + seconds
    tests = [0]

    def spent() -> bool:
        return tests[0] >= max_tests or (deadline is not None and time.monotonic() > deadline)

    def accept(candidate: str) -> bool:
        if candidate == text or spent():
            return False
        tests[0] += 1
        return interesting(candidate)

    for rewrite in (unwrap_safe_math, print_values):
        candidate, sites = rewrite(text)
        if not sites:
            continue
        if accept(candidate):
            text = candidate
            continue
        # One site at a time, from the last, so the numbering of those before stays put.
        for site in reversed(range(sites)):
            if spent():
                break
            candidate, _ = rewrite(text, {site})
            if accept(candidate):
                text = candidate
    candidate = _without_scaffold(text)
    if accept(candidate):
        text = candidate
    progress = True
    while progress and not spent():
        progress = False
        for candidate in _unused_declarations(text):
            if accept(candidate):
                text, progress = candidate, True
                break
    return text, tests[0]
