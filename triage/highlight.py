"""Syntax highlighting with Pygments, the one sanctioned source of raw HTML.

Pygments escapes every character of its input, so its output may be marked
safe. Nothing else produced from fuzzer text ever is.
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer, PythonLexer, PythonTracebackLexer, TextLexer

_LEXERS = {
    "python": PythonLexer,
    "shell": BashLexer,
    "pytb": PythonTracebackLexer,
    "text": TextLexer,
}
_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


def highlighted(code: str, language: str) -> SafeString:
    """Return ``code`` as highlighted, fully escaped HTML."""
    lexer = _LEXERS.get(language, TextLexer)(stripnl=False, ensurenl=False)
    return mark_safe(highlight(code, lexer, _FORMATTER))  # noqa: S308 - Pygments escapes its input


def stylesheet() -> str:
    """CSS for the highlighted blocks."""
    return _FORMATTER.get_style_defs(".highlight")
