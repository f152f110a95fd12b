"""Rust panics as panic hooks and newer std print them, on real reports of tests/data/dedup.

color-eyre's and color-backtrace's hook (Foundry's reports, rust_apps_dev3.jsonl) prints the panic
as "The application panicked (crashed)." with ``Message:`` and ``Location:`` fields; before
signature v14 no reader took it, and each report was keyed on its first lines. Rust 1.84 renamed
std's ``rust_panic_with_hook`` to ``panic_with_hook``, above which the hook's own frames are
printed (rustfmt#7023, rustc_ices_dev3.jsonl). The sources are each record's ``source``.
"""

from __future__ import annotations

from crashes.frames import normalize_function
from crashes.traces import parse
from crashes.traces.text import mask_message
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign, sign_record
from tests.traces import read_report


def test_color_eyres_panic_report_is_read_as_the_panic_std_prints():
    signature = sign_record("foundry-rs/foundry#4913")
    assert signature.trace_format == "rust"
    assert signature.crash_type == "checksum not found"
    # A git dependency's workspace member names the crate, as the registry does.
    assert signature.frames[0] == "site ethers-solc/src/compile/mod.rs:463"
    # The same crash printed by std's own hook: one bucket.
    std_print = (
        "thread 'main' panicked at /home/u/.cargo/git/checkouts/ethers-rs-c3a7c0a0ae0fe6be/a69036f/"
        "ethers-solc/src/compile/mod.rs:463:40:\nchecksum not found\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
    )
    assert sign(std_print).digest == signature.digest


def test_one_hooks_panic_at_two_lines_is_two_bugs_and_a_fence_after_the_location_is_no_part_of_it():
    # svm-rs's "checksum not available" for solc 0.8.13 (lib.rs:175, its fence closing on the line)
    # and for 0.8.14 (lib.rs:197): separate releases, separate fixes.
    older, newer = sign_record("foundry-rs/foundry#993"), sign_record("foundry-rs/foundry#1648")
    assert older.frames == ("site src/lib.rs:175",)
    assert newer.frames == ("site src/lib.rs:197",)
    assert older.digest != newer.digest
    assert older.crash_type == newer.crash_type == mask_message('checksum not available: "0.8.13"', limit=160)


def test_a_stripped_binarys_frames_under_color_backtrace_name_nothing():
    # "1: __mh_execute_header<unknown>": every address of a stripped macOS binary, its hash unknown.
    parsed = parse(record_trace("foundry-rs/foundry#6306"))
    assert parsed.site == "ethers-solc/src/compile/mod.rs:463"
    assert "__mh_execute_header" in {frame.function for frame in parsed.frames}
    signature = sign_record("foundry-rs/foundry#6306")
    assert signature.frames == ("site ethers-solc/src/compile/mod.rs:463",)
    assert signature.similarity_frames == ()


def test_a_banner_without_its_fields_is_no_panic():
    text = "The application panicked (crashed).\nPlease see the log.\n"
    assert parse(text) is None or parse(text).format != "rust"


def test_the_hooks_frames_above_panic_with_hook_are_no_frames():
    # rustfmt#7023 (Rust 1.89): frames 0-5 are the ICE hook printing the backtrace.
    signature = sign_record("rust-lang/rustfmt#7023")
    assert not any("DisplayBacktrace" in frame or "write_fmt" in frame for frame in signature.frames)
    assert signature.frames[0] == "site src/source_map.rs:31"


def test_a_message_whose_quote_runs_past_its_line_keys_as_a_closed_one():
    # "bad span: `macro_rules!`: `macro_rules ! say_hello {" (the quoted code goes on for lines) and
    # "bad span: `macro_rules!`: `macro_rules ! x { }": one bug, fixed by rustfmt#6990.
    assert sign_record("rust-lang/rustfmt#6985").digest == sign_record("rust-lang/rustfmt#7023").digest
    assert mask_message("bad span: `macro_rules!`: `macro_rules ! say_hello {") == "bad span: '?': '?'"
    # An apostrophe is no quote.
    assert mask_message("can't find crate for `core`") == "can't find crate for '?'"


