"""JavaScript's stack traces (crashes.traces.javascript)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import javascript
from tests.crashes.signing import sign
from tests.traces import ROOT, read_meta

FIXTURE = ROOT / "javascript" / "source_map_support_stack.txt"


def test_the_error_and_its_frames_with_nodes_own_left_out():
    # cspotcode/node-source-map-support#46: Node prints the source line and a caret above the error.
    meta, text = read_meta(FIXTURE), FIXTURE.read_text()
    assert meta["source"].startswith("https://")
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == (meta["format"], meta["error"])
    assert [frame.function for frame in parsed.frames] == [
        "getErrorSource",
        "printFatalErrorUponExit",
        "process.emit.sharedData.processEmitHook.installedValue",
    ]
    assert sign(text).frames[0] == meta["innermost"]


def test_one_crash_from_another_install_and_from_firefox_is_keyed_alike():
    text = FIXTURE.read_text()
    moved = text.replace("/home/runner/work/test/", "C:\\\\Users\\\\me\\\\app\\\\").replace(":681:64)", ":690:64)")
    assert sign(moved).digest == sign(text).digest
    firefox = (
        "TypeError: e is undefined\nparseHeader@https://example.com/app.js:42:17\n@https://example.com/index.js:5:8\n"
    )
    parsed = traces.parse(firefox)
    assert parsed.format == javascript.FORMAT
    assert [frame.function for frame in parsed.frames] == ["parseHeader", "index.js:<anonymous>"]


def test_prose_with_at_and_other_formats_are_not_javascript():
    assert not javascript.recognize("We met at noon (see the notes).\nWe left at 3 (roughly).\n")
    jvm = 'Exception in thread "main" java.lang.IllegalStateException: x\n\tat a.b.C.d(C.java:12)\n'
    jvm += "\tat a.b.C.e(C.java:3)\n"
    assert traces.parse(jvm).format == "jvm"
