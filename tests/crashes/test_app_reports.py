"""Applications' crashes as notebooks, web servers, crash consoles and test runners print them (signature v18).

The forms are those of public reports named at each test (found by a probe on reports from projects
outside tests/data/dedup); the texts are written as each tool prints them.
"""

from __future__ import annotations

import pytest

from crashes import signatures, similarity, traces
from crashes.signatures import unparsed


def _sign(text: str, target: str = "t"):
    return signatures.compute(kind="crash", trace_text=text, target=target)


def _notebook(cell: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{cell}", line 8, in <module>\n    sp500 = data[0].loc[1:, [0, 1, 6, 7]]\n'
        '  File "/usr/local/lib/python3.10/dist-packages/pandas/core/indexing.py", line 1640, in '
        '_validate_read_indexer\n    raise KeyError(f"None of [{key}] are in the [{axis_name}]")\n'
        'KeyError: "None of [Index([0, 1, 6, 7])] are in the [columns]"\n'
    )


def test_a_notebook_cell_is_one_place_however_the_kernel_named_it_that_run():
    # A Colab notebook's traceback (a yfinance-based article's comments): the cell is
    # "<ipython-input-40-6acb74aaf00d>", a count and a hash new at each run; the kernel's compiled
    # cell "/tmp/ipykernel_3041/2874263845.py" in newer Jupyter. One cell, one place.
    runs = [
        _notebook("<ipython-input-40-6acb74aaf00d>"),
        _notebook("<ipython-input-3-1f0e2d3c4b5a>"),
        _notebook("/tmp/ipykernel_3041/2874263845.py"),
    ]
    signed = [_sign(text) for text in runs]
    assert signed[0].similarity_frames[-1] == "<cell>:<module>"
    assert len({signature.digest for signature in signed}) == 1


@pytest.mark.parametrize(
    "line",
    [
        # Web servers and asyncio above any exception they caught: uvicorn (coleam00/mcp-crawl4ai-rag#20:
        # the traceback cut below), Flask, Django, gunicorn, asyncio, Python's exception-group header.
        "ERROR:    Exception in ASGI application",
        "[2024-05-01 10:00:00,123] ERROR in app: Exception on /api/items [POST]",
        "Internal Server Error: /admin/login/",
        "[2024-05-01 10:00:00 +0000] [7] [ERROR] Error handling request /health",
        "Task exception was never retrieved",
        "  + Exception Group Traceback (most recent call last):",
        # Gradle on the task that failed (Android projects' build reports, "* What went wrong:").
        "Execution failed for task ':app:kaptDebugKotlin'.",
        "> A failure occurred while executing org.jetbrains.kotlin.gradle.internal.KaptWithoutKotlincTask"
        "$KaptExecutionWorkAction",
        "   > java.lang.reflect.InvocationTargetException (no error message)",
    ],
)
def test_a_frameworks_words_around_any_failure_name_no_bug(line):
    assert unparsed.identity_line(line) == ""


def test_pytests_internal_error_prefix_is_a_log_prefix():
    # ocrmypdf/OCRmyPDF's openSUSE build: pytest prints its own crash with "INTERNALERROR> " on each line.
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/site-packages/xdist/dsession.py", line 190, in worker_internal_error\n'
        "    raise RuntimeError(formatted_error)\n"
        "RuntimeError: worker gw1 crashed\n"
    )
    prefixed = "".join(f"INTERNALERROR> {line}\n" for line in traceback.splitlines())
    assert _sign(prefixed).digest == _sign(traceback).digest
    # Behind a CI runner's time of day (pytest-dev/pytest#7576, v19): "[14:00:43]INTERNALERROR>".
    timed = "".join(f"[14:00:43]INTERNALERROR> {line}\n" for line in traceback.splitlines())
    assert _sign(timed).digest == _sign(traceback).digest


_ACTIVITY = (
    "java.lang.RuntimeException: Unable to start activity ComponentInfo{{a.b/a.b.Main}}: "
    "kotlin.UninitializedPropertyAccessException: lateinit property bar has not been initialized\n"
    "  at android.app.ActivityThread.performLaunchActivity{gap}(ActivityThread.java:3782)\n"
    "  at android.os.Handler.dispatchMessage{gap}(Handler.java:107)\n"
    "  at com.android.internal.os.ZygoteInit.main{gap}(ZygoteInit.java:1101)\n"
    "Caused by{colon} kotlin.UninitializedPropertyAccessException: lateinit property bar has not been initialized\n"
    "  at com.zackratos.ultimatebarx.UltimateBarXManager.getContext{gap}(UltimateBarXManager.kt:35)\n"
    "  at com.zackratos.ultimatebarx.core.CoreKt.updateStatusBarView{gap}(Core.kt:137)\n"
)