def test_a_cpp_conversion_operators_type_is_part_of_its_name():
    # UPX's ASan reports (upx#314, native_fuzz_dev3.jsonl): "LE32::operator unsigned int() const" was read
    # as a function "int" returning LE32::operator unsigned.
    assert normalize_function("LE32::operator unsigned int() const", "native") == "LE32::operator unsigned int"
    assert normalize_function("void foo::bar(int)", "native") == "foo::bar"
    assert normalize_function("bool operator==(A const&, B const&)", "native") == "operator=="
    assert "LE32::operator unsigned int" in sign_record("upx/upx#314").similarity_frames


def test_a_panics_or_an_ices_location_a_terminal_cut_is_joined_back():
    # At 80 columns, cut inside the location's numbers: a rustc panic's ("…/diagnostic_builder.rs:775:2" /
    # "1:", facebookexperimental/MIRAI#1234) and an ICE's before its message (flux-rs/flux#1109, #1532). At
    # 120: a panic's path cut before its location (gfx-rs/wgpu#6414's git checkout, the registry path of
    # bytecodealliance/wasmtime#8904), the old form's line number (ogham/exa#776), an ICE's cut on the blank
    # after its location (flux-rs/flux#752).
    for record_id, width in (
        ("facebookexperimental/MIRAI#1234", 80),
        ("flux-rs/flux#1109", 80),
        ("flux-rs/flux#1532", 80),
        ("gfx-rs/wgpu#6414", 120),
        ("bytecodealliance/wasmtime#8904", 120),
        ("ogham/exa#776", 120),
        ("flux-rs/flux#752", 120),
    ):
        text = record_trace(record_id)
        assert hard_wrap(text, width) != text
        assert sign(hard_wrap(text, width)).digest == sign(text).digest, (record_id, width)
    # A whole old-form panic is not joined to a frame's number below it.
    old = "thread 'main' panicked at 'boom', src/main.rs:5:3\n1: 0x55 - main\n"
    assert sign(old).frames[0] == "site src/main.rs:5"


def test_color_eyres_panic_section_with_its_line_after_a_comma_is_read():
    # sxyazi/yazi#475 (v19): "in …/ratatui-0.25.0/src/buffer.rs, line 229" below the indented message.
    text = (
        "The application panicked (crashed).\n"
        "  index out of bounds: the len is 19459 but the index is 19673\n"
        "in /home/max/.cargo/registry/src/index.crates.io-6f17d22bba15001f/ratatui-0.25.0/src/buffer.rs, line 229\n"
        "thread: main\n"
    )
    as_std = (
        "thread 'main' panicked at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/ratatui-0.25.0/src/"
        "buffer.rs:229:9:\nindex out of bounds: the len is 3 but the index is 7\n"
    )
    assert sign(text).frames == ("site ratatui/src/buffer.rs:229",)
    assert sign(text).digest == sign(as_std).digest


def test_miettes_panic_report_is_read_as_the_panic_std_prints():
    # nushell/nushell#13118 (miette's hook: "× Main thread panicked.", "├─▶ at FILE:L:C", "╰─▶ MESSAGE"), v19.
    signed = sign_record("nushell/nushell#13118")
    assert signed.frames[0] == "site nu-protocol/src/engine/engine_state.rs:1050"
    assert signed.crash_type == "internal error: missing span"
    # esp-rs/espflash#938's form: behind "Error:" and a log's lines, in a dependency from Cargo's registry.
    text = (
        "[2025-08-10T14:41:39Z INFO ] Using flash stub\n"
        "Error:   × Main thread panicked.\n"
        "  ├─▶ at /home/d/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serialport-4.7.2/src/posix/"
        "tty.rs:499:9\n"
        "  ╰─▶ assertion failed: termios2.c_ospeed == termios2.c_ispeed\n"
        "  help: set the `RUST_BACKTRACE=1` environment variable to display a backtrace.\n"
    )
    assert sign(text).frames == ("site serialport/src/posix/tty.rs:499",)


def test_biomes_crash_report_is_read_as_the_panic_std_prints():
    # biomejs/biome#6540, a duplicate of #6382 (v19): "Source Location: FILE:L:C", "Thread Name:", "Message:".
    text = (
        "```block\nSource Location: crates/biome_service/src/settings.rs:78:14\n"
        "Thread Name: tokio-runtime-worker\nMessage: You must have at least one workspace.\n```\n"
    )
    signed = sign(text, "biome")
    assert signed.frames == ("site biome_service/src/settings.rs:78",)
    assert signed.crash_type == "You must have at least one workspace."


