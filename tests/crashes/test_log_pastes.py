"""Traces pasted from a log or a rendered page (signature v17), on real reports of tests/data/dedup.

Docker Compose prints each line behind its service's column ("web_1  | "); a logger's
timestamp and level run into a message's own indentation ("… ERROR   left: `1`,"); a copy from
a chat or a mail turns indentation into non-breaking spaces. Each is the report pasted alone,
once the column, the prefix's own blanks or the odd spaces are gone. The sources are each
record's ``source``.
"""

from __future__ import annotations

import json

import pytest

from crashes.traces import extract
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign, sign_record


def _prefixed(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


@pytest.mark.parametrize("record_id", ["sharkdp/fd#1113", "thonny/thonny#2566", "Z3Prover/z3#3360"])
@pytest.mark.parametrize("column", ["web_1  | ", "api-server-1  | "])
def test_a_compose_services_column_is_a_log_prefix(record_id, column):
    alone = sign_record(record_id)
    assert alone.method == "stack"
    pasted = sign(_prefixed(record_trace(record_id), column))
    assert pasted.digest == alone.digest
    assert "log prefixes removed" in pasted.repairs


def test_a_prefixs_blanks_leave_the_messages_own_indentation():
    # fd#1113's assert_eq! prints "  left: `…`," and " right: `…`" below its first line: a timestamp's
    # blanks took those with them, and the panic's message read "left: …,right: …".
    text = record_trace("sharkdp/fd#1113")
    assert "\n  left:" in text
    pasted = sign(_prefixed(text, "2023-05-04 10:11:12.345 ERROR "))
    assert pasted.crash_type == sign(text).crash_type
    cleaned = extract.clean(_prefixed(text, "2023-05-04 10:11:12.345 ERROR "))
    assert "\n  left:" in cleaned.text


def test_fences_and_inline_code_behind_a_prefix_are_markup():
    # z3#3360 is fenced in "~~~~" lines; GUIslice#83 is one line of inline code.
    for record_id in ("Z3Prover/z3#3360", "ImpulseAdventure/GUIslice#83"):
        text = record_trace(record_id)
        assert "~~~~" in text or text.startswith("`")
        assert sign(_prefixed(text, "web_1  | ")).digest == sign_record(record_id).digest


def test_a_diagnostics_line_numbers_are_no_service_column():
    # rustc's and GCC's source excerpts ("12 |     let x = …") keep their gutter.
    text = "error[E0308]: mismatched types\n12 |     let x: u8 = 300;\n13 |     x\n14 | }\n"
    cleaned = extract.clean(text)
    assert "12 |" in cleaned.text
    assert "log prefixes removed" not in cleaned.repairs


def test_a_table_in_the_text_is_no_log():
    # AFLplusplus#2684's plugin table ("Event | Plugins") sits in two lines of a longer report.
    signature = sign_record("AFLplusplus/AFLplusplus#2684")
    assert "log prefixes removed" not in signature.repairs
    assert signature.frames == ("site purge_dead_edges",)


def test_non_breaking_spaces_read_as_blanks():
    text = record_trace("thonny/thonny#2566")
    copied = "\n".join(line.replace("  ", "\u00a0\u00a0") for line in text.split("\n"))
    assert copied != text
    pasted = sign(copied)
    assert pasted.digest == sign(text).digest
    assert "non-breaking spaces read as blanks" in pasted.repairs


def _json_log(text: str) -> str:
    return json.dumps({"level": "error", "ts": 1709820131.5, "msg": "request failed", "stacktrace": text})


@pytest.mark.parametrize(
    "record_id",
    # A Python traceback, a .NET exception, a Rust panic, a one-line GCC ICE.
    ["thonny/thonny#2566", "ShareX/ShareX#4303", "sharkdp/fd#1113", "msys2/MINGW-packages#4409"],
)
def test_a_trace_in_a_json_log_records_field_is_read_as_pasted_alone(record_id):
    alone = sign_record(record_id)
    pasted = sign(_json_log(record_trace(record_id)))
    assert pasted.digest == alone.digest
    assert "1 escaped trace unescaped" in pasted.repairs


def test_a_trace_held_in_a_repr_is_read_as_pasted_alone():
    text = record_trace("thonny/thonny#2566")
    assert sign("Task failed: error=" + repr(text)).digest == sign(text).digest


def test_a_logfmt_stack_field_is_read_as_a_go_stack():
    # TiDB's log line: stack="github.com/…\n\t/home/…/sort_util.go:52\n…" (the record is stored cut inside it),
    # each function printed by its name alone, as zap and github.com/pkg/errors print them.
    signature = sign_record("pingcap/tidb#58788")
    assert "1 escaped trace unescaped" in signature.repairs
    assert signature.trace_format == "go"
    # Above runtime.gopanic is TiDB's recovery handler (processPanicAndLog); below goPanicIndex, the crash.
    assert signature.frames == (
        "github.com/pingcap/tidb/pkg/util/chunk.Row.IsNull",
        "github.com/pingcap/tidb/pkg/util/chunk.cmpFloat64",
    )


def test_a_go_stack_of_names_alone_needs_its_source_lines():
    listing = "Steps:\ngithub.com/a/b.Open\ngithub.com/a/b.Read\ngithub.com/a/b.Write\n"
    assert sign(listing).trace_format != "go"


@pytest.mark.parametrize(
    "line",
    [
        # A Windows path's backslashes are no escapes ("\U" is none in JSON).
        'path="C:\\Users\\nina\\new\\notes" failed: Access is denied.',
        # A string in a line of code is no log's field.
        "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(\"\\nDone\\n\")?",
    ],
)
def test_backslashes_that_escape_no_log_string_are_left_alone(line):
    cleaned = extract.clean(line + "\nsecond line\n")
    assert not any("unescaped" in repair for repair in cleaned.repairs)
    assert cleaned.text.startswith(line)


def test_a_compilers_json_diagnostic_is_still_rendered_as_it_prints():
    signature = sign_record("rust-lang/rls#1656")
    assert not any("unescaped" in repair for repair in signature.repairs)
    assert signature.trace_format == "rustc-ice"


def test_hostile_escapes_cost_a_bounded_look():
    # A record nested too deep to decode, and a quarter of a million lines of escapes that decode to
    # nothing (eight are looked at).
    nested = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    text = nested + "\n" + ('x="\\n\\n\\q"\n' * 250_000)
    cleaned = extract.clean(text)
    assert not any("unescaped" in repair for repair in cleaned.repairs)


@pytest.mark.parametrize(
    ("opening", "closing"),
    [("{code:java}", "{code}"), ("{noformat}", "{noformat}"), ("<pre><code>", "</code></pre>"), ("[code]", "[/code]")],
)
@pytest.mark.parametrize("record_id", ["ShareX/ShareX#4303", "Z3Prover/z3#3360", "sharkdp/fd#1113"])
def test_another_trackers_markup_glued_to_a_paste_is_no_part_of_it(opening, closing, record_id):
    pasted = sign(opening + record_trace(record_id) + closing)
    assert pasted.digest == sign_record(record_id).digest
    assert "markup tags removed" in pasted.repairs


def test_markup_inside_a_line_is_the_lines_own():
    # Only a tag opening or closing a line is markup: a message may name <code> or [code].
    cleaned = extract.clean("error: unexpected <code> element in [code] section\nsecond line\n")
    assert "markup tags removed" not in cleaned.repairs
    assert cleaned.text.startswith("error: unexpected <code> element in [code] section")


def test_a_loggers_own_line_head_is_read_by_its_time_of_day():
    # Terraform's log of a provider's crash: Go's "2016/03/11 13:08:48 " and "[DEBUG] plugin: " before each line
    # of the panic (v17: before, only its first line was read, as a line of text).
    terraform = sign_record("hashicorp/terraform#5583")
    assert "log prefixes removed" in terraform.repairs
    assert (terraform.trace_format, terraform.crash_type) == (
        "go",
        "runtime error: invalid memory address or nil pointer dereference",
    )
    assert terraform.frames[0].endswith("digitalocean.resourceDigitalOceanDropletRead")
    # osu!'s runtime log ("2019-05-21 05:05:09: "), a .NET exception below it.
    assert sign_record("ppy/osu#4593/c1").crash_type == "System.ArgumentNullException"
    # macOS Console's columns ("default\t12:49:23.340471 +0300\tElectrum\t"): the traceback keeps its indentation.
    cleaned = extract.clean(record_trace("spesmilo/electrum#2332/c1"))
    assert cleaned.text.startswith('Traceback (most recent call last):\n  File "/Applications/Electrum.app/')


@pytest.mark.parametrize("record_id", ["InsertKoinIO/koin#1076", "dotnet/runtime#49515"])
def test_a_line_head_never_takes_the_frames_own_start(record_id):
    # Logcat's and journald's heads in a Compose log: most lines go on with "\tat " (or "at "), which is the
    # frames' own syntax, not more of the head.
    alone = sign_record(record_id)
    assert sign(_prefixed(record_trace(record_id), "web_1  | ")).digest == alone.digest


def test_a_line_head_a_terminal_cut_is_read_once_its_lines_are_joined():
    text = record_trace("ppy/osu#4593/c1")
    wrapped = sign(hard_wrap(text, 80))
    assert wrapped.crash_type == "System.ArgumentNullException"
    assert wrapped.digest == sign(text).digest


def test_times_on_fewer_than_half_the_lines_are_no_line_head():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/jobs.py", line 12, in run\n'
        "    started = parse('12:30:00 job: x')\n"
        '  File "/srv/app/clock.py", line 3, in parse\n'
        "    return strptime(text)\n"
        "ValueError: time data '12:30:00 job: x' does not match format\n"
    )
    cleaned = extract.clean(text)
    assert "log prefixes removed" not in cleaned.repairs
    assert cleaned.text.strip() == text.strip()


