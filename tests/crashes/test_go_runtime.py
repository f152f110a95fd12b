"""Go's runtime tracebacks of fatal errors, on reports from golang/go's tracker (tests/data/dedup names each source).

A fatal error (a throw, a signal outside Go code) prints more than a panic
does: each frame's registers after its source line (``+0x79 fp=0x… sp=0x…
pc=0x…``), the system stack under ``runtime stack:``, and since Go 1.23
each goroutine's g and m in its header. Before signature v11 no parser read
these: the reports fell to the unparsed path, whose first line was an
address or a frame, and each was a bucket of its own.
"""

from __future__ import annotations

from crashes import signatures, traces
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def _parse(record_id: str):
    return traces.parse(RECORDS[record_id]["trace"])


def test_a_fatal_errors_frames_with_their_registers_are_read():
    # golang/go#37925: gopls's fatal error, its message cut off; the first goroutine is in runtime.throw.
    text = RECORDS["golang/go#37925"]["trace"]
    assert "diagnostics.go:70 +0xc1d fp=0xc0014e5d20 sp=0xc0014e5988 pc=0x793d8d" in text
    parsed = traces.parse(text)
    assert parsed.format == "go"
    assert [frame.function.split("(")[0] for frame in parsed.frames[:3]] == [
        "runtime.throw",
        "runtime.mapiternext",
        "golang.org/x/tools/internal/lsp/source.Diagnostics",
    ]
    assert parsed.frames[2].line == 70
    # The runtime's own frames say where it threw, not which of gopls's calls went wrong.
    signature = signatures.compute(kind="crash", trace_text=text, target="t")
    assert signature.frames[0] == "golang.org/x/tools/internal/lsp/source.Diagnostics"


def test_the_system_stack_of_a_fatal_error_is_the_crashs():
    # golang/go#56552: the garbage collector found a bad pointer; only the system stack was pasted.
    parsed = _parse("golang/go#56552")
    assert parsed.format == "go"
    assert parsed.message.startswith("found bad pointer in Go heap")
    assert [frame.function.split("(")[0] for frame in parsed.frames[:3]] == [
        "runtime.throw",
        "runtime.badPointer",
        "runtime.findObject",
    ]


def test_a_signal_outside_go_code_names_the_crash_and_the_new_goroutine_header_is_read():
    # golang/go#75478: "SIGSEGV: segmentation violation", "PC=… m=9 sigcode=128", then Go 1.23's
    # "goroutine 0 gp=0x… m=9 mp=0x… [idle]:".
    text = RECORDS["golang/go#75478/c1"]["trace"]
    assert "goroutine 0 gp=0xc0005288c0 m=9 mp=0xc0002f7008 [idle]:" in text
    parsed = traces.parse(text)
    assert (parsed.format, parsed.message) == ("go", "SIGSEGV: segmentation violation")
    assert parsed.frames[0].function == "runtime.fpTracebackPCs(...)"
    assert parsed.frames[1].file == "runtime/tracestack.go"
    # Every such crash says "SIGSEGV: segmentation violation"; with only the runtime's frames left
    # there is nothing to key on, and the report is a bucket of its own.
    signature = signatures.compute(kind="crash", trace_text=text, target="t")
    assert "no identifying line: a bucket of its own" in signature.repairs


def test_each_signal_the_runtime_names_is_read_and_a_log_line_is_not():
    dump = "\nPC=0x4a1 m=0 sigcode=1\n\ngoroutine 1 [running]:\nmain.div(...)\n\t/src/main.go:12 +0x1d\n"
    parsed = traces.parse("SIGFPE: floating-point exception" + dump)
    assert (parsed.format, parsed.message) == ("go", "SIGFPE: floating-point exception")
    logged = traces.parse("SIGNAL: received shutdown request" + dump)
    assert logged is None or logged.message != "SIGNAL: received shutdown request"


def test_a_sigquit_dump_is_no_crash():
    # Every goroutine's stack, asked for with SIGQUIT (the program hung): the dumper's goroutine is
    # first and says nothing of a crash, so the Go reader leaves it.
    dump = (
        "SIGQUIT: quit\nPC=0x46a7c1 m=0 sigcode=0\n\n"
        "goroutine 0 gp=0x5b6ea0 m=0 mp=0x5b73a0 [idle]:\n"
        "runtime.futex(0x5b74e0, 0x80, 0x0, 0x0, 0x0, 0x0)\n\t/usr/local/go/src/runtime/sys_linux_amd64.s:557 +0x21\n\n"
        "goroutine 1 gp=0xc000002380 m=nil [select]:\n"
        "main.main()\n\t/src/main.go:12 +0x1d\n"
    )
    parsed = traces.parse(dump)
    assert parsed is None or parsed.format != "go"