def test_a_panic_logged_on_one_line_with_its_message_is_read():
    # meilisearch/meilisearch#5228 and tauri-apps/tauri#11120 (v19): a logger's field holding the new-form
    # panic line with its message on the same line.
    logged = (
        "2024-12-27T10:00:00Z ERROR meilisearch: info=panicked at crates/milli/src/update/new/indexer/mod.rs:586:29: "
        "called `Option::unwrap()` on a `None` value\n"
    )
    as_std = (
        "thread 'indexing-thread' panicked at crates/milli/src/update/new/indexer/mod.rs:586:29:\n"
        "called `Option::unwrap()` on a `None` value\n"
    )
    assert sign(logged).frames == ("site milli/src/update/new/indexer/mod.rs:586",)
    assert sign(logged).digest == sign(as_std).digest


def test_qdrants_panic_report_with_its_file_unquoted_is_read():
    # qdrant/qdrant#4131 (v19): "Panic occurred in file lib/…/segment_builder.rs at line 139: MESSAGE".
    text = (
        "ERROR qdrant::startup: Panic backtrace:\n"
        "ERROR qdrant::startup: Panic occurred in file lib/segment/src/segment_constructor/segment_builder.rs at "
        "line 139: Failed to update index: out of memory\n"
    )
    signed = sign(text)
    assert signed.frames == ("site segment/src/segment_constructor/segment_builder.rs:139",)


def test_human_panics_multi_line_and_quoted_cause_fields_are_read():
    # JuliaLang/juliaup#624 (two comments quoting its report, one bug) and #422 (another bug at another line):
    # the cause is a multi-line TOML string ("cause = '''" and the message on the line below it).
    first = sign(read_report("v21/human_panic_multiline_cause_juliaup_624_c1"), "JuliaLang/juliaup")
    second = sign(read_report("v21/human_panic_multiline_cause_juliaup_630_c1"), "JuliaLang/juliaup")
    other = sign(read_report("v21/human_panic_multiline_cause_juliaup_422"), "JuliaLang/juliaup")
    assert first.crash_type.endswith("Failed to open file <path>")
    assert first.digest == second.digest != other.digest
    # Newer releases quote the keys ('"cause" = "assertion failed: !version.is_empty()"').
    quoted = sign(read_report("v21/human_panic_quoted_keys_juliaup_1068_c1"), "JuliaLang/juliaup")
    assert quoted.crash_type == "assertion failed: !version.is_empty()"
    # A one-line cause ends at its closing quote, and the backtrace's closing quotes are no part of its last frame.
    closing = sign(read_report("v21/human_panic_backtrace_closing_juliaup_709"), "JuliaLang/juliaup")
    assert closing.crash_type.endswith("TryFromIntError(())")
    assert not any('"""' in frame for frame in closing.similarity_frames)


def test_human_panic_2s_explanation_and_a_cause_holding_the_new_panic_line():
    # vercel/turborepo#11527: '"explanation" = """' / "file '…/execution.rs' at line 356" and a cause that holds
    # std's own "panicked at …:356:14:" with the message below it, the string closing on the message's line.
    key = sign(read_report("v21/human_panic_v2_turborepo_11527"), "vercel/turborepo")
    assert key.crash_type == "summary state thread finished: SendError { .. }"
    assert key.frames[0] == "site turborepo-run-summary/src/execution.rs:356"


def test_color_eyres_fields_parted_by_blank_lines_are_one_report():
    # noir-lang/noir#1021 pasted the report as prose: a Markdown renderer parts its lines with blank ones.
    # #1146, fenced, is the same bug (closed as a duplicate of #615): one bucket.
    prose = sign(read_report("v22/eyre_fields_as_paragraphs_noir_1021"), "noir-lang/noir")
    fenced = sign(read_report("v22/eyre_fields_noir_1146"), "noir-lang/noir")
    assert prose.frames == fenced.frames == ("site common/src/crs.rs:37",)
    assert prose.digest == fenced.digest