@pytest.mark.parametrize(
    ("record_id", "trace_format", "crash_type"),
    [
        # Go's Android log tag before each line of a fatal error's stacks.
        ("golang/go#20259", "go", "heapBitsForSpan: base out of range"),
        # Gradle's "[system.err] " behind its timestamp and level: Hilt's processor's exception.
        ("google/dagger#2094/c1", "jvm", "java.lang.IllegalStateException"),
        # The Kotlin daemon's "exception: " before each line of the compiler's exception.
        ("Kotlin/kotlinx.serialization#2424", "jvm", "java.lang.IllegalStateException"),
        # VS Code's clangd output panel: "clangd: " before an assertion and before a stack dump.
        ("clangd/clangd#892", "llvm", "Assertion `isValid()' failed"),
        ("clangd/clangd#2151", "llvm", "SEGV"),
    ],
)
def test_a_programs_name_before_every_line_is_a_log_prefix(record_id, trace_format, crash_type):
    signature = sign_record(record_id)
    assert "log prefixes removed" in signature.repairs
    assert (signature.method, signature.trace_format, signature.crash_type) == ("stack", trace_format, crash_type)


def test_a_diagnostics_own_words_are_no_programs_name():
    # Half of miri#1795's lines are rustc's "note: …" lines: the ICE's notes, read as rustc prints them.
    signature = sign_record("rust-lang/miri#1795")
    assert "log prefixes removed" not in signature.repairs
    text = "note: a\nnote: b\nnote: delayed at compiler/rustc_x/src/y.rs:1:2\nerror: internal compiler error: z\n"
    assert extract.clean(text).text.startswith("note: a\nnote: b")


