"""Syntax highlighting with Pygments, the one sanctioned source of raw HTML.

Pygments escapes every character of its input, so its output may be marked
safe. Nothing else produced from fuzzer text ever is.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight, lex
from pygments.formatters import HtmlFormatter
from pygments.lexer import bygroups, inherit
from pygments.lexers import PythonTracebackLexer, TextLexer, get_lexer_by_name
from pygments.token import STANDARD_TYPES, Name, Number, Text, Whitespace
from pygments.util import ClassNotFound

from crashes.origins import TARGET, origin_of

# Trace formats -> the Pygments lexer that reads them best.
TRACE_LEXERS = {"python": "pytb", "python-faulthandler": "pytb", "jvm": "java", "dotnet": "csharp"}
_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


class _TracebackLexer(PythonTracebackLexer):
    """Pygments' traceback lexer, without its endless loop on frame lines it does not know.

    Its top level enters a traceback at any line starting ``  File "f", line
    3`` without reading it (a lookahead); inside, a line that is neither
    ``, line 3, in f`` nor ``, line 3`` then leaves again without reading it,
    and the two repeat forever. Faulthandler's ``line 3 in f`` (every segfault
    and hang of the function engine) is such a line, and so is anything a
    fuzzer sends. This rule reads every such line.
    """

    tokens = {
        "intb": [
            (
                r'^(  File )("[^"]+")(, line )(\d+)(?!\d|, in .+\n|\n)(.*)(\n|\Z)',
                bygroups(Text, Name.Builtin, Text, Number, Name, Whitespace),
            ),
            inherit,
        ]
    }


def _lexer(language: str):
    if language == "pytb":
        return _TracebackLexer(stripnl=False, ensurenl=False)
    try:
        return get_lexer_by_name(language or "text", stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def highlighted(code: str, language: str) -> SafeString:
    """Return ``code`` as highlighted, fully escaped HTML.

    ``language`` is a Pygments name or alias (python, c, kotlin, ...); an
    unknown one falls back to plain text, still escaped.
    """
    return mark_safe(highlight(code, _lexer(language), _FORMATTER))  # noqa: S308 - Pygments escapes its input


def _css_class(token_type) -> str:
    # The short class HtmlFormatter would use; a subtype without one of its
    # own takes its parent's.
    while token_type not in STANDARD_TYPES:
        token_type = token_type.parent
    return STANDARD_TYPES[token_type]


def highlighted_lines(code: str, language: str) -> list[SafeString]:
    """``code`` highlighted line by line, for pages that mark or link single lines.

    A token spanning lines (a docstring) is split at each newline, so every
    line is balanced HTML on its own. Each piece is escaped here.
    """
    lines: list[list[str]] = [[]]
    for token_type, value in lex(code, _lexer(language)):
        css = _css_class(token_type)
        for index, piece in enumerate(value.split("\n")):
            if index:
                lines.append([])
            if piece:
                lines[-1].append(f'<span class="{css}">{escape(piece)}</span>' if css else escape(piece))
    if code.endswith("\n"):
        lines.pop()
    return [mark_safe("".join(parts)) for parts in lines]  # noqa: S308 - every piece escaped above


def trace_language(trace_format: str) -> str:
    """The lexer for a trace of ``trace_format``; plain text for the rest."""
    return TRACE_LEXERS.get(trace_format, "text")


# A Python frame's header line, as tracebacks ("line 3, in f") and faulthandler ("line 3 in f") print it.
_PYTHON_FRAME = re.compile(r'^(?P<indent>[ \t]*)File "(?P<file>[^"\n]*)", line ')
_REPEATED = re.compile(r"^[ \t]*\[Previous line repeated \d+ more times?\]")


def _frame_origins(lines: list[str]) -> list[str]:
    """Each line's frame origin (crashes.origins), or TARGET for lines outside frames.

    A frame is its ``File ...`` line, the lines indented deeper below it (its
    source line and carets) and a ``[Previous line repeated]`` note after it.
    """
    origins = []
    current, indent = TARGET, None
    for line in lines:
        header = _PYTHON_FRAME.match(line)
        if header:
            current, indent = origin_of(header["file"]), len(header["indent"])
        elif indent is None or not (_REPEATED.match(line) or len(line) - len(line.lstrip(" \t")) > indent):
            current, indent = TARGET, None
        origins.append(current)
    return origins


def highlighted_trace(trace: str, trace_format: str) -> tuple[SafeString, bool]:
    """A trace as escaped, highlighted HTML, and whether any of its frames are dimmed.

    In a Python trace the frames of the fuzzing harness and of the standard
    library get the classes ``frame-harness`` and ``frame-stdlib`` (the
    stylesheet dims them), so the target's own frames stand out. Every piece
    of text is escaped by :func:`highlighted_lines`; only our own spans are
    added around whole lines.
    """
    language = trace_language(trace_format)
    if language != "pytb":
        return highlighted(trace, language), False
    # The lexer reads line ends this way; the frames must be found on the same lines.
    trace = trace.replace("\r\n", "\n").replace("\r", "\n")
    lines = highlighted_lines(trace, language)
    origins = _frame_origins(trace.split("\n"))
    origins += [TARGET] * (len(lines) - len(origins))
    dimmed = False
    out = []
    for html, origin in zip(lines, origins, strict=False):
        if origin == TARGET:
            out.append(html)
        else:
            dimmed = True
            out.append(f'<span class="frame-{origin}" title="{origin} frame">{html}</span>')
    body = "\n".join(out) + ("\n" if trace.endswith("\n") else "")
    # The same markup as the highlighter's blocks (wrapcode), so one stylesheet serves both.
    return mark_safe(f'<div class="highlight"><pre><code>{body}</code></pre></div>'), dimmed  # noqa: S308


def stylesheet() -> str:
    """CSS for the highlighted blocks."""
    return _FORMATTER.get_style_defs(".highlight")
