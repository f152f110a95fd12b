"""JavaScript's stack traces (crashes.traces.javascript)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import javascript
from tests.crashes.signing import sign
from tests.traces import ROOT, read_as_recorded

FIXTURE = ROOT / "javascript" / "source_map_support_stack.txt"


def test_the_error_and_its_frames_with_nodes_own_left_out():
    # cspotcode/node-source-map-support#46: Node prints the source line and a caret above the error.
    meta, text, parsed = read_as_recorded(FIXTURE)
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


def test_promise_combinators_node_error_fields_deno_and_bundles():
    combinator = "TypeError: boom\n    at load (/app/a.js:3:9)\n    at async Promise.all (index 0)\n"
    combinator += "    at async main (/app/b.js:9:3)\n"
    assert [frame.function for frame in traces.parse(combinator).frames] == ["load", "main"]
    # Node's error fields after its last frame ("… (config.ts:12:20) {"), the error found above Node's frames.
    fields = (
        "Error: ENOENT: no such file or directory, open '/tmp/x.json'\n    at Object.openSync (node:fs:585:3)\n"
        "    at loadConfig (/app/src/config.ts:12:20) {\n  errno: -2,\n  code: 'ENOENT'\n}\n"
    )
    parsed = traces.parse(fields)
    assert (parsed.crash_type, [frame.function for frame in parsed.frames]) == ("Error", ["loadConfig"])
    deno = "error: Uncaught TypeError: x is not a function\n    at file:///app/main.ts:3:1\n    at file:///app/main.ts:9:1\n"
    assert traces.parse(deno).crash_type == "TypeError"
    # A bundle's content hash changes with every release: the file is named without it.
    one = "TypeError: e is null\nrender@https://x.com/main.8a3b2c1d.js:1:2000\n@https://x.com/main.8a3b2c1d.js:1:9\n"
    assert sign(one).frames == sign(one.replace("8a3b2c1d", "77f0e1a9")).frames


def test_another_languages_at_lines_are_not_javascript():
    rust = (
        "stack backtrace:\n             at /rustc/abc/library/test/src/lib.rs:473:19\n"
        "             at /rustc/abc/library/test/src/harness.rs:12:5\n"
    )
    assert not javascript.recognize(rust)


def test_frames_pasted_without_their_indentation_are_read():
    # electron/electron#37555's stack as pasted (v19): every "at" line at column 0.
    indented = (
        "TypeError: Cannot read properties of undefined (reading 'path')\n"
        "    at RememberUserSelectedPath (/app/src/main/RememberUserSelectedPath.ts:42:17)\n"
        "    at Object.onSelect (/app/src/main/dialogs.ts:88:5)\n"
        "    at FSReqCallback.oncomplete (node:fs:192:23)\n"
    )
    flat = "\n".join(line.strip() for line in indented.split("\n"))
    signed = sign(flat)
    assert signed.trace_format == "javascript"
    assert signed.digest == sign(indented).digest


def test_an_electron_apps_stack_in_a_folder_with_blanks_is_javascripts():
    # marktext/marktext#961 (v19): "/Applications/Mark Text.app/…" read as .NET's parameters before.
    text = (
        "TypeError: Cannot read property 'webContents' of undefined\n"
        "    at webContents (/Applications/Mark Text.app/Contents/Resources/app.asar/dist/electron/webpack:/src/main/"
        "actions/format.js:26:7)\n"
        "    at actions (/Applications/Mark Text.app/Contents/Resources/app.asar/dist/electron/webpack:/src/main/menus/"
        "format.js:47:7)\n"
        "    at MenuItem.click (/Applications/Mark Text.app/Contents/Resources/electron.asar/browser/api/menu-item.js:"
        "56:9)\n"
        "    at Function.executeCommand (/Applications/Mark Text.app/Contents/Resources/electron.asar/browser/api/"
        "menu.js:31:13)\n"
    )
    signed = sign(text)
    assert (signed.trace_format, signed.crash_type) == ("javascript", "TypeError")
    assert signed.frames == ("webContents", "actions", "MenuItem.click")


def test_older_nodes_frames_are_read_and_its_own_modules_are_no_frames():
    # jsx-eslint/eslint-plugin-react#1471 (ESLint 4 on Node 8) and Nexus-Mods/Vortex#1466 (Electron's Node), v19:
    # "listeners.(anonymous function).forEach.listener" is V8's name, never .NET's parameters; Node's own
    # modules, named bare before Node 16 ("events.js:182:13", "ELECTRON_ASAR.js"), are no frames.
    text = (
        "TypeError: Cannot read property 'type' of undefined\n"
        "    at checkValidPropObject (/app/node_modules/eslint-plugin-react/lib/rules/no-typos.js:76:15)\n"
        "    at listeners.(anonymous function).forEach.listener (/app/node_modules/eslint/lib/util/"
        "safe-emitter.js:47:58)\n"
        "    at Array.forEach (<anonymous>)\n"
        "    at Object.module.(anonymous function) [as openSync] (ELECTRON_ASAR.js:166:20)\n"
        "    at emitTwo (events.js:106:13)\n"
        "    at Object.emit (/app/node_modules/eslint/lib/util/safe-emitter.js:47:38)\n"
    )
    signed = sign(text)
    assert signed.trace_format == "javascript"
    assert signed.frames == (
        "checkValidPropObject",
        "listeners.(anonymous function).forEach.listener",
        "Object.emit",
    )


def test_nodes_out_of_memory_is_keyed_by_its_fatal_error_not_its_collectors_log():
    # google-gemini/gemini-cli#2993 and #14445 (maintainers' duplicates, macOS and Windows, v19): the garbage
    # collector's log above "FATAL ERROR: …" and V8's own native frames below it are the runtime's.
    def oom(gc_head: str, frames: str) -> str:
        return (
            "<--- Last few GCs --->\n\n"
            f"[{gc_head}]   113591 ms: Mark-Compact 3996.9 (4128.5) -> 3958.9 (4132.5) MB, 610.08 / 0.00 ms "
            "(average mu = 0.175, current mu = 0.197) allocation failure; scavenge might not succeed\n\n"
            "<--- JS stacktrace --->\n\n"
            "FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory\n"
            f"----- Native stack trace -----\n\n{frames}"
        )

    mac = oom(
        "98868:0x130008000",
        " 1: 0x10443f1e4 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [/usr/local/bin/node]\n"
        " 5: 0x104862c34 void heap::base::Stack::SetMarkerAndCallbackImpl<v8::internal::Heap::CollectGarbage>() "
        "[/usr/local/bin/node]\n",
    )
    windows = oom("6904:0000029E16A50000", " 1: 00007FF71AD3B106 node::OnFatalError+1318\n")
    assert sign(mac, "gemini-cli").digest == sign(windows, "gemini-cli").digest
    assert sign(mac, "gemini-cli").message.startswith("FATAL ERROR: Ineffective mark-compacts")