def test_android_consoles_layouts_read_as_the_jvms():
    # Google Play Console prints a blank before a frame's parenthesis (zackratos/UltimateBarX's report),
    # Crashlytics "Caused by X" without the colon (openhab/openhab-android's): the same chain as logcat's.
    logcat = _ACTIVITY.format(gap="", colon=":")
    play = _ACTIVITY.format(gap=" ", colon=":")
    crashlytics = _ACTIVITY.format(gap="", colon="")
    assert traces.parse(play).format == "jvm"
    signed = [_sign(text) for text in (logcat, play, crashlytics)]
    assert signed[0].crash_type == "kotlin.UninitializedPropertyAccessException"
    assert signed[0].frames[0] == "com.zackratos.ultimatebarx.UltimateBarXManager.getContext"
    assert len({signature.digest for signature in signed}) == 1
    # Android's main loop and activity launcher are every main-thread crash's frames, never the crash's.
    assert not any(frame.startswith(("android.", "com.android.")) for frame in signed[0].similarity_frames)


def test_a_go_stack_below_the_signal_line_is_read_without_its_panic_line():
    # projectdiscovery/httpx's report: "[signal SIGSEGV: …]" and the goroutine, the "panic:" line left out.
    stack = (
        "goroutine 26 [running]:\n"
        "github.com/projectdiscovery/httpx/runner.(*Runner).analyze(0xc0001a2240, 0xc0000714a0)\n"
        "\t/home/u/go/pkg/mod/github.com/projectdiscovery/httpx@v1.0.8/runner/runner.go:555 +0x173\n"
        "github.com/projectdiscovery/httpx/runner.(*Runner).process.func1(0xc000062140)\n"
        "\t/home/u/go/pkg/mod/github.com/projectdiscovery/httpx@v1.0.8/runner/runner.go:463 +0xe5\n"
    )
    signal = "[signal SIGSEGV: segmentation violation code=0x1 addr=0x8 pc=0x887433]\n"
    alone = _sign("Received an error below when running the command:\n\n" + signal + stack)
    assert alone.trace_format == "go" and alone.method == "stack"
    assert alone.frames[0] == "github.com/projectdiscovery/httpx/runner.Runner.analyze"
    # The whole panic finds it: the same frames, its type unknown in the cut one.
    whole = _sign("panic: runtime error: invalid memory address or nil pointer dereference\n" + signal + stack)
    score = similarity.similarity(similarity.shape_of(alone), similarity.shape_of(whole)).score
    assert score >= similarity.THRESHOLD


def test_color_eyres_compact_panic_report_is_read():
    # color-eyre's report in its compact form (a gitui user's): the banner, the message indented, then
    # "in <file>:<line>"; the same panic as std prints it keys alike.
    compact = "The application panicked (crashed).\n  attempt to subtract with overflow\nin src/app.rs:774\n"
    fields = (
        "The application panicked (crashed).\nMessage:  attempt to subtract with overflow\nLocation: src/app.rs:774\n"
    )
    std = "thread 'main' panicked at src/app.rs:774:21:\nattempt to subtract with overflow\n"
    signed = [_sign(text) for text in (compact, fields, std)]
    assert signed[0].frames == ("site src/app.rs:774",)
    assert signed[0].crash_type == "attempt to subtract with overflow"
    assert len({signature.digest for signature in signed}) == 1


