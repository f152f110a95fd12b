"""Crystal's exceptions (crashes.traces.crystal), on the Crystal compiler's own crashes (tests/data/dedup)."""

from __future__ import annotations

from crashes import traces
from crashes.traces import crystal
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign, sign_record
from tests.data.record_digests import dedup_records

RECORDS = dedup_records()


def test_the_exception_above_the_frames_and_the_frames_by_file_and_method():
    # crystal-lang/crystal#13720: "BUG: trying to downcast … (Exception)", then "from …cast.cr:521:5 in '…'".
    parsed = traces.parse(RECORDS["crystal-lang/crystal#13720"]["trace"])
    assert parsed.format == crystal.FORMAT
    assert parsed.crash_type.startswith("Exception: BUG: trying to downcast")
    signature = sign_record("crystal-lang/crystal#13720")
    assert signature.frames == ("cast.downcast_distinct", "cast.downcast:extern", "codegen.visit")
    # Another program's types in the message (crystal#15200's second report) keep another bucket.
    assert sign_record("crystal-lang/crystal#15200/c1").frames == signature.frames
    assert sign_record("crystal-lang/crystal#15200/c1").digest != signature.digest


def test_older_releases_frames_by_type_and_method_and_the_raise_helpers_skipped():
    # crystal-lang/crystal#10574: "from raise<NilAssertionError>:NoReturn", "from Nil#not_nil!:NoReturn", then the
    # compiler's "Crystal::ASTNode+@Crystal::ASTNode#transform<Crystal::CleanupTransformer>:Crystal::ASTNode+".
    parsed = traces.parse(RECORDS["crystal-lang/crystal#10574"]["trace"])
    assert parsed.crash_type == "NilAssertionError: Nil assertion failed"
    assert [frame.function for frame in parsed.frames][:2] == [
        "Crystal::CleanupTransformer#transform",
        "Crystal::ASTNode#transform",
    ]


def test_a_stack_pasted_without_its_exception_is_read_by_its_frames():
    # crystal-lang/crystal#13792: the frames alone, their indentation gone.
    signature = sign_record("crystal-lang/crystal#13792")
    assert signature.trace_format == crystal.FORMAT and signature.frames[0] == "call.visit"
    assert not crystal.recognize("I came from the store.\nfrom here on it works.\n")


def test_a_line_of_prose_starting_with_from_is_no_frame():
    text = "I built it from upstream.\n" + RECORDS["crystal-lang/crystal#13720"]["trace"]
    assert traces.parse(text).format == crystal.FORMAT
    assert crystal._frame("  from upstream") is None


def test_a_frame_or_an_exception_line_a_terminal_cut_is_joined_back():
    # At 120 columns: crystal-lang/crystal#14935's frame cut inside its quoted method
    # ("in 'codegen_fun:fun_module_info:is_fun_lite" / "ral:is_closure'"), and #13720's exception line
    # cut inside its last word, its class on the next line ("…GenericClassInstanceTyp" / "e) (Exception)").
    for record_id in ("crystal-lang/crystal#14935", "crystal-lang/crystal#13720"):
        text = record_trace(record_id)
        assert hard_wrap(text, 120) != text
        assert sign(hard_wrap(text, 120)).digest == sign(text).digest, record_id
    # A message of its own below a long line is not joined to it.
    text = "x" * 70 + "\nBoom (Exception)\n  from src/a.cr:1:1 in 'f'\n  from src/b.cr:2:1 in 'g'\n"
    assert traces.parse(text).crash_type == "Exception: Boom"
