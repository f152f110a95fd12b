"""Lua's errors and their stack tracebacks are read (signature v19): the message without Lua's location,
then the traceback's functions by their file's last two parts, C functions and Neovim's runtime skipped.

The fixtures (tests/traces/lua) are real: LazyVim#2039 and #2061, one bug reported from a checkout and
from an install whose path Neovim cut ("...u/.local/share/nvim/lazy/…"), and LazyVim/starter#117.
"""

from __future__ import annotations

import pytest

from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("lua")


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda path: path.stem)
def test_the_message_and_frames_are_read(trace):
    _, text, parsed = read_as_recorded(trace)
    assert parsed.frames and all(":" in frame.function for frame in parsed.frames)
    assert not any(frame.function.startswith(("vim/", "[C]")) for frame in parsed.frames)


def test_one_error_from_a_checkout_and_from_an_install_is_one_bucket():
    checkout, install = (
        sign(next(p for p in FIXTURES if p.stem == stem).read_text(), "LazyVim")
        for stem in ("lazyvim_ui_signs_absolute", "lazyvim_ui_signs_cut_path")
    )
    assert checkout.frames[:2] == ("util/ui.lua:<function:13>", "util/ui.lua:get_signs")
    assert checkout.digest == install.digest
