"""A Rust panic told only in a panic hook's own words, with its location: read as Rust's panic.

"Neovide panicked with the message '…'. (File: src/bridge/events.rs; Line: 321, Column: 17)", a crash
reporter's "RustPanic: panicked at C:\\…\\runner.rs:246:18:". Any line saying "panic" with a Rust source
location on it or just below it reads so (crashes.traces.rust._any_hook_panic), and so would a Go panic or a
Java exception that mentions a Rust file: this reader is tried after every format that reads those, and only
where none did.
"""

from __future__ import annotations

from crashes.model import ParsedTrace
from crashes.traces import rust


def recognize(text: str) -> bool:
    """True for a line saying "panic" with a Rust location on it or just below it."""
    return rust.hook_words(text) is not None


def parse(text: str) -> ParsedTrace:
    """Rust's panic, as :func:`crashes.traces.rust.parse` reads the hook's words."""
    return rust.parse(text)
