"""Java frames as the JVM and its build tools print them (signature v19).

A Java 9+ frame names its class loader and module before its class where they have names:
"java.base/java.lang.Thread.run", and for a named loader without a module an empty part,
"app//org.gradle.X.run" (Gradle's and any launcher's application loader) or Fabric's "knot//"
(Timefall-Development/MCDungeonsArtifacts#46, a Minecraft mod's crash as posted: no frame was read
from it before).
"""

from __future__ import annotations

import pytest

from tests.crashes.signing import sign
from tests.traces import read_report

# Timefall-Development/MCDungeonsArtifacts#46 (https://github.com/Timefall-Development/MCDungeonsArtifacts/issues/46),
# its first frames as posted.
FABRIC = (
    'java.lang.NullPointerException: Cannot invoke "net.minecraft.class_1297.method_19538()" because "$$0" is null\n'
    "\tat knot//net.minecraft.class_1297.method_5858(class_1297.java:1579)\n"
    "\tat knot//chronosacaria.mcdar.goals.FollowSummonerGoal.method_6266(FollowSummonerGoal.java:41)\n"
    "\tat knot//net.minecraft.class_4135.method_6266(class_4135.java:27)\n"
    "\tat knot//net.minecraft.class_1355.method_6275(class_1355.java:85)\n"
)


@pytest.mark.parametrize("prefix", ["knot//", "app//", "TRANSFORMER/mcdar@1.2.3/", "java.base/"])
def test_a_frames_loader_and_module_are_no_part_of_its_function(prefix):
    signed = sign(FABRIC.replace("knot//", prefix))
    bare = sign(FABRIC.replace("knot//", ""))
    assert signed.frames == bare.frames
    assert signed.frames[:2] == (
        "net.minecraft.class_1297.method_5858",
        "chronosacaria.mcdar.goals.FollowSummonerGoal.method_6266",
    )


def test_minecrafts_crash_banner_gives_way_to_the_error_below_it():
    # AllTheMods/ATM-10#935's paste: the launcher's summary, a stock line, then the exception.
    text = (
        "The game crashed whilst unexpected error\n"
        'Error: java.lang.NullPointerException: Cannot invoke "com.google.gson.JsonElement.getAsDouble()" '
        'because the return value of "com.google.gson.JsonObject.get(String)" is null\n'
    )
    signed = sign(text)
    assert signed.crash_type == "java.lang.NullPointerException"
    # (Its "Error: " is how the launcher printed it, no part of what failed.)
    assert signed.message.startswith("java.lang.NullPointerException: Cannot invoke")


ASSERTED = (
    'Exception in thread "main" java.lang.AssertionError: assertion failed: duplicate attachment\n'
    "\tat {helper}\n"
    "\tat dotty.tools.dotc.util.Attachment$Container.pushAttachment(Attachment.scala:96)\n"
    "\tat dotty.tools.dotc.typer.Namer.recordSym(Namer.scala:94)\n"
    "\tat dotty.tools.dotc.typer.Namer.createTypeTree(Namer.scala:120)\n"
)


@pytest.mark.parametrize(
    "helper",
    [
        "scala.runtime.Scala3RunTime$.assertFailed(Scala3RunTime.scala:8)",
        "dotty.DottyPredef$.assertFail(DottyPredef.scala:17)",
        "scala.Predef$.assert(Predef.scala:223)",
    ],
)
def test_scalas_assert_helpers_are_no_frames(helper):
    # scala/scala3#9287 and #12393, one bug reported before and after the helper was renamed.
    signed = sign(ASSERTED.format(helper=helper))
    assert signed.frames[0] == "dotty.tools.dotc.util.Attachment$Container.pushAttachment"


def test_gradles_own_frames_are_no_frames():
    # trycatchx/RocketX#63 (kapt failing under Gradle): the task's exception with Gradle's executers below
    # it, which every failed task of every build prints: Gradle's frames name no bug, and the exception's
    # stock sentence ("Execution failed for task …") is no message of it.
    text = (
        "* Exception is:\n"
        "org.gradle.api.tasks.TaskExecutionException: Execution failed for task ':ft_setting_page:kaptDebugKotlin'.\n"
        "\tat org.gradle.api.internal.tasks.execution.ExecuteActionsTaskExecuter.lambda$executeIfValid$1"
        "(ExecuteActionsTaskExecuter.java:188)\n"
        "\tat org.gradle.internal.Try$Failure.ifSuccessfulOrElse(Try.java:282)\n"
        "\tat org.gradle.api.internal.tasks.execution.ExecuteActionsTaskExecuter.executeIfValid"
        "(ExecuteActionsTaskExecuter.java:186)\n"
    )
    signed = sign(text)
    assert signed.frames == ()
    assert signed.message == "org.gradle.api.tasks.TaskExecutionException"


