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


def test_below_a_system_stack_of_runtime_frames_alone_the_faulting_goroutine_is_the_crash():
    # tinygo-org/tinygo#3894: a SIGSEGV in cgo; "runtime stack:" holds throw and sigpanic only, and the
    # goroutine printed next, "[syscall]" in LLVM's C API, is where it happened. hashicorp/vault#2348/c1's
    # stack overflow reads the same: the runtime's morestack, then the goroutine that recursed.
    text = (
        "fatal error: unexpected signal during runtime execution\n"
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x290 pc=0x5148bb2]\n\n"
        "runtime stack:\nruntime.throw({0x556e85f?, 0x40?})\n"
        "\t/usr/local/go/src/runtime/panic.go:1047 +0x5d fp=0x7f148c85f880 sp=0x7f148c85f850 pc=0x4f3f1d\n"
        "runtime.sigpanic()\n"
        "\t/usr/local/go/src/runtime/signal_unix.go:825 +0x3e9 fp=0x7f148c85f8e0 sp=0x7f148c85f880 pc=0x50b1c9\n\n"
        "goroutine 182 [syscall]:\nruntime.cgocall(0x8517d0, 0xc002979fd0)\n"
        "\t/usr/local/go/src/runtime/cgocall.go:157 +0x5c fp=0xc002979fa8 sp=0xc002979f70 pc=0x4c36bc\n"
        "github.com/tinygo-org/tinygo/compiler.(*compilerContext).getTypeCode(0xc002840280, {0x0})\n"
        "\t/src/compiler/interface.go:88 +0x5e fp=0xc00297a010 sp=0xc002979fd0 pc=0x70719e\n"
    )
    parsed = traces.parse(text)
    assert parsed.format == "go"
    assert [frame.function for frame in parsed.frames] == [
        "runtime.cgocall(0x8517d0, 0xc002979fd0)",
        "github.com/tinygo-org/tinygo/compiler.(*compilerContext).getTypeCode(0xc002840280, {0x0})",
    ]
    signature = signatures.compute(kind="crash", trace_text=text, target="t")
    assert signature.frames[0] == "github.com/tinygo-org/tinygo/compiler.compilerContext.getTypeCode"
    overflow = signatures.compute(kind="crash", trace_text=RECORDS["hashicorp/vault#2348/c1"]["trace"], target="t")
    assert overflow.frames[0] == "type..hash.net/http.connectMethodKey"


# caddyserver/caddy#6707 (https://github.com/caddyserver/caddy/issues/6707), as posted: two function lines
# carry their source line after a run of blanks, where the paste turned the newline and tab into padding.
_CADDY = (
    "panic: close of closed channel\n\ngoroutine 21 [running]:\n"
    "github.com/caddyserver/caddy/v2/modules/caddytls.(*TLS).Stop(0x40002ff2c0)\n"
    "        github.com/caddyserver/caddy/v2@v2.8.4/modules/caddytls/tls.go:338 +0x2c\n"
    "github.com/caddyserver/caddy/v2.unsyncedStop({{0x1970cc0, 0x4000557b30}, 0x40002b0270, 0x40003c2780, "
    "{0x0, 0x0, 0x0}, {0x0, 0x0, 0x0}, ...})"
    + " "
    * 108
    + "github.com/caddyserver/caddy/v2@v2.8.4/caddy.go:677 +0xcc\n"
    "github.com/caddyserver/caddy/v2.Stop()\n        github.com/caddyserver/caddy/v2@v2.8.4/caddy.go:646 +0x138\n"
)


def test_a_source_line_on_its_function_lines_end_is_its_own():
    signed = signatures.compute(kind="crash", trace_text=_CADDY, target="caddy")
    assert signed.similarity_frames[:3] == (
        "github.com/caddyserver/caddy/modules/caddytls.TLS.Stop",
        "github.com/caddyserver/caddy.unsyncedStop",
        "github.com/caddyserver/caddy.Stop",
    )
    printed = _CADDY.replace(" " * 108, "\n\t")
    assert signatures.compute(kind="crash", trace_text=printed, target="caddy").digest == signed.digest


def test_a_panic_line_behind_the_terminals_echo_of_an_interrupt_is_read():
    # pulumi/pulumi#1706 (v19): "^Cpanic: send on closed channel", the interrupt that made it panic echoed.
    text = (
        "^Cpanic: send on closed channel\n\ngoroutine 1 [running]:\n"
        "github.com/pulumi/pulumi/cmd.cancellationScopeSource.NewScope.func1()\n"
        "\t/home/u/go/src/github.com/pulumi/pulumi/cmd/util.go:212 +0x4e\n"
    )
    signed = signatures.compute(kind="crash", trace_text=text, target="pulumi")
    assert (signed.trace_format, signed.crash_type) == ("go", "send on closed channel")


def test_gos_printf_style_assertion_helpers_are_no_frames():
    # pulumi/pulumi#10405, #5016 and #6649 (v19): contract.Assertf, contract.failfast, the helpers every
    # precondition failure of the program passes through.
    text = (
        "panic: fatal: An assertion has failed: expected a resource\n\ngoroutine 1 [running]:\n"
        "github.com/pulumi/pulumi/sdk/v3/go/common/util/contract.failfast(...)\n"
        "\t/home/u/pulumi/sdk/go/common/util/contract/failfast.go:23\n"
        "github.com/pulumi/pulumi/sdk/v3/go/common/util/contract.Assertf(0x0, {0x1, 0x2}, {0x0, 0x0, 0x0})\n"
        "\t/home/u/pulumi/sdk/go/common/util/contract/assert.go:35 +0x1b8\n"
        "github.com/pulumi/pulumi/pkg/v3/resource/deploy.(*stepGenerator).GenerateSteps(0xc0001)\n"
        "\t/home/u/pulumi/pkg/resource/deploy/step_generator.go:188 +0x95\n"
    )
    signed = signatures.compute(kind="crash", trace_text=text, target="pulumi")
    assert signed.frames[0] == "github.com/pulumi/pulumi/pkg/resource/deploy.stepGenerator.GenerateSteps"


def test_net_https_log_of_a_recovered_panic_is_read_as_the_panic():
    # grafana/loki#1599 (v19): "http: panic serving IP:PORT: MESSAGE" behind Go's log time; the client's
    # address is no part of the crash.
    def served(address: str) -> str:
        return (
            f"2019/12/10 10:00:00 http: panic serving {address}: runtime error: index out of range [3] with length 3\n"
            "goroutine 66 [running]:\nnet/http.(*conn).serve.func1(0xc0001)\n"
            "\t/usr/local/go/src/net/http/server.go:1767 +0x139\npanic(0x8e6b40, 0xc000212000)\n"
            "\t/usr/local/go/src/runtime/panic.go:679 +0x1b2\n"
            "github.com/grafana/loki/pkg/querier.(*Querier).Tail(0xc00001)\n"
            "\t/src/loki/pkg/querier/querier.go:240 +0x3d1\n"
        )

    signed = signatures.compute(kind="crash", trace_text=served("10.0.0.1:52314"), target="loki")
    assert signed.crash_type.startswith("runtime error: index out of range")
    again = signatures.compute(kind="crash", trace_text=served("[::1]:40000"), target="loki")
    assert again.digest == signed.digest
