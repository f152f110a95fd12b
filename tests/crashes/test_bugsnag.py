"""Bugsnag's issues as its GitHub integration files them (crashes.traces.bugsnag), on real reports (tests/traces/v20).

SQLDelight's IntelliJ plugin files every error it catches as "## Error in SQL Delight IntelliJ Plugin": before
this reader, that heading was the key of all of them, ten bugs in one bucket. sqldelight/sqldelight#4586 is a
duplicate of #4457 (the same PluginException at another line of the IDE's ComponentManagerImpl); #2624 is
another bug; #1958 another still.
"""

from __future__ import annotations

from crashes import traces
from tests.crashes.signing import sign
from tests.traces import read_report


def _fixture(name: str) -> str:
    return read_report(f"v20/{name}", "https://github.com/sqldelight/sqldelight/issues/")


def test_the_error_its_message_and_its_stack_are_read():
    parsed = traces.parse(_fixture("bugsnag_compile_sqldelight_1958"))
    assert (parsed.format, parsed.language) == ("jvm", "jvm")
    assert parsed.crash_type == "java.lang.IllegalStateException"
    assert parsed.message.startswith("Failed to compile SqlCompoundSelectStmtImpl")
    assert parsed.frames[0].function == "com.squareup.sqldelight.core.compiler.SqlDelightCompilerKt.tryWithElement"
    assert (parsed.frames[0].file, parsed.frames[0].line) == ("SqlDelightCompiler.kt", 226)


def test_the_apps_heading_is_no_identity():
    one, again = (
        sign(_fixture("bugsnag_plugin_exception_sqldelight_4457")),
        sign(_fixture("bugsnag_plugin_exception_sqldelight_4586")),
    )
    other, third = (
        sign(_fixture("bugsnag_short_name_sqldelight_2624")),
        sign(_fixture("bugsnag_compile_sqldelight_1958")),
    )
    assert one.digest == again.digest
    assert len({one.digest, other.digest, third.digest}) == 3
    assert all("SQL Delight" not in signed.message for signed in (one, other, third))


def test_a_reported_jvm_error_is_the_stack_java_prints():
    text = _fixture("bugsnag_compile_sqldelight_1958")
    frames = [line.strip().split(" - ", 1) for line in text.split("## Stacktrace", 1)[1].splitlines() if " - " in line]
    printed = "java.lang.IllegalStateException: Failed to compile\n" + "".join(
        f"\tat {function}({place})\n" for place, function in frames
    )
    assert sign(printed).digest == sign(text).digest
