"""A C compiler with a planted bug, for bench/reduce.py: it crashes on one construct.

    ice_cc.py OPERATOR program.c

The program is first checked by gcc (an invalid program gets gcc's errors
and exit status 1, as from any compiler). A valid program that uses the
compound assignment OPERATOR (``^=``, say) inside the body of a ``for`` loop
makes it report an internal compiler error, exit status 4, as gcc does.
"""

from __future__ import annotations

import re
import subprocess
import sys

CSMITH_INCLUDE = "/usr/include/csmith"
_COMMENTS_AND_STRINGS = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"' + r"|'(?:\\.|[^'\\])*'", re.S)
_LOOP = re.compile(r"\bfor\s*\(")


def _matching(text: str, start: int, opening: str, closing: str) -> int:
    """Index just past the bracket matching the one at ``start`` (len(text) if unbalanced)."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == opening:
            depth += 1
        elif text[index] == closing:
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def crashes_on(source: str, operator: str) -> bool:
    """Whether a loop body in ``source`` holds ``operator``."""
    code = _COMMENTS_AND_STRINGS.sub(" ", source)
    for loop in _LOOP.finditer(code):
        header_end = _matching(code, loop.end() - 1, "(", ")")
        rest = code[header_end:].lstrip()
        offset = len(code) - len(rest)
        # A braced body, or a single statement.
        body = code[offset : _matching(code, offset, "{", "}")] if rest.startswith("{") else rest.split(";", 1)[0]
        if operator in body:
            return True
    return False


def main() -> int:
    operator, path = sys.argv[1], sys.argv[2]
    command = ["gcc", "-fsyntax-only", "-w", f"-I{CSMITH_INCLUDE}", path]
    checked = subprocess.run(command, capture_output=True, text=True, check=False)
    if checked.returncode != 0:
        sys.stderr.write(checked.stderr)
        return 1
    with open(path, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    if crashes_on(source, operator):
        print(f"{path}: internal compiler error: in fold_binary_loc, at fold-const.cc:9871", file=sys.stderr)
        return 4
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
