"""Stack-trace parsers: one module per format, tried in registry order.

Each format module exposes ``recognize(text) -> bool`` and
``parse(text) -> ParsedTrace``. Parsers are pure functions over text: no ORM,
no Django, so the command-line client can share them.
"""

from __future__ import annotations

from crashes.model import Frame, ParsedTrace
from crashes.v1.traces import dotnet, faulthandler, gcc, gdb, go, jvm, libfuzzer, llvm, python, rust, sanitizer

# Ordered: the first format that recognizes a text parses it, so the most
# specific come first. A sanitizer report often sits inside libFuzzer output
# and names the real error; atheris prints a Python traceback inside
# libFuzzer output; a Python traceback beats a faulthandler dump of the same
# crash; compiler ICE formats precede the generic gdb-style frames.
REGISTRY = (sanitizer, python, libfuzzer, jvm, dotnet, rust, go, gcc, llvm, gdb, faulthandler)

__all__ = ["Frame", "ParsedTrace", "REGISTRY", "parse"]


def parse(text: str) -> ParsedTrace | None:
    """Parse ``text`` with the first format that recognizes it, or return None."""
    for module in REGISTRY:
        if module.recognize(text):
            return module.parse(text)
    return None
