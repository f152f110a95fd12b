"""The parsed form every trace format produces."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Frame:
    """One stack frame; ``line`` is None where the format gives none.

    ``function`` is as printed (with arguments, templates, hashes: the
    signature code normalises); ``module`` is the binary or library a native
    frame is in, where the format names it.
    """

    function: str
    file: str = ""
    line: int | None = None
    source: str = ""
    module: str = ""


@dataclass(frozen=True)
class ParsedTrace:
    """A crash as a format describes it.

    ``frames`` are innermost first (the frame that raised comes first), the
    order every format is normalised to, whatever order it prints in.
    ``causes`` are earlier exceptions of a chain, oldest first.
    ``language`` picks the normalisation rules: python, jvm, dotnet, native,
    rust or go.
    """

    format: str
    crash_type: str
    message: str = ""
    frames: tuple[Frame, ...] = ()
    causes: tuple[ParsedTrace, ...] = field(default=())
    language: str = ""
