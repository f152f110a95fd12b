"""Stack-trace parsers: one module per format, tried in registry order.

Each format module exposes ``recognize(text) -> bool`` and
``parse(text) -> ParsedTrace``. Parsers are pure functions over text: no ORM,
no Django, so the command-line client can share them.
"""

from __future__ import annotations

from triage.traces import faulthandler, python
from triage.traces.model import Frame, ParsedTrace

# Ordered: the first format that recognizes a text parses it. Python
# tracebacks come before faulthandler dumps because a text can hold both
# (a traceback printed, then a crash); the traceback is the richer one.
REGISTRY = (python, faulthandler)

__all__ = ["Frame", "ParsedTrace", "REGISTRY", "parse"]


def parse(text: str) -> ParsedTrace | None:
    """Parse ``text`` with the first format that recognizes it, or return None."""
    for module in REGISTRY:
        if module.recognize(text):
            return module.parse(text)
    return None