def test_unitys_stack_is_read_as_dotnets():
    # aliessmael/Unity-Logs-Viewer#52 (the editor's console) and Baledin/FlyCasual#225 (Cloud
    # Diagnostics, a build without script paths): Unity's "Class.Method (args) (at path:line)" frames,
    # the engine's own ("UnityEngine.…") skipped as the runtime's are.
    console = (
        "NullReferenceException: Object reference not set to an instance of an object\n"
        "Ship.GenericShip.GetCenter () (at Assets/Scripts/Ship/GenericShip.cs:412)\n"
        "TokensChangePanel.Update () (at Assets/Scripts/UI/TokensChangePanel.cs:37)\n"
        "UnityEngine.Debug:Log (object)\n"
    )
    cloud = (
        "UnityEngine.Bindings.ThrowHelper.ThrowNullReferenceException (System.Object obj) "
        "(at <557fec70fa22493aa8454566f5e6c832>:0)\n"
        "UnityEngine.GameObject.get_transform () (at <557fec70fa22493aa8454566f5e6c832>:0)\n"
        "Ship.GenericShip.GetCenter () (at <8165dfe94de34e78986cd70d2e1682dc>:0)\n"
        "TokensChangePanel.Update () (at <8165dfe94de34e78986cd70d2e1682dc>:0)\n"
    )
    signed = _sign(console)
    assert signed.trace_format == "dotnet" and signed.crash_type == "NullReferenceException"
    assert signed.frames[:2] == ("Ship.GenericShip.GetCenter", "TokensChangePanel.Update")
    assert _sign(cloud).frames[:2] == signed.frames[:2]
    # A function and its arguments alone, without Unity's marks, are any language's (Zig's "f (@a..b:3)").
    zig = "os.abort (@9e8749..9e87e5:3)\nSema.zirFunc (@Sema.zirFunc:500)\nSema.funcCommon (@Sema.funcCommon:689)\n"
    assert "Unity's stack read as .NET's" not in _sign(zig).repairs


def test_nodes_check_failure_is_keyed_by_its_assertion_and_function():
    # Node's CHECK, as gulp's and a build tool's users pasted it (two reports of one Node bug): the
    # process's name and pid, "file:line:function" without a blank, the assertion.
    def check(process: str, line: int, frames: str) -> str:
        return (
            f"{process}: ../src/node_contextify.cc:{line}:static void node::contextify::ContextifyScript::New("
            "const v8::FunctionCallbackInfo<v8::Value>&): Assertion `args[1]->IsString()' failed.\n" + frames
        )

    gulp = check("gulp[30297]", 628, " 1: node::Abort() [gulp]\n 2: 0x55acc570329b [gulp]\n")
    node = check("node[1738]", 649, " 1: 0xa02f90 node::Abort() [node]\n 2: 0xa0300e  [node]\n")
    assert _sign(gulp).frames[0] == "site New"
    assert _sign(gulp).digest == _sign(node).digest


_DJANGO_PAGE = (
    "Environment:\n\nRequest Method: GET\nRequest URL: http://127.0.0.1:8000/items/\n\nDjango Version: 3.2.5\n\n"
    "Traceback (most recent call last):\n"
    '  File "/home/u/.venv/lib/python3.9/site-packages/django/core/handlers/exception.py", line 47, in inner\n'
    "    response = get_response(request)\n"
    '  File "/home/u/.venv/lib/python3.9/site-packages/django/core/handlers/base.py", line 181, in _get_response\n'
    "    response = wrapped_callback(request, *callback_args, **callback_kwargs)\n"
    '  File "/home/u/shop/items/views.py", line 12, in item_list\n    first = items[0]\n\n'
    "Exception Type: IndexError at /items/\nException Value: list index out of range\n"
)
_ALONE = (
    'Traceback (most recent call last):\n  File "/srv/shop/items/views.py", line 12, in item_list\n'
    "    first = items[0]\nIndexError: list index out of range\n"
)


def test_djangos_debug_page_is_read_as_the_traceback_it_shows():
    # Django's copy-and-paste view (django/django#4412's form, v19): the exception below the frames as
    # "Exception Type: X at /url" and "Exception Value: …"; its request handlers are no frames.
    signed = _sign(_DJANGO_PAGE)
    assert (signed.trace_format, signed.crash_type, signed.message) == (
        "python",
        "IndexError",
        "list index out of range",
    )
    assert signed.digest == _sign(_ALONE).digest


def test_flasks_dispatch_is_no_frame():
    flask = _ALONE.replace(
        "Traceback (most recent call last):\n",
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/flask/app.py", line 2447, in wsgi_app\n'
        "    response = self.full_dispatch_request()\n"
        '  File "/usr/lib/python3/dist-packages/flask/app.py", line 1952, in full_dispatch_request\n'
        "    rv = self.handle_user_exception(e)\n"
        '  File "/usr/lib/python3/dist-packages/flask/app.py", line 1950, in full_dispatch_request\n'
        "    rv = self.dispatch_request()\n",
    )
    assert _sign(flask).digest == _sign(_ALONE).digest
