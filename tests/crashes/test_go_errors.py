"""Go stacks printed one ``file.go:N (0xPC)`` line per frame (go-errors/errors, gitea's and macaron's loggers).

Before signature v9 no parser read them: the unparsed path keyed each on the
logger's line ("…/errpage.go:25:RenderPanicErrorPage() [E] PANIC: runtime
error: invalid memory address or nil pointer dereference"), the same for every
nil dereference a gitea server recovered.
"""

from __future__ import annotations

from crashes import signatures, traces
from crashes.traces.extract import clean
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import sign_record as _sign
from tests.data.record_digests import dedup_records
from tests.traces import read_report

RECORDS = dedup_records()


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


def test_a_stack_keys_alike_with_and_without_go_errors_function_lines():
    # go-errors prints "\tFunc: source" under a frame only where it could read the source: the same
    # crash on another machine has none. The standard library (net/http) and the error-wrapping
    # helper (errors.go, where every wrapped error is made) are no frames.
    bare = (
        "*errors.errorString boom\n"
        "/src/app/pkg/utils/errors.go:12 (0x4a0f00)\n"
        "/src/app/pkg/store/db.go:41 (0x4a1f2c)\n"
        "/src/app/pkg/api/handler.go:88 (0x4a3b11)\n"
        "/usr/local/go/src/net/http/server.go:2084 (0x6bd0ef)\n"
    )
    named = bare.replace("(0x4a1f2c)\n", '(0x4a1f2c)\n\t(*Store).Get: return nil, errors.New("boom")\n')
    assert named != bare
    signed = [signatures.compute(kind="crash", trace_text=text, target="t") for text in (bare, named)]
    assert signed[0].frames == signed[1].frames == ("db.go", "handler.go")
    assert signed[0].digest == signed[1].digest


def test_the_stack_under_the_panic_is_the_crashs_and_a_previous_log_line_is_not_its_message():
    # gitea with STACKTRACE_LEVEL logs a stack with every error: the one under "PANIC:" is the crash.
    text = (
        "2021/04/16 21:11:40 ...models/repo.go:120:GetRepo() [E] GetRepositoryByID: repository does not exist\n"
        "/source/models/repo.go:120 (0x1a2b3c)\n"
        "/source/routers/api/v1/repo/repo.go:55 (0x1a2b4c)\n"
        "/source/modules/web/handler.go:161 (0x18183b6)\n"
        "2021/04/16 21:11:43 ...routes/base.go:153:1() [E] PANIC: runtime error: index out of range [3] with length 3\n"
        "/usr/local/go/src/runtime/panic.go:98 (0x4585f)\n"
        "/source/modules/gitgraph/graph_models.go:219 (0x1823d2f)\n"
        "/source/modules/gitgraph/parser.go:84 (0x18241c3)\n"
    )
    signature = signatures.compute(kind="crash", trace_text=text, target="t")
    assert signature.crash_type == "runtime error: index out of range [N] with length N"
    assert signature.frames == ("graph_models.go", "parser.go")
    logged = (
        "2023/08/09 01:01:15 [I] Completed GET /alice/notes/src/branch/main 200 OK in 12.3ms\n"
        "*errors.errorString record not found in the users table of db\n"
        "/src/app/pkg/store/db.go:41 (0x4a1f2c)\n/src/app/pkg/api/handler.go:88 (0x4a3b11)\n"
        "/src/app/cmd/server/main.go:20 (0x4a3c00)\n"
    )
    assert traces.parse(logged).message == "*errors.errorString record not found in the users table of db"


def test_windows_paths_with_blanks_and_trimmed_paths_are_read():
    windows = (
        "[E] PANIC: runtime error: invalid memory address or nil pointer dereference\n"
        "C:/Program Files/Go/src/runtime/panic.go:260 (0x3d1f2c)\n"
        "C:/Users/John Smith/app/store/db.go:41 (0x4a1f2c)\n"
        "C:/Users/John Smith/app/api/handler.go:88 (0x4a3b11)\n"
    )
    assert [frame.file.rsplit("/", 1)[-1] for frame in traces.parse(windows).frames] == ["db.go", "handler.go"]
    # -trimpath: "runtime/panic.go", and the recovery handler above it.
    trimmed = (
        "[E] PANIC: runtime error: invalid memory address or nil pointer dereference\n"
        "runtime/panic.go:770 (0x43d364)\n"
        "code.gitea.io/gitea/modules/web/routing/logger_manager.go:116 (0x180eaa4)\n"
        "runtime/panic.go:770 (0x43d364)\n"
        "code.gitea.io/gitea/modules/git/commit_info.go:21 (0xe9ddc3)\n"
        "code.gitea.io/gitea/routers/web/repo/view.go:302 (0x2a2d5e4)\n"
    )
    assert signatures.compute(kind="crash", trace_text=trimmed, target="t").frames == ("commit_info.go", "view.go")


def test_two_frame_lines_are_no_stack():
    text = "log: saved /srv/a.go:12 (0x1f)\n/srv/b.go:13 (0x2f)\n"
    assert traces.parse(text) is None or traces.parse(text).format != "go"


def test_a_terminal_cutting_the_loggers_line_and_long_frames_moves_nothing():
    text = RECORDS["go-gitea/gitea#15514"]["trace"]
    for width in (80, 120):
        cut = hard_wrap(text, width)
        assert cut != text
        assert (
            signatures.compute(kind="crash", trace_text=cut, target="t").digest == _sign("go-gitea/gitea#15514").digest
        )


def test_a_frame_line_cut_before_its_extension_is_read_whole():
    text = (
        "*errors.errorString unknown view\n"
        "/home/runner/work/lazygit/lazygit/pkg/gui/gui.go:801 (0x1236ee2)\n"
        "/home/runner/work/lazygit/lazygit/pkg/gui/controllers/helpers/confirmation_hel\n"
        "per.go:120 (0x1102e95)\n"
        "/home/runner/work/lazygit/lazygit/pkg/gui/layout.go:191 (0x123d709)\n"
    )
    parsed = traces.parse(text)
    assert [frame.file.rsplit("/", 1)[-1] for frame in parsed.frames] == [
        "gui.go",
        "confirmation_helper.go",
        "layout.go",
    ]
    assert parsed.message == "*errors.errorString unknown view"


def test_the_cockroachdb_errors_librarys_stack_is_read_behind_its_gutter():
    # cockroachdb/cockroach#115342 and #108580 ("dup of #86703", yuzefovich): "pebble: closed" with the stack
    # cockroachdb/errors attached, each line behind "  | " below "  -- stack trace:"; the line numbers in
    # Pebble's db.go differ between the two builds. Before v22 each was keyed on its first lines.
    one = signatures.compute(kind="crash", trace_text=read_report("v22/errors_stack_gutter_cockroach_115342"))
    other = signatures.compute(kind="crash", trace_text=read_report("v22/errors_stack_gutter_cockroach_108580"))
    assert one.trace_format == "go"
    assert one.frames[0] == "github.com/cockroachdb/pebble.DB.newIter"
    assert "an error library's stack gutter removed" in one.repairs
    assert one.digest == other.digest
    # A gutter of the same look with no such head (a compiler's diagnostic) is left as it is.

    diagnostic = "error: x\n  |\n  | let a = b;\n  |     ^ here\n"
    assert "| let a = b;" in clean(diagnostic).text
