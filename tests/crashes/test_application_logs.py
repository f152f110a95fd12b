"""Application crashes as their logs and runtimes print them (signature v20), on real reports (tests/traces/v20).

NLog's layout ("2022-06-01 11:31:00.1033|ERROR|AppUnhandledException|…") quoted with or without its
date is one line (files-community/Files#8759, #9310). Windows' event log says "The process was terminated
due to an unhandled exception" of every .NET crash (Flow-Launcher/Flow.Launcher#357). An Android log tag
("E/class org.schabi.newpipe.report.ErrorActivity: …") is no exception (TeamNewPipe/NewPipeExtractor#251),
and R8's lambdas are named by one build's hash (TeamNewPipe/NewPipe#10833). A class a launcher could not
find is the bug (PrismLauncher/PrismLauncher#2245, #4826, #4929 against #4473). tokio's JoinError passes a
task's panic on by its message (meilisearch/meilisearch#5547, a duplicate of #4247).
"""

from __future__ import annotations

from crashes import similarity, traces
from crashes.signatures.unparsed import identity_line
from tests.crashes.signing import sign, sign_record
from tests.traces import read_report


def _fixture(name: str) -> str:
    return read_report(f"v20/{name}")


def test_nlogs_time_and_level_are_no_part_of_the_line():
    dated = sign(_fixture("nlog_dated_files_9310"), "files")
    undated = sign(_fixture("nlog_time_only_files_8759"), "files")
    assert dated.message == undated.message == "AppUnhandledException|The parameter is incorrect"
    assert dated.digest == undated.digest


def test_the_event_logs_notice_names_no_bug():
    signed = sign(_fixture("event_viewer_flow_launcher_357"), "flow")
    assert "process was terminated" not in signed.message
    assert "OperationCanceledException" in signed.message


def test_an_android_log_tag_is_no_exception():
    signed = sign(_fixture("logcat_tag_error_activity_newpipe_251"), "newpipe")
    assert signed.crash_type.endswith("YoutubeStreamExtractor$DecryptException")


def test_r8s_lambda_names_carry_no_build_hash():
    text = _fixture("r8_lambda_newpipe_10833")
    assert "$r8$lambda$" in text and "$$ExternalSyntheticLambda" in text
    signed = sign(text, "newpipe")
    assert not any("$r8$" in frame or "ExternalSynthetic" in frame for frame in signed.similarity_frames)
    rebuilt = sign(text.replace("$r8$lambda$zTWALft3TUabC8jelCR2F7daRCg", "$r8$lambda$Q1w2E3r4T5y6U7i8O9p0"), "newpipe")
    assert rebuilt.digest == signed.digest


def test_the_class_a_launcher_could_not_find_is_the_bug():
    minecraft = [sign(_fixture(f"class_not_found_prism_{n}"), "prism") for n in (2245, 4826, 4929)]
    forge = sign(_fixture("class_not_found_prism_4473"), "prism")
    assert len({signed.digest for signed in minecraft}) == 1
    assert forge.digest != minecraft[0].digest
    # The fuzzy stage does not join them either: another name is another crash.
    score = similarity.similarity(similarity.shape_of(forge), similarity.shape_of(minecraft[0])).score
    assert score < similarity.THRESHOLD


def test_androids_note_on_where_a_class_was_loaded_from_is_no_part_of_the_name():
    # InsertKoinIO/koin#1188 and #1216: one NoSuchMethodError, the apps' install paths differ.
    assert sign_record("InsertKoinIO/koin#1188").digest == sign_record("InsertKoinIO/koin#1216").digest


def test_a_tasks_panic_passed_on_by_tokio_is_the_panic():
    passed_on = sign(_fixture("tokio_join_error_meilisearch_5547"), "meilisearch")
    panicked = sign(_fixture("assertion_panic_meilisearch_4247"), "meilisearch")
    assert passed_on.crash_type == panicked.crash_type
    score = similarity.similarity(similarity.shape_of(passed_on), similarity.shape_of(panicked)).score
    assert score >= similarity.THRESHOLD


def test_a_crash_handlers_banner_is_no_message():
    # hashicorp/terraform#33977: "!!!!!!!!!!!!!!!!!!!!!!!!!!! TERRAFORM CRASH !!!!!!!!!!!!!!!!!!!!!!!!!!!!" right
    # above the goroutine it printed.
    signed = sign_record("hashicorp/terraform#33977/c1")
    assert "TERRAFORM CRASH" not in signed.crash_type
    assert signed.frames[0] == "github.com/zclconf/go-cty/cty.Value.assertUnmarked"


def test_an_editors_line_numbers_are_taken_off():
    # etcd-io/etcd#13509: the panic pasted from Vim with `:set number` ("  1 panic: tocommit(216) is out of range").
    text = _fixture("line_numbers_etcd_13509")
    parsed = traces.parse(text)
    assert parsed.format == "go" and parsed.crash_type.startswith("tocommit(N) is out of range")
    assert parsed.frames[0].function.startswith("go.uber.org/zap/zapcore.")
    assert "line numbers removed" in sign(text, "etcd").repairs


