"""Any mix of what the parsers look for is signed at once: no input makes a parser loop or crawl.

The pieces are the markers each parser and repair keys on, and the shapes the joiners of
cut lines start from (an unclosed call, a cut ``at`` line, a frame line without its line
number, a panic hook's print without its Location). bench/parse_worst.py measures the
slowest such text at 256 KiB; this checks, on many small ones, that each ends.
"""

from __future__ import annotations

import signal

from hypothesis import given, settings
from hypothesis import strategies as st

from crashes import signatures

PIECES = (
    "thread 'main' panicked at src/a.rs:1:1:\n",
    "stack backtrace:\n",
    "  1: core::panicking::panic\n",
    "      at /rustc/x/library/core/src/opti",
    "on.rs:12\n",
    "PanicHookInfo { payload: Any { .. }, ",
    'location: Location { file: "src/a.rs", line: 3, col: 5 }, can_unwind: true }\n',
    "goroutine 1 [running]:\n",
    "main.f(0x1, ",
    "0x2)\n",
    "\t/a/b.go:3 +0x1d\n",
    "x.go:1:2: internal compiler error: ",
    "Traceback (most recent call last):\n",
    '  File "/a/b.py", line 3',
    ", in f\n",
    'File "',
    "    return f(x)\n",
    "ValueError: boom\n",
    "clang: a.cpp:1: void f(): Assertion `x",
    "' failed.\n",
    "Assertion failed: (x), function f, file a.c, line 1.\n",
    "#0  0x1 in f (a=",
    "1) at a.c:1\n",
    "==1==ERROR: AddressSanitizer: SEGV\n",
    "    #0 0x4f3c2a in f /src/a.c:12:5\n",
    "(",
    ")",
    "&",
    "> ",
    "- ",
    "```\n",
    " " * 3,
    "\t",
    "x" * 80,
    "\n",
    "",
)


def _too_long(signum, frame):
    raise TimeoutError("signing took over 5 seconds")


def _sign_within_5_seconds(text: str):
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(5)
    try:
        return signatures.compute(kind="crash", trace_text=text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_any_mix_of_parser_pieces_is_signed_at_once(parts):
    assert len(_sign_within_5_seconds("".join(parts)).digest) == 64


def test_a_function_name_of_many_ampersands_is_signed_at_once():
    # A C++ method's "&&" qualifier was matched as "&&?" inside a repeated group: a run of n "&" split
    # every way, about 1.6^n tries (30 took a second, 60 would take years).
    frame = "    #0 0x4c1 in foo" + "&" * 60 + "x /src/a.cc:3:5\n"
    signed = _sign_within_5_seconds("==1==ERROR: AddressSanitizer: SEGV\n" + frame)
    assert signed.method == "stack"
    # The qualifiers are still taken off a method's name.
    assert (
        _sign_within_5_seconds(
            "==1==ERROR: AddressSanitizer: SEGV\n    #0 0x4c1 in Foo::bar() const && /src/a.cc:3:5\n"
        ).frames[0]
        == "Foo::bar"
    )
