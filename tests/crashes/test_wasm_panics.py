"""Rust panics in WebAssembly, as a browser's console shows the Error wasm-bindgen's panic hook threw
(signature v19): read as the panic std prints, by its site and the frames of the program's own code.

The fixtures (tests/traces/rust_wasm) are real reports from Ruffle's tracker: Chrome's stacks with the
old and new panic line, Firefox's "name@…:wasm-function[N]" frames. Every one was read before as a line of
text with the JavaScript glue's minified, per-build frames (W.n.wbg.__wbg_new_d258…) and each build's
symbol hashes: two builds never shared a bucket.
"""

from __future__ import annotations

from crashes import signatures
from tests.crashes.signing import sign
from tests.traces import ROOT


def _fixture(name: str) -> str:
    return (ROOT / "rust_wasm" / f"{name}.txt").read_text()


def test_chromes_stack_is_read_by_the_programs_frames():
    signed = sign(_fixture("wasm_chrome_old_form_no_script_object"), "ruffle")
    assert signed.trace_format == "rust"
    assert signed.frames == (
        "site core/src/avm1/activation.rs:404",
        "ruffle_core::display_object::edit_text::EditText::try_bind_text_field_variable",
    )


def test_the_new_panic_line_behind_the_errors_name_is_read():
    signed = sign(_fixture("wasm_chrome_new_form_verify_index"), "ruffle")
    assert signed.frames[0] == "site core/src/avm2/verify.rs:667"
    assert signed.frames[1] == "ruffle_core::avm2::activation::Activation::run_actions"


def test_firefoxs_frames_are_read_as_chromes():
    signed = sign(_fixture("wasm_firefox_copy_on_cpu"), "ruffle")
    assert signed.frames == ("site core/src/bitmap/bitmap_data.rs:604", "ruffle_core::bitmap::operations::copy_on_cpu")


def test_another_build_of_the_same_panic_is_the_same_bucket():
    # Another build: other glue names, other symbol hashes, another module id.
    text = _fixture("wasm_chrome_new_form_verify_index")
    rebuilt = (
        text.replace("J.n.wbg.__wbg_new_3a66822ed076951c", "W.n.wbg.__wbg_new_0123456789abcdef")
        .replace("wasm://wasm/038efe72", "wasm://wasm/0a1b2c3d")
        .replace("::h87755523850ece9e", "::h0000000000000001")
    )
    assert rebuilt != text
    assert sign(rebuilt, "ruffle").digest == sign(text, "ruffle").digest


def test_javascript_glue_and_unnamed_functions_are_no_frames():
    text = (
        "Error: panicked at src/lib.rs:10:5:\nboom in the renderer\n"
        "    at imports.wbg.__wbg_new_abc (https://example.org/app.js:1:1)\n"
        "    at wasm-function[42] (wasm://wasm/0011aabb:wasm-function[42]:0x10)\n"
        "    at app::render::draw::h0123456789abcdef (wasm://wasm/0011aabb:wasm-function[7]:0x20)\n"
    )
    signed = signatures.compute(kind="crash", trace_text=text, target="app")
    assert signed.frames == ("site src/lib.rs:10", "app::render::draw")
