"""The Linux kernel's oops, BUG, WARNING and KASAN reports are read (signature v19), keyed as syzbot and
kernel maintainers name them: the kind and the function it happened in, then the call trace's reliable frames.

The fixtures (tests/traces/linux_kernel) are real, from drivers' trackers, pasted from dmesg and from the
journal: a page fault at RIP, an older kernel's "IP: [<…>]", a WARNING's "at file:line f", a KASAN report.
Before v19 each was keyed by a stock header ("BUG: unable to handle page fault for address: 0x?") or by
nothing.
"""

from __future__ import annotations

import pytest

from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("linux_kernel")


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda path: path.stem)
def test_the_kind_and_the_function_are_the_key(trace):
    meta, text, _ = read_as_recorded(trace)
    assert sign(text, "driver").frames == tuple(meta["key"].split("|"))


def test_another_boot_and_build_of_one_fault_is_one_bucket():
    text = next(path for path in FIXTURES if path.stem == "page_fault_rtw_cfg80211").read_text()
    other = (
        text.replace("0000000000004c58", "0000000000002420")
        .replace("rtw_cfg80211_sync_iftype+0x5/0xd0", "rtw_cfg80211_sync_iftype+0x9/0xe0")
        .replace("Jul 23 15:00:25", "Aug 02 09:11:42")
    )
    assert other != text
    assert sign(other, "driver").digest == sign(text, "driver").digest


def test_the_unwinders_guesses_and_the_kernels_reporting_are_no_frames():
    text = (
        "[ 3369.295177] BUG: KASAN: slab-out-of-bounds in foo_rx+0x5d0/0x750 [foo]\n"
        "[ 3369.295199] Call Trace:\n[ 3369.295201]  <TASK>\n"
        "[ 3369.295203]  dump_stack_lvl+0x48/0x70\n[ 3369.295209]  print_report+0xcf/0x630\n"
        "[ 3369.295214]  ? foo_poll+0x5d0/0x750 [foo]\n[ 3369.295225]  kasan_report+0xaf/0x100\n"
        "[ 3369.295236]  foo_rx+0x5d0/0x750 [foo]\n[ 3369.295240]  foo_napi_poll+0x10/0x10 [foo]\n"
        "[ 3369.295253]  __napi_poll+0xc0/0x140\n"
    )
    signed = sign(text, "foo")
    assert signed.crash_type == "BUG: KASAN: slab-out-of-bounds"
    assert signed.frames == ("site foo_rx", "foo_napi_poll")
