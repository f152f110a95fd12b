"""What a signature algorithm returns."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    """A bucket key (``digest``) and the normalised data it was hashed from.

    ``method`` says how it was made: from a stack, from the message of an
    unparsed trace, from an exact key (timeouts, out-of-memory) or from
    backend outcomes (miscompilations).
    """

    version: int
    digest: str
    kind: str
    crash_type: str
    frames: tuple[str, ...]
    message: str = ""
    method: str = "stack"
    trace_format: str = ""

    @property
    def title(self) -> str:
        """A short human title: ``ZeroDivisionError in mean``."""
        if self.method == "differential":
            return f"{self.crash_type}: {', '.join(self.frames) or 'no disagreement'}"
        where = self.frames[0].rsplit(":", 1)[-1] if self.frames else ""
        what = self.crash_type or self.kind
        return f"{what} in {where}" if where else what
