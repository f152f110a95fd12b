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


# How a parser names, in a trace's context, the user's input a compiler crashed on ("input main.cpp", "input
# ns::f"): a key holding it is the target's, whatever format shares its keys across targets.
INPUT = "input "


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
    # Added for signature v2 (v1 never reads them): where the program gave
    # up, as its maintainers name it (a panic or bug!() location, an ICE's
    # "in FUNCTION, at FILE", an assertion's function), what it was doing
    # (rustc's query stack), and how the text was repaired before parsing.
    site: str = ""
    context: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()
    # The site's line where the site is kept without it (rustc's ICEs: the line moves between
    # nightlies). A stock message ("index out of bounds") at a site says only the file otherwise.
    site_line: int | None = None
    # Whether the text stopped inside the trace (a paste or an excerpt cut short): what is missing was its end.
    cut: bool = False


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
    # v2 on: the frames the fuzzy stage compares (more than are hashed),
    # and the repairs extraction made to read the trace.
    similarity_frames: tuple[str, ...] = ()
    repairs: tuple[str, ...] = ()
    # The masked message the fuzzy stage matches frameless reports by ("" when
    # generic), and the crash type it compares ("" for a message pasted alone).
    fuzzy_message: str = ""
    fuzzy_crash_type: str = ""
    # The function a title names, when the trace says more than the hashed
    # frames do (a comprehension's enclosing function); None: the first key
    # frame, as before. Never hashed: titles may improve, buckets stay.
    title_frame: str | None = None

    @property
    def title(self) -> str:
        """A short human title: ``ZeroDivisionError in mean``."""
        if self.method == "differential":
            return f"{self.crash_type}: {', '.join(self.frames) or 'no disagreement'}"
        if self.title_frame is not None:
            where = self.title_frame
        else:
            where = self.frames[0].removeprefix("site ").rsplit(":", 1)[-1] if self.frames else ""
        what = self.crash_type or self.kind
        return f"{what} in {where}" if where else what