@pytest.mark.parametrize("record_id", ["sharkdp/fd#1113", "thonny/thonny#2566", "Z3Prover/z3#3360"])
def test_colours_whose_escape_characters_were_lost_are_no_part_of_the_trace(record_id):
    # A CI log or a web terminal copied without its escape characters leaves "[0m[1m" around lines
    # (redox-os's Travis logs: "[0m[1m[38;5;9merror[E0407][0m[0m[1m: method …").
    alone = sign_record(record_id)
    coloured = "\n".join("[0m[1m" + line + "[0m" if line else line for line in record_trace(record_id).split("\n"))
    pasted = sign(coloured)
    assert pasted.digest == alone.digest
    assert "terminal colours removed (their escape characters lost)" in pasted.repairs


def test_a_few_brackets_or_escaped_colours_are_left_as_they_are():
    # A lone "[1m" may be anything; an escape written out in a JSON string ("\u001b[0m" in cargo's
    # rendered diagnostics, rust-lang/rls#1656) is decoded with its string, never cut from it.
    text = "panic: bad index [1m] of grid[0m]\ngoroutine 1 [running]:\nmain.main()\n\t/a/main.go:5 +0x1d\n"
    assert extract.clean(text).text == text
    # Brackets that read like colour codes and are not: Terraform's durations, test timings, PromQL's
    # ranges, Rust's Debug form of an escape.
    for text in (
        "a: Still creating... [1m0s elapsed]\nb: Still creating... [1m10s elapsed]\n"
        "c: Still creating... [2m0s elapsed]\n",
        "✓ parses body [12ms]\n✓ parses head [3ms]\n✓ parses tail [45ms]\n",
        "rate(x[5m]) + rate(y[5m]) + rate(z[10m])\n",
        'msg: "\\u{1b}[1mhello\\u{1b}[0m \\u{1b}[31mred\\u{1b}[0m"\n',
    ):
        assert not any("escape characters lost" in repair for repair in extract.clean(text).repairs), text
    rls = sign_record("rust-lang/rls#1656")
    assert not any("escape characters lost" in repair for repair in rls.repairs)
    assert rls.crash_type == "ICE: cannot lex '?' without source: <path>?<path>"


