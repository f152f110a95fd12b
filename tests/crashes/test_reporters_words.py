"""The reporter's words around a paste name no crash: the lines they pasted do (crashes.signatures.unparsed)."""

from __future__ import annotations

from crashes import similarity
from tests.crashes.signing import sign, sign_record
from tests.traces import read_report


def test_a_line_pasted_as_code_is_the_identity_before_the_prose_around_it():
    # leanprover/lean4#780, #776 and #792 (maintainers: "Duplicate of #776", "Another instance of #776"): one PANIC
    # line, pasted in a fence under "Opening the following file in an editor generates a panic:" or "Another
    # instance of #776. The following file causes the server to panic:", or with no sentence at all.
    alone, *introduced = (
        sign(read_report(f"v21/{name}"), "leanprover/lean4")
        for name in ("fenced_lean4_780", "fenced_after_lead_in_lean4_776", "fenced_after_lead_in_lean4_792")
    )
    assert alone.message.startswith("PANIC at Lean.Server.Snapshots.Snapshot.infoTree")
    assert {key.digest for key in introduced} == {alone.digest}


def test_a_comment_saying_it_saw_the_same_error_is_keyed_by_what_it_pasted():
    # gleam-lang/gleam#1778: a comment ("I've observed the same error. After creating a fresh project, … the LSP
    # crashes with an error:") above the compiler's report, with Gleam's apology ("This is a bug in the Gleam
    # compiler, sorry!") in it.
    key = sign(read_report("v21/fenced_after_first_person_gleam_1778_c1"), "gleam-lang/gleam")
    assert key.message == "Unexpected unbound var when serialising module metadata"


def test_a_line_ending_in_a_colon_introduces_the_line_below_it():
    # OpenTTD/OpenTTD#3360 (imported from its old tracker, quoted): "In r18425, the attached savegame will
    # assert exactly in 15 days with the following error:" above the assertion.
    key = sign(read_report("v21/lead_in_above_assertion_openttd_3360"), "OpenTTD/OpenTTD")
    assert key.message.startswith("Assertion failed at line N of <path>: this->occupied < this->length")
    # ClickHouse/ClickHouse#13281 and #17747, one bug: "Unchecked Expected<T> contained error:" is LLVM's
    # preamble to the error it found, which the next line names.
    first, second = sign_record("ClickHouse/ClickHouse#13281"), sign_record("ClickHouse/ClickHouse#17747")
    assert first.message == second.message == "Symbol not found: memset"


def test_a_lead_in_with_nothing_below_it_is_still_read_and_advice_is_no_identity():
    # Nothing below the colon that says what failed: the line is all there is.
    assert sign("panic: the worker crashed with this error:\n\n(see the log)\n").message.startswith("panic: the worker")
    # Verilator's words on any crash of it, its advice and apology, are no identity: two unrelated crashes that
    # print only them stay apart.
    one = "%Error: Verilator internal fault, sorry. Suggest trying --debug --gdbbt\n%Error: Command Failed a.v\n"
    other = "%Error: Verilator internal fault, sorry. Suggest trying --debug --gdbbt\n%Error: Command Failed b.v\n"
    assert sign(one).digest != sign(other).digest


def test_gos_stock_panics_name_a_misuse_not_a_bug():
    # vitessio/vitess#14933 pastes only "panic: sync: WaitGroup is reused before previous Wait has returned"; #3628,
    # another bug (fixed apart), printed the same panic with its stack. Go's sync package says it of any misuse of
    # a WaitGroup: the message alone must not join the other report's bucket.
    alone = similarity.shape_of(sign(read_report("v21/go_stock_panic_vitess_14933"), "vitessio/vitess"))
    stacked = similarity.shape_of(sign(read_report("v21/go_stock_panic_with_stack_vitess_3628"), "vitessio/vitess"))
    assert "WaitGroup" in stacked.crash_type
    assert similarity.similarity(alone, stacked).score < similarity.THRESHOLD


def test_a_crash_logs_own_head_tail_and_advice_name_no_bug():
    # OpenTTD/OpenTTD#329: the assertion dialog's own words ("An assertion has failed and OpenTTD must quit.",
    # "You should report this error the OpenTTD developers…") are in every such dialog.
    key = sign(read_report("v21/crash_dialog_stock_lines_openttd_329"), "OpenTTD/OpenTTD")
    assert "must quit" not in key.crash_type and "report this error" not in key.crash_type
    for stock in (
        "*** End of OpenTTD Crash Report ***",
        "Crash at: Tue Oct 30 03:40:21 2012",
        "Crashlog for Cemu 2.0-61 (experimental)",
    ):
        # Two crashes whose only line in common is the log's own stay apart.
        assert sign(f"{stock}\nfoo failed\n").digest != sign(f"{stock}\nbar failed\n").digest, stock


def test_a_gdb_plugins_context_on_every_stop_names_no_bug():
    # HDFGroup/hdf5#1319: PEDA's registers under "Program received signal SIGSEGV"; its flags register line
    # ("EFLAGS: 0x10283 (CARRY parity adjust zero SIGN trap INTERRUPT direction overflow)") was the key.
    key = sign(read_report("v21/peda_context_hdf5_1319"), "HDFGroup/hdf5")
    assert not key.crash_type.startswith("EFLAGS")


