"""Go telemetry's crash stacks (gopls's reports in golang/go's tracker; tests/data/dedup names each source).

Before signature v11 no parser read them: the unparsed path found no line
that names a failure, and each report was a bucket of its own.
"""

from __future__ import annotations

import re

import pytest

from crashes import traces
from tests.crashes.signing import sign as _sign
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def test_a_telemetry_stack_is_keyed_by_its_functions_past_the_runtime():
    # golang/go#66090: "crash/crash", then frames with telemetry's +N and =N line marks.
    text = RECORDS["golang/go#66090"]["trace"]
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == ("go", "")
    assert [frame.function for frame in parsed.frames[:4]] == [
        "runtime.gopanic",
        "runtime.panicmem",
        "runtime.sigpanic",
        "golang.org/x/tools/gopls/internal/server.(*server).SignatureHelp",
    ]
    assert _sign(text).frames == (
        "golang.org/x/tools/gopls/internal/server.server.SignatureHelp",
        "golang.org/x/tools/gopls/internal/protocol.serverDispatch",
    )


def test_older_uploads_without_marks_are_read():
    # golang/go#65516: "runtime.gopanic:59", "go/ast.Inspect:?397".
    parsed = traces.parse(RECORDS["golang/go#65516"]["trace"])
    assert parsed.format == "go"
    assert parsed.frames[4].function == "golang.org/x/tools/gopls/internal/golang.highlightPath"


def test_the_line_numbers_are_not_part_of_the_key():
    # The numbers move with every release of gopls; the functions do not.
    text = RECORDS["golang/go#66090"]["trace"]
    moved = re.sub(r":([+=?])\d+", lambda found: f":{found[1]}{7}", text)
    assert moved != text
    assert _sign(moved).digest == _sign(text).digest


def test_the_markdown_list_of_links_the_maintainers_file_is_the_same_stack():
    # The issues filed from telemetry list each frame as a link to its source.
    text = RECORDS["golang/go#66090"]["trace"]
    linked = "\n".join(
        f"- [`{line}`](https://cs.opensource.google/go/x/tools/+/gopls/v0.15.1:gopls/x.go;l=12)"
        if ":" in line
        else line
        for line in text.split("\n")
    )
    assert _sign(linked).digest == _sign(text).digest


def test_a_goroutine_dump_of_the_same_crash_has_the_same_frames():
    telemetry = RECORDS["golang/go#66090"]["trace"]
    dump = (
        "panic: runtime error: invalid memory address or nil pointer dereference\n"
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]\n\n"
        "goroutine 1 [running]:\n"
        "golang.org/x/tools/gopls/internal/server.(*server).SignatureHelp(0xc000110000, {0x1, 0x2}, 0xc0001)\n"
        "\tgolang.org/x/tools/gopls/internal/server/signature_help.go:30 +0x1a\n"
        "golang.org/x/tools/gopls/internal/protocol.serverDispatch({0x1, 0x2}, {0x3, 0x4}, 0x5, {0x6, 0x7})\n"
        "\tgolang.org/x/tools/gopls/internal/protocol/tsserver.go:1100 +0x2b\n"
    )
    assert _sign(dump).frames == _sign(telemetry).frames


@pytest.mark.parametrize(
    "text",
    [
        "runtime/proc.go:12\nruntime/panic.go:40\nruntime/stack.go:7\nmain.go:3\n",  # grep's hits
        "app.log:3\naudit.log:0\nruntime.log:12\nx.log:4\n",  # grep -c
        "db.example.com:5432\nruntime.example.com:80\ncache.local:6379\n",  # hosts and ports
        "alice.smith:+1\nbob.jones:+2\ncarol.w:+3\n",  # a tally
        "numpy.core:=1\nnumpy.lib:=2\nscipy.x:=3\n",
    ],
)
def test_lists_of_name_and_number_lines_are_no_stack(text):
    parsed = traces.parse(text)
    assert parsed is None or parsed.format != "go"