def test_frames_numbered_from_the_margin_are_no_line_numbers():
    # A macOS stack pasted from frame 0 ("0   libsystem_kernel.dylib  0x… __pthread_kill + 8"): its numbers stay.
    assert "line numbers removed" not in sign_record("swiftlang/swift#85116").repairs


def test_jenkins_timestamps_are_a_log_prefix():
    # helm/helm#6023: "02:38:22  panic: runtime error: …" on every line of a Jenkins console.
    signed = sign(_fixture("jenkins_timestamps_helm_6023"), "helm")
    assert signed.trace_format == "go" and signed.frames[0] == "main.upgradeCmd.run"


def test_binders_rethrow_of_a_services_exception_is_no_frame():
    # mozilla-mobile/fenix#18238: Parcel.createException/readException and the AIDL proxy rethrow in the app
    # what the system service threw; the app's call below them is where it went wrong.
    signed = sign(_fixture("binder_parcel_fenix_18238"), "fenix")
    assert not any("Parcel" in frame or "$Stub$Proxy" in frame for frame in signed.frames)
    # And Android's platform is its standard library, as the JDK's java.* is: the app's own frame keys it.
    assert signed.frames[0].startswith("org.mozilla.fenix.perf.StartupReportFullyDrawn")


def test_androids_and_r8s_frame_locations_are_the_jvms():
    # libre-tube/LibreTube#7936 ("(Unknown Source:383)") and tuskyapp/Tusky#2970 ("(SourceFile:5)", R8's
    # renamed files) were read as .NET frames, whose format they are not.
    for name in ("unknown_source_line_libretube_7936", "r8_sourcefile_tusky_2970"):
        parsed = traces.parse(_fixture(name))
        assert (parsed.format, parsed.crash_type) == ("jvm", "java.lang.NullPointerException")


def test_a_stack_pasted_as_inline_code_keeps_its_exception():
    # libre-tube/LibreTube#3747: "`java.lang.NullPointerException" … "`".
    assert traces.parse(_fixture("inline_code_stack_libretube_3747")).crash_type == "java.lang.NullPointerException"


def test_the_http2_servers_log_of_a_recovered_panic_is_the_panics_line():
    # juanfont/headscale#1883: "… 2024/04/17 14:21:55 http2: panic serving 127.0.0.1:52794: runtime error: …".
    parsed = traces.parse(_fixture("http2_panic_serving_headscale_1883"))
    assert (parsed.format, parsed.crash_type) == (
        "go",
        "runtime error: invalid memory address or nil pointer dereference",
    )


def test_gos_own_time_format_is_a_log_prefix():
    # tailscale/tailscale#13361: "2024-08-28 21:57:29.145783819 +0000 UTC: panic: *tstun.Wrapper is already set".
    signed = sign(_fixture("go_time_prefix_tailscale_13361"), "tailscale")
    assert signed.trace_format == "go" and signed.crash_type == "*tstun.Wrapper is already set"


def test_a_logs_informational_lines_name_no_bug():
    # pyinstaller/pyinstaller#2394: "155 INFO: UPX is not available." is printed by every PyInstaller build.
    # Its traceback was cut before the exception: nothing else names the crash, so it is a bucket of its own.
    signed = sign(_fixture("info_lines_pyinstaller_2394"), "pyinstaller")
    assert "no identifying line: a bucket of its own" in signed.repairs
    assert identity_line("155 INFO: UPX is not available.") == ""
    assert identity_line("155 ERROR: UPX is not available.") == "N ERROR: UPX is not available"


def test_the_kotlin_back_ends_driver_is_no_frame():
    # Kotlin/kotlinx.serialization#1191: below the root cause's wrapper, only the JVM back end's driver
    # (JvmBackendFacade.doGenerateFiles, KotlinCodegenFacade.compileCorrectFiles), which every back-end crash
    # passes: keyed on them, unrelated crashes shared a bucket; with the cause cut off, it is its own.
    signed = sign(_fixture("kotlin_backend_facade_serialization_1191"), "kotlinx.serialization")
    assert not any("JvmBackendFacade" in frame or "KotlinCodegenFacade" in frame for frame in signed.frames)
    assert "no identifying line: a bucket of its own" in signed.repairs


def test_a_go_dump_logged_behind_a_label_is_named_by_the_logged_message():
    # traefik/traefik#9251 and #9256 (one bug, fixed for v2.8.3): logrus's 'level=error msg="Error in Go routine:
    # runtime error: slice bounds out of range [2:1]"', then 'msg="Stack: goroutine 67 [running]:…"'.
    one, other = (
        sign(_fixture(name), "traefik")
        for name in ("logrus_stack_label_traefik_9251", "logrus_stack_label_traefik_9256")
    )
    assert one.crash_type.startswith("Error in Go routine: runtime error: slice bounds out of range")
    assert "Stack" not in one.crash_type and one.crash_type == other.crash_type
    # And a JSON record's "msg" (traefik/traefik#5755).
    assert sign(_fixture("json_log_stack_label_traefik_5755"), "traefik").crash_type.startswith("Error in Go routine:")


