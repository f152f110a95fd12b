"""Syntax highlighting with Pygments, the one sanctioned source of raw HTML.

Pygments escapes every character of its input, so its output may be marked
safe. Nothing else produced from fuzzer text ever is.
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

# Trace formats -> the Pygments lexer that reads them best.
TRACE_LEXERS = {"python": "pytb", "python-faulthandler": "pytb", "jvm": "java", "dotnet": "csharp"}
_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


def highlighted(code: str, language: str) -> SafeString:
    """Return ``code`` as highlighted, fully escaped HTML.

    ``language`` is a Pygments name or alias (python, c, kotlin, ...); an
    unknown one falls back to plain text, still escaped.
    """
    try:
        lexer = get_lexer_by_name(language or "text", stripnl=False, ensurenl=False)
    except ClassNotFound:
        lexer = TextLexer(stripnl=False, ensurenl=False)
    return mark_safe(highlight(code, lexer, _FORMATTER))  # noqa: S308 - Pygments escapes its input


def trace_language(trace_format: str) -> str:
    """The lexer for a trace of ``trace_format``; plain text for the rest."""
    return TRACE_LEXERS.get(trace_format, "text")


def stylesheet() -> str:
    """CSS for the highlighted blocks."""
    return _FORMATTER.get_style_defs(".highlight")
