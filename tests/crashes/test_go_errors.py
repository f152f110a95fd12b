"""Go stacks printed one ``file.go:N (0xPC)`` line per frame (go-errors/errors, gitea's and macaron's loggers).

Before signature v9 no parser read them: the unparsed path keyed each on the
logger's line ("…/errpage.go:25:RenderPanicErrorPage() [E] PANIC: runtime
error: invalid memory address or nil pointer dereference"), the same for every
nil dereference a gitea server recovered.
"""

from __future__ import annotations

from crashes import signatures, traces
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def _sign(record_id: str):
    return signatures.compute(kind="crash", trace_text=RECORDS[record_id]["trace"], target="t")


def test_the_recovered_value_and_the_programs_files_identify_the_crash():
    # go-gitea/gitea#15646, "This is a duplicate of #15514" (zeripath): one slice bound in gitgraph.
    first, duplicate = _sign("go-gitea/gitea#15514"), _sign("go-gitea/gitea#15646")
    assert first.trace_format == "go"
    assert first.crash_type == "runtime error: slice bounds out of range [:N] with length N"
    assert first.frames == ("graph_models.go", "parser.go")
    assert first.digest == duplicate.digest


def test_the_recovery_handler_above_the_panic_and_the_runtime_are_no_frames():
    # go-gitea/gitea#35188: logger_manager.go recovered, runtime/panic.go and signal_unix.go raised;
    # the nil dereference was in modules/git/commit_info.go.
    parsed = traces.parse(RECORDS["go-gitea/gitea#35188"]["trace"])
    assert parsed.frames[0].file == "/go/src/code.gitea.io/gitea/modules/git/commit_info.go"
    assert not any("logger_manager" in frame.file or "/src/runtime/" in frame.file for frame in parsed.frames)
    # Another nil dereference the same handler recovered (gitea#32897) is another bucket.
    assert _sign("go-gitea/gitea#32897").digest != _sign("go-gitea/gitea#35188").digest


def test_a_go_errors_stack_without_a_panic_line_keeps_its_error():
    # jesseduffield/lazygit#1225: go-errors' "*errors.errorString unknown view" and its frames.
    signature = _sign("jesseduffield/lazygit#1225")
    assert signature.crash_type == "*errors.errorString unknown view"
    assert signature.frames == ("gui.go", "confirmation_panel.go")


def test_go_errors_function_lines_name_the_frames():
    text = (
        "*errors.errorString boom\n"
        "/src/app/pkg/store/db.go:41 (0x4a1f2c)\n"
        '\t(*Store).Get: return nil, errors.New("boom")\n'
        "/src/app/pkg/api/handler.go:88 (0x4a3b11)\n"
        "\tserveItem: item, err := s.Get(id)\n"
        "/usr/local/go/src/net/http/server.go:2084 (0x6bd0ef)\n"
        "\tHandlerFunc.ServeHTTP: f(w, r)\n"
    )
    parsed = traces.parse(text)
    assert [frame.function for frame in parsed.frames[:2]] == ["(*Store).Get", "serveItem"]


def test_two_frame_lines_are_no_stack():
    text = "log: saved /srv/a.go:12 (0x1f)\n/srv/b.go:13 (0x2f)\n"
    assert traces.parse(text) is None or traces.parse(text).format != "go"


def test_a_terminal_cutting_the_loggers_line_and_long_frames_moves_nothing():
    text = RECORDS["go-gitea/gitea#15514"]["trace"]
    for width in (80, 120):
        cut = "\n".join(line[i : i + width] for line in text.split("\n") for i in range(0, max(len(line), 1), width))
        assert cut != text
        assert (
            signatures.compute(kind="crash", trace_text=cut, target="t").digest == _sign("go-gitea/gitea#15514").digest
        )