def test_zerologs_console_time_and_level_are_no_message():
    # derailed/k9s#1897: "9:16AM ERR Boom! runtime error: index out of range [0] with length 0", then
    # "9:16AM ERR goroutine 1 [running]:".
    signed = sign(_fixture("zerolog_console_k9s_1897"), "k9s")
    assert signed.crash_type.startswith("Boom! runtime error: index out of range")


def test_wasm_bindgens_glue_is_no_frame():
    # ruffle-rs/ruffle#14433 (a duplicate of #13974), Firefox's stack of Ruffle's WebAssembly build: below the
    # app's future, wasm_bindgen_futures' queue and wasm_bindgen's closure glue run whatever callback failed.
    signed = sign(_fixture("wasm_bindgen_glue_ruffle_14433"), "ruffle")
    assert not any("wasm_bindgen" in frame for frame in signed.similarity_frames)
    assert signed.similarity_frames[0].startswith("ruffle_core::loader::Loader::load_url_loader")


def test_an_exception_line_whose_type_ends_in_panic_names_the_crash():
    # vyperlang/vyper#3986 ("vyper.exceptions.CompilerPanic: tried to modify non-pointer type" alone) and #4665
    # (the same below "This is an unhandled internal compiler error. Please create an issue on Github…"),
    # one bug: the exception's line keys both, and the compiler's request for a report keys neither.
    alone = sign(_fixture("compiler_panic_vyper_3986"), "vyper")
    banner = sign(_fixture("compiler_panic_banner_vyper_4665"), "vyper")
    assert alone.message == banner.message == "vyper.exceptions.CompilerPanic: tried to modify non-pointer type"
    assert alone.digest == banner.digest


def test_a_compilers_request_for_the_report_names_no_bug():
    # gleam-lang/gleam#2599: "Please report this crash to … and include this error message with your report."
    signed = sign(_fixture("report_request_gleam_2599"), "gleam")
    assert "include this error message" not in signed.message
    assert identity_line("and include this error message with your report.") == ""
    assert identity_line("Error compiling: tests/customs/code.vy") == ""


def test_a_go_modules_major_version_is_no_part_of_a_frame():
    # go-task/task#338 (…/task/v2/internal/taskfile/read.Taskfile) and #361 (…/task/v3/…), one bug ("Yep").
    one, other = sign(_fixture("module_major_v2_task_338"), "task"), sign(_fixture("module_major_v3_task_361"), "task")
    assert not any("/v2/" in frame or "/v3/" in frame for frame in one.similarity_frames + other.similarity_frames)
    assert set(one.similarity_frames[:2]) & set(other.similarity_frames[:2])


def test_a_crash_whose_signal_was_not_printed_may_be_any_signals():
    # kiwix/kiwix-android#3661 (Google Play's tombstone, trimmed of its signal line: "unknown") and #4056 (the
    # user's copy, SIGSEGV), one bug: the fuzzy stage compares their frames.
    trimmed, whole = (
        sign(_fixture("tombstone_no_signal_kiwix_3661"), "kiwix"),
        sign(_fixture("tombstone_signal_kiwix_4056"), "kiwix"),
    )
    assert trimmed.crash_type != whole.crash_type
    score = similarity.similarity(similarity.shape_of(trimmed), similarity.shape_of(whole)).score
    assert score >= similarity.THRESHOLD


def test_line_numbers_are_taken_off_an_unfenced_paste_too():
    # The same etcd paste without its code fence: the numbers are read before any dedenting unpads them.
    text = "\n".join(_fixture("line_numbers_etcd_13509").splitlines()[1:-1])
    assert "line numbers removed" in sign(text, "etcd").repairs


def test_androids_wordings_of_a_missing_class_are_keyed_by_the_class():
    # Android's "Failed resolution of: Lkotlin/time/Duration;" and "Didn't find class \"x.Y\" on path:
    # DexPathList[[zip file \"/data/app/~~…==/…/base.apk\"]…]" (the path one install's).
    from crashes.signatures.v2 import _missing_name

    error = "java.lang.NoClassDefFoundError"
    assert _missing_name(error, "Failed resolution of: Lkotlin/time/Duration;") == "kotlin.time.Duration"
    assert _missing_name(error, "Failed resolution of: Lkotlin/collections/ArraysKt;") == "kotlin.collections.ArraysKt"
    path = 'Didn\'t find class "com.app.Foo" on path: DexPathList[[zip file "/data/app/~~{}==/com.app-{}==/base.apk"]]'
    assert _missing_name("java.lang.ClassNotFoundException", path.format("RAEJ", "jvqF")) == "com.app.Foo"
    assert _missing_name("java.lang.ClassNotFoundException", path.format("Zq9x", "Q0wA")) == "com.app.Foo"
