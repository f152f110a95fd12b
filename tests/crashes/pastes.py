"""How a terminal pastes a trace: the forms the tests build from real reports."""

from __future__ import annotations


def hard_wrap(text: str, width: int) -> str:
    """``text`` as a terminal ``width`` columns wide cuts it: every longer line in pieces, at column 0."""
    return "\n".join(line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))
