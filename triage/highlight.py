"""Syntax highlighting with Pygments, the one sanctioned source of raw HTML.

Pygments escapes every character of its input, so its output may be marked
safe. Nothing else produced from fuzzer text ever is.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from pygments import highlight, lex
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.token import STANDARD_TYPES
from pygments.util import ClassNotFound

# Trace formats -> the Pygments lexer that reads them best.
TRACE_LEXERS = {"python": "pytb", "python-faulthandler": "pytb", "jvm": "java", "dotnet": "csharp"}
_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


def _lexer(language: str):
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


def stylesheet() -> str:
    """CSS for the highlighted blocks."""
    return _FORMATTER.get_style_defs(".highlight")