def test_the_kotlin_root_cause_in_a_console_padded_to_its_width_is_read():
    # skydoves/compose-hotswan-issuetracker#7: Android Studio's build output pads each line with blanks to
    # its width, so the root cause's frame stands on the line after "was thrown at:" (v19).
    pad = " " * 40
    text = (
        f"org.jetbrains.kotlin.backend.common.BackendException: Backend Internal error: Exception during IR{pad}\n"
        f"lowering{pad}\n"
        f"File being compiled: /home/u/project/viewmodel/MyViewModel.kt{pad}\n"
        f"The root cause java.lang.IllegalArgumentException was thrown at:{pad}\n"
        f"org.jetbrains.kotlin.backend.common.lower.LateinitLowering.visitCall(LateinitLowering.kt:137){pad}\n"
        f"    at org.jetbrains.kotlin.backend.common.BackendException$Companion.report(BackendException.kt:31){pad}\n"
    )
    signed = sign(text)
    assert signed.crash_type == "java.lang.IllegalArgumentException"
    assert signed.frames == ("site org.jetbrains.kotlin.backend.common.lower.LateinitLowering.visitCall",)


def test_a_throwable_whose_name_ends_otherwise_is_read_by_its_place_above_the_stack():
    # KronicDeth/intellij-elixir's MissingErlangSdk (v19): a Throwable's class needs no "Exception" in its
    # name; the line right above the stack is its toString().
    text = (
        "org.elixir_lang.sdk.MissingErlangSdk: Erlang SDK is missing\n"
        "\tat org.elixir_lang.sdk.elixir.Type.ensureErlangSdk(Type.kt:120)\n"
        "\tat org.elixir_lang.Elixir.commandLine(Elixir.kt:40)\n"
    )
    signed = sign(text)
    assert (signed.crash_type, signed.message) == ("org.elixir_lang.sdk.MissingErlangSdk", "Erlang SDK is missing")


def test_the_kotlin_front_ends_expression_dispatch_and_gradles_plugin_are_no_frames():
    # kotest/kotest-intellij-plugin#242's form (v19): "Exception while analyzing expression" through the
    # front end's dispatcher and its timer, which every typed expression passes; the Kotlin Gradle plugin's
    # frames (sqldelight#4344's KotlinNativeLink) drive every compilation.
    text = (
        "java.lang.IllegalStateException: Unresolved reference in a lambda\n"
        "\tat org.jetbrains.kotlin.types.expressions.ExpressionTypingVisitorDispatcher.logOrThrowException("
        "ExpressionTypingVisitorDispatcher.java:246)\n"
        "\tat org.jetbrains.kotlin.util.PerformanceCounter.time(PerformanceCounter.kt:91)\n"
        "\tat io.kotest.plugin.intellij.psi.CallsKt.extractStringArgument(calls.kt:55)\n"
        "\tat org.jetbrains.kotlin.gradle.tasks.KotlinNativeLink.compile(KotlinNativeTasks.kt:1016)\n"
        "\tat io.kotest.plugin.intellij.styles.FunSpecStyle.test(FunSpecStyle.kt:40)\n"
    )
    assert sign(text).frames == (
        "io.kotest.plugin.intellij.psi.CallsKt.extractStringArgument",
        "io.kotest.plugin.intellij.styles.FunSpecStyle.test",
    )


def test_a_toolkits_check_that_raises_is_no_frame_of_the_bug():
    # dbeaver/dbeaver#16572 and #21730, two bugs: SWT's "Widget is disposed" is raised by Widget.checkWidget and
    # SWT.error for every caller that touched a disposed widget; the caller says which bug.
    one = sign(read_report("v21/swt_widget_disposed_dbeaver_16572"), "dbeaver/dbeaver")
    other = sign(read_report("v21/swt_widget_disposed_dbeaver_21730"), "dbeaver/dbeaver")
    assert not any(frame.startswith("org.eclipse.swt.SWT.") for frame in one.frames)
    assert one.digest != other.digest
    assert "org.jkiss.dbeaver.ui.preferences.PrefPageConfirmations.saveEditorValue" in one.frames


def test_the_jdk_as_androids_desugaring_ships_it_is_the_jdk():
    # libre-tube/LibreTube#3668 (a debug build: "j$.nio.file.spi.FileSystemProvider$VivifiedWrapper") and #3379 (a
    # release build, R8 renaming it "j$.nio.file.spi.a.x"), one bug: the app's own frame below is the crash's.
    debug = sign(read_report("v21/desugared_jdk_debug_libretube_3668"), "libre-tube/LibreTube")
    release = sign(read_report("v21/desugared_jdk_minified_libretube_3379"), "libre-tube/LibreTube")
    assert debug.frames[0] == release.frames[0] == "com.github.libretube.ui.adapters.DownloadsAdapter.onBindViewHolder"