def test_a_message_quoted_whole_is_the_message():
    # OpenTTD/OpenTTD#3405 and #3457 (both closed as duplicates of #3422): one pasted the dialog's assertion as is,
    # the other wrapped it in double quotes.
    plain = sign(read_report("v21/assertion_unquoted_openttd_3405"), "OpenTTD/OpenTTD")
    quoted = sign(read_report("v21/assertion_quoted_openttd_3457"), "OpenTTD/OpenTTD")
    assert plain.message.startswith("Assertion failed at line N of <path>: v->time_counter != N")
    assert quoted.digest == plain.digest


def test_visual_studios_access_violation_notice_names_no_bug():
    # yuzu-emu/yuzu#3891: "Unhandled exception at 0x00007FF7C29FA463 in yuzu.exe: 0xC0000005: Access violation
    # reading location 0x000001DF4480E788. occurred" (Visual Studio's words, quoted): any crash of the program.
    key = sign(read_report("v21/vs_unhandled_exception_yuzu_3891"), "yuzu-emu/yuzu")
    assert "Access violation" not in key.crash_type
    one = "Unhandled exception at 0x00007FF7C29FA463 in yuzu.exe: 0xC0000005: Access violation reading location 0x0."
    assert sign(f"{one}\nin the shader cache\n").digest != sign(f"{one}\nin the audio renderer\n").digest


def test_an_applications_crash_banner_names_no_bug():
    # bottlesdevs/Bottles#676 and #511, two bugs: Bottles opens every crash report with "This crash report was
    # generated by Bottles."; nicotine-plus#1356's dialog with "Nicotine+ has encountered a critical error and needs
    # to exit." Such a line is the same over every crash of the program.
    one = sign(read_report("v21/crash_reporter_banner_bottles_676"), "bottlesdevs/Bottles")
    other = sign(read_report("v21/crash_reporter_banner_bottles_511"), "bottlesdevs/Bottles")
    assert one.digest != other.digest
    dialog = sign(read_report("v21/crash_dialog_banner_nicotine_plus_1356"), "nicotine-plus/nicotine-plus")
    assert "encountered a critical error" not in dialog.crash_type


def test_a_tools_line_outside_the_fences_is_kept_over_their_text():
    # transmission/transmission#2727 (a comment): the assertion is printed above a fence holding the crash
    # report's frame lines; the line that says what failed is the assertion.
    assert sign_record("transmission/transmission#2727/c1").message.startswith("assertion failed: bit_count_")
    # A one-line fence ("```clang: … failed.```") opens no block: the blocks around it pair as written.
    text = (
        "The frobnicator crashes every time on the widget.\n```boom: one```\nWith this config\nand that one\n"
        "```\nerror: the frobnicator rejected the widget handle\n```\n"
    )
    assert sign(text).message.startswith("the frobnicator rejected")


def test_a_quoted_json_line_keeps_its_quotes_and_gos_recovered_stock_panic_is_stock():
    assert sign('"error": "the frobnicator failed at x.c"\n').message.startswith('"error"')
    one = "panic: send on closed channel [recovered]\n\nwhile handling job 12\n"
    assert sign(one).digest != sign(one.replace("job 12", "the upload")).digest


def test_a_go_frame_line_of_before_1_0_is_no_identity():
    # fluffle/goirc#6 (2012): "panic: runtime error: send on closed channel", stock, above frames printed as
    # "runtime.panicstring+0xa3 /home/raylu/go/src/pkg/runtime/runtime.c:116": any such panic's frames.
    key = sign_record("fluffle/goirc#6", "fluffle/goirc")
    assert "panicstring" not in key.crash_type and "send on closed channel" not in key.crash_type


def test_warnings_banners_and_a_frames_source_line_are_no_identity():
    # PyCQA/isort#2077: pip's "DEPRECATION: --no-binary currently disables reading from the cache…", printed on any
    # install; davidhalter/jedi#1717: IPython's "UserWarning: IPython parent '/' is not a writable location".
    for name, target, words in (
        ("pip_deprecation_warning_isort_2077", "PyCQA/isort", "DEPRECATION"),
        ("python_user_warning_jedi_1717", "davidhalter/jedi", "UserWarning"),
        # Nuitka/Nuitka#3645: the tool's banner ("Nuitka: Version '2.6' on Python 3.12 …").
        ("version_banner_nuitka_3645", "Nuitka/Nuitka", "Version"),
        # Instagram/LibCST#1061: the source line under a frame ("and not self.orelse._safe_to_use_with_word_…(")
        # of a traceback cut before its exception line.
        ("python_source_line_libcst_1061", "Instagram/LibCST", "_safe_to_use_with_word_operator"),
    ):
        assert words not in sign(read_report(f"v21/{name}"), target).crash_type, name


def test_gradles_failure_block_is_keyed_by_its_innermost_cause():
    # detekt/detekt#6235 (a duplicate of #6198): under "* What went wrong:", the task that failed and, a "> " deeper,
    # why: "detekt was compiled with Kotlin 1.9.0 but is currently running with 1.9.10".
    key = sign(read_report("v21/gradle_what_went_wrong_detekt_6235"), "detekt/detekt")
    assert key.crash_type == "detekt was compiled with Kotlin N.N but is currently running with N.N"
    # The Exec task's own failure ("Process 'command …' finished with non-zero exit value 1") names no bug.
    block = "* What went wrong:\nExecution failed for task ':lint'.\n"
    block += "> Process 'command '/usr/bin/ktlint'' finished with non-zero exit value 1\n"
    one = block + "\n* Try:\n> Run with --stacktrace\nwhile linting the api module\n"
    assert sign(one).digest != sign(one.replace("the api module", "the web module")).digest