def test_a_windows_path_with_blanks_is_the_panics_location():
    # wasm-pack#667's cargo lives under "C:\Program Files\Rust\.cargo"; the same reporter's wasm-bindgen#1613,
    # under "C:\Users\Mike\.cargo", is the same walrus assertion.
    spaced = sign(read_report("v22/rust_panic_windows_path_wasm_pack_667"), "wasm-bindgen")
    plain = sign(read_report("v22/rust_panic_windows_path_wasm_bindgen_1613"), "wasm-bindgen")
    assert spaced.crash_type == "assertion failed: !self.dead.contains(&id)"
    assert spaced.frames == plain.frames == ("site walrus/src/tombstone_arena.rs:139",)
    assert spaced.digest == plain.digest


def test_a_hooks_labelled_location_and_the_message_indented_below_it():
    # The Gleam compiler's hook (gleam-lang/gleam#2599): "Panic: compiler-core/src/exhaustiveness.rs:434", then
    # the message indented, under its own banner and a build log's DEBUG line.
    signed = sign(read_report("v20/report_request_gleam_2599"), "gleam-lang/gleam")
    assert signed.trace_format == "rust"
    assert signed.frames[0] == "site compiler-core/src/exhaustiveness.rs:434"
    assert signed.crash_type.startswith("Unexpected pattern Tuple { elements: [Id { idx: N }")
    # A label without a Rust source file is no panic's location.
    assert sign("Panic: the build failed\n    at step three of the deploy\n", "t").trace_format != "rust"


def test_any_hooks_words_with_a_rust_location_on_or_below_them_are_the_panic():
    # Neovide's hook (neovide/neovide#1804): "Neovide panicked with the message '…'. (File: src/bridge/events.rs;
    # Line: 321, Column: 17)", under log lines. #1798 printed the same panic through std's hook: one bucket.
    hooked = sign(read_report("v22/hook_words_neovide_1804"), "neovide/neovide")
    plain = sign(read_report("v22/std_panic_neovide_1798"), "neovide/neovide")
    assert hooked.frames[0] == plain.frames[0] == "site src/bridge/events.rs:321"
    assert hooked.message == "index out of bounds: the len is 1 but the index is 1"
    assert hooked.digest == plain.digest
    # A hook printing the PanicInfo's parts with {:?} (tauri-apps/tao#1140): the location below, its backslashes
    # doubled.
    debug = sign(read_report("v22/hook_debug_print_tao_1140"), "tauri-apps/tao")
    assert debug.frames[0] == "site tao/src/platform_impl/windows/event_loop.rs:2345"
    assert debug.message == "assertion failed: flush_paint_messages(None, &subclass_input.event_loop_runner)"


def test_a_frame_named_for_panics_is_no_hooks_report():
    # hsivonen/encoding_rs#49, a backtrace without its panic line: "__rust_maybe_catch_panic" and, below it,
    # "at src/libpanic_unwind/lib.rs:86" are std's, not a panic's words and place.
    signed = sign_record("hsivonen/encoding_rs#49")
    assert not any("libpanic_unwind" in frame for frame in signed.frames)
    # A drive written with a slash ("C:/Users/…/cargo\registry\…\src\parse/mod.rs:76") is a location too
    # (rust-lang/rustfmt#753).
    assert sign_record("rust-lang/rustfmt#753").frames[0] == "site syntex_syntax/src/parse/mod.rs:76"


def test_a_hooks_own_words_before_std_s_new_form_leave_the_message_below():
    # tauri-apps/tao#1345, a crash reporter's "RustPanic: panicked at C:\…\runner.rs:246:18:", and
    # screenpipe/screenpipe#2495's "panic on thread 'main' at ~\.cargo\…\runner.rs:245:18:": the message is the
    # next line, as std prints it, never the hook's words or the thread's name.
    expected = "either event handler is re-entrant (likely), or no event handler is registered (very unlikely)"
    for name in ("v22/hook_reporter_prefix_tao_1345", "v22/hook_thread_words_screenpipe_2495"):
        signed = sign(read_report(name), "t")
        assert signed.message == expected, name
        assert (
            signed.frames[0].startswith("site ") and "platform_impl/windows/event_loop/runner.rs:24" in signed.frames[0]
        )