@pytest.mark.parametrize("record_id", ["sharkdp/fd#1113", "thonny/thonny#2566", "Z3Prover/z3#3360"])
@pytest.mark.parametrize("head", ["[  154s] ", "[ 1234s] ", "[796819.036664] ", "[    0.000000] "])
def test_a_builds_or_the_kernels_seconds_are_a_log_prefix(record_id, head):
    # The Open Build Service prints the seconds since the build started before each line of its log (an
    # openSUSE build's GCC ICE in lhmax2010.github.io#14), the kernel its seconds since boot in dmesg
    # (OpenSMTPD#929's segfault lines).
    alone = sign_record(record_id)
    pasted = sign(_prefixed(record_trace(record_id), head))
    assert pasted.digest == alone.digest
    assert "log prefixes removed" in pasted.repairs


def test_a_log_record_never_goes_on_a_line_a_terminal_cut():
    # bosun-monitor/bosun#7: two log lines of one length above a Go stack overflow were joined as if cut at
    # their width, each to the next record (a date and time at column 0 starts a record of its own).
    text = (
        "2014/02/25 09:18:27 cpu at 12.633333333333333 on ny-devtsdb04.ds.stackexchange.com\n"
        "2014/02/25 09:18:32 cpu at 12.633333333333333 on ny-devtsdb04.ds.stackexchange.com\n"
        "runtime: goroutine stack exceeds 1000000000-byte limit\nfatal error: stack overflow\n"
    )
    assert not any("unwrapped" in repair for repair in extract.clean(text).repairs)


@pytest.mark.parametrize("record_id", ["sharkdp/fd#1113", "thonny/thonny#2566", "Z3Prover/z3#3360"])
@pytest.mark.parametrize(
    "prefix",
    [
        # v19: sbt's lower-case levels (scala/scala3#13406), Docker BuildKit's step and seconds
        # (tinygo-org/tinygo#4206), `flutter run -v`'s time since its last line (flutter/flutter#18398).
        "[error] ",
        "#14 81.12 ",
        "[ +126 ms] ",
        "[        ] ",
        # Heroku's dyno after its time (lexicalunit/spellbot#487), Firefox's mach build log
        # (loongson-overlay#35).
        "2021-05-12T04:04:09.696866+00:00 app[web.1]: ",
        "76:12.69 ",
    ],
)
def test_a_build_tools_line_head_is_a_log_prefix(record_id, prefix):
    alone = sign_record(record_id)
    pasted = sign(_prefixed(record_trace(record_id), prefix))
    assert pasted.digest == alone.digest
    assert "log prefixes removed" in pasted.repairs
