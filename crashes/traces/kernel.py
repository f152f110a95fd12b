"""The Linux kernel's oops, BUG, WARNING and KASAN reports (dmesg, journald, syzkaller's reports).

``BUG: KASAN: use-after-free in idempotent_init_module+0x5d0/0x750``
``BUG: unable to handle page fault for address: 0000000000004c58``
``RIP: 0010:rtw_cfg80211_sync_iftype+0x5/0xd0 [8852bu]``
``WARNING: CPU: 1 PID: 42 at drivers/net/x.c:123 x_open+0x12/0x34 [x]``
``Call Trace:`` then `` rtw_core_rx_process+0x93/0x160 [8852bu]`` (`` ? f+0x…`` a guess the unwinder marks)

Kernel maintainers (and syzbot) name a report by its kind and the function
it happened in: "KASAN: use-after-free in idempotent_init_module", "BUG:
unable to handle page fault in rtw_cfg80211_sync_iftype". The function is
the site (KASAN's "in f", the faulting RIP/IP/PC, WARNING's "at file:line
f"); its offset, the module's name and the address moving with every build
and run. The call trace's reliable frames follow it, past the reporting
machinery (dump_stack, __warn, kasan_report…).
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, lines_of

FORMAT = "linux-kernel"
# The report's first line: its kind (and, for KASAN and a few others, its function).
_HEAD = re.compile(
    r"(?:^|\s)(?P<kind>BUG: KASAN: [\w-]{1,60}|BUG: KFENCE: [\w-]{1,60}|BUG: KCSAN: [\w-]{1,60}|"
    r"BUG: unable to handle (?:page fault|kernel paging request|kernel NULL pointer dereference)|"
    r"BUG: kernel NULL pointer dereference|BUG: scheduling while atomic|BUG: sleeping function called from invalid "
    r"context|BUG: soft lockup|general protection fault|kernel BUG at (?P<bug_at>[^\s!]{1,300})!|"
    r"WARNING: (?:CPU: \d{1,5} PID: \d{1,9} )?at (?P<warn_at>\S{1,300}) (?P<warn_fn>[\w.]{1,200})\+0x)"
    r"(?: in (?P<kasan_fn>[\w.]{1,200})\+0x)?"
)
# Where it happened: "RIP: 0010:f+0x5/0xd0 [mod]", "IP: [<ffffffffa0a42101>] f+0x101/0x1000 [mod]", ARM's
# "PC is at f+0x…".
_RIP = re.compile(
    r"(?:^|\s)(?:RIP: (?:[0-9a-f]{4}:)?|IP: (?:\[<[0-9a-f]{1,16}>\] )?|PC is at |pc : |epc : )"
    r"(?P<function>[\w.]{1,200})\+0x[0-9a-f]{1,8}/0x[0-9a-f]{1,8}"
)
_CALL_TRACE = re.compile(r"(?:^|\s)(?:Call Trace|Backtrace|Call trace):\s*$")
# A call trace's frame: " f+0x93/0x160 [mod]", " [<ffffffff8100c0de>] f+0x1e/0x30", ARM's "[<c0…>] (f) from [<…>] (g)".
_FRAME = re.compile(
    r"^\s{0,8}(?:\[\s*\d{1,9}\.\d{1,9}\]\s*)?(?:\[<[0-9a-f]{1,16}>\]\s*)?(?P<guess>\?\s)?\(?(?P<function>[\w.]{1,200})"
    r"\+0x[0-9a-f]{1,8}/0x[0-9a-f]{1,8}"
)
# The kernel's own reporting, above the frame that failed.
_REPORTING = re.compile(
    r"^(?:dump_stack\w*|__dump_stack|show_stack|print_report|print_address_description\w*|kasan_\w+|__asan_\w+|"
    r"__kasan_\w+|check_memory_region\w*|__warn|warn_slowpath\w*|report_bug|handle_bug|exc_\w+|asm_exc_\w+|"
    r"do_trap\w*|do_error_trap|die|oops_end|page_fault_oops|no_context|__bad_area\w*|bad_area\w*|"
    r"do_user_addr_fault|do_page_fault|__do_page_fault|kfence_\w+|panic|__might_sleep|___might_sleep|"
    r"__might_resched|__schedule_bug|ubsan_\w+|__ubsan_\w+|spl_panic|spl_dumpstack)$"
)
# Frames that say how the kernel was entered, never where a driver failed.
_ENTRY = re.compile(r"^(?:do_syscall_64|entry_SYSCALL_64\w*|x64_sys_call|ret_from_fork\w*|kthread|worker_thread)$")
_FRAMES_READ = 40


def recognize(text: str) -> bool:
    if not any(marker in text for marker in ("BUG: ", "WARNING: ", "general protection fault", "kernel BUG at")):
        return False
    return _head(list(lines_of(text))) is not None


def _head(lines: list[str]) -> tuple[int, re.Match] | None:
    for index, line in enumerate(lines):
        if ("BUG" in line or "WARNING: " in line or "general protection" in line) and (
            found := _HEAD.search(line[:MAX_LINE])
        ):
            return index, found
    return None


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at, head = _head(lines)
    kind = head["kind"]
    site = head["kasan_fn"] or head["warn_fn"] or ""
    if kind.startswith("WARNING"):
        kind = "WARNING"
    elif kind.startswith("kernel BUG at"):
        kind = "kernel BUG"
    for line in lines[at : at + _FRAMES_READ]:
        if site:
            break
        rip = _RIP.search(line[:MAX_LINE]) if ("IP: " in line or "PC is at" in line or "pc : " in line) else None
        if rip:
            site = rip["function"]
    frames: list[Frame] = []
    trace = next((i for i in range(at, len(lines)) if "all" in lines[i] and _CALL_TRACE.search(lines[i])), None)
    if trace is not None:
        for line in lines[trace + 1 : trace + 1 + _FRAMES_READ]:
            found = _FRAME.match(line[:MAX_LINE])
            if found is None:
                if line.strip().strip("<>").isalpha():
                    continue  # "<TASK>", "<IRQ>"
                if frames:
                    break
                continue
            function = found["function"]
            if found["guess"] or _REPORTING.match(function) or _ENTRY.match(function):
                continue
            if function != site and not (frames and frames[-1].function == function):
                frames.append(Frame(function=function))
    return ParsedTrace(format=FORMAT, crash_type=kind, frames=tuple(frames), language="native", site=site)
