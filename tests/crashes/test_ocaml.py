"""OCaml's uncaught exceptions (crashes.traces.ocaml), on reports from OCaml's, Rocq's and Haxe's trackers.

The reports are in tests/data/dedup/functional_compilers_dev.jsonl.
"""

from __future__ import annotations

from crashes import traces
from crashes.traces import ocaml
from tests.crashes.signing import record_trace, sign, sign_record


def test_an_exception_is_keyed_by_its_backtraces_files_past_the_standard_library():
    # ocaml/ocaml#7928: "Fatal error: exception Invalid_argument("index out of bounds")", raised in
    # translmod.ml through list.ml (the standard library's, no frame).
    parsed = traces.parse(record_trace("ocaml/ocaml#7928"))
    assert (parsed.format, parsed.crash_type) == (ocaml.FORMAT, 'Invalid_argument("index out of bounds")')
    assert [frame.function for frame in parsed.frames[:3]] == ["translmod.ml", "translmod.ml", "translmod.ml"]
    # The stock failure of an index names no bug: #8769 and #7170 raised it elsewhere (each fixed apart).
    digests = {sign_record(record_id, "ocaml").digest for record_id in ("ocaml/ocaml#7928", "ocaml/ocaml#8769")}
    assert len(digests) == 2


def test_a_rocq_anomaly_is_the_exception_it_wraps_wherever_it_was_printed():
    # rocq-prover/rocq#17071 (coqtop's anomaly) and #18506, closed as its duplicate, which quotes the anomaly
    # inside a sentence: `Anomaly "Uncaught exception Failure("List.skipn")."`.
    first, quoted = sign_record("rocq-prover/rocq#17071", "rocq"), sign_record("rocq-prover/rocq#18506", "rocq")
    assert first.crash_type == quoted.crash_type == 'Failure("List.skipn")'
    assert first.digest == quoted.digest


def test_a_failed_assert_is_its_file_and_line():
    # #18307 and its duplicates #18401 and #18567: "File "kernel/safe_typing.ml", line 462, characters 2-8:
    # Assertion failed." on one line or below "Error:" and "Anomaly" on lines of their own.
    ids = ("rocq-prover/rocq#18307", "rocq-prover/rocq#18401", "rocq-prover/rocq#18567")
    signatures = [sign_record(record_id, "rocq") for record_id in ids]
    assert {signature.digest for signature in signatures} == {signatures[0].digest}
    assert signatures[0].frames == ("site safe_typing.ml:462",)
    # HaxeFoundation/haxe#11432 and #8307: Haxe (an OCaml program) failing two different asserts.
    assert (
        sign_record("HaxeFoundation/haxe#11432", "haxe").digest
        != sign_record("HaxeFoundation/haxe#8307", "haxe").digest
    )


def test_functions_named_by_ocaml_414_key_as_the_older_files_do():
    head = 'Fatal error: exception Failure("x")\n'
    old = head + 'Raised at file "typing/ctype.ml", line 12, characters 1-2\n'
    new = head + 'Raised at Ctype.unify in file "typing/ctype.ml", line 40, characters 1-2\n'
    assert sign(old).digest == sign(new).digest


def test_python_tracebacks_and_prose_are_not_ocaml():
    assert not ocaml.recognize('  File "x.py", line 3, in f\n    return 1\nValueError: x\n')
    assert not ocaml.recognize("The Anomaly detector reported nothing.\n")


def test_ocaml_5s_line_ranges_and_closures_are_frames():
    # ocaml/ocaml#14842 (OCaml 5: "…, lines 3926-3928"), a look-alike of #7695: its frames now tell it apart.
    assert sign_record("ocaml/ocaml#14842", "ocaml").digest != sign_record("ocaml/ocaml#7695", "ocaml").digest
    text = 'Fatal error: exception Failure("x")\n'
    text += 'Raised at Foo.bar.(fun) in file "src/foo.ml", lines 10-12, characters 1-2\n'
    assert [frame.function for frame in traces.parse(text).frames] == ["foo.ml"]


def test_what_is_no_anomaly_or_crash_of_ocamls():
    # A program's own words starting with "Anomaly" above another format's trace; the compiler's error in the
    # user's program; "Anomaly" alone with no quoted message below.
    rust = "thread 'main' panicked at src/detector.rs:42:9:\nAnomaly detected in sensor frame 12\n"
    assert traces.parse(rust).format == "rust"
    assert not ocaml.recognize("Anomaly: unexpected state\n")
    assert not ocaml.recognize('File "main.ml", line 3, characters 4-9:\nError: This expression has type int\n')
    assert not ocaml.recognize("Anomaly\n#0  0x1 in parse_header (p=0x0) at parser.c:10\n")
    # Rocq's one-line anomaly with its request to report it, and older Coq's "Anomaly: …. Please report."
    one_line = 'Error: Anomaly "Uncaught exception Not_found." Please report at http://coq.inria.fr/bugs/.\n'
    assert (
        traces.parse(one_line).crash_type
        == traces.parse("Anomaly: Uncaught exception Not_found. Please report.\n").crash_type
        == "Not_found"
    )
    # Printexc spells out two of the runtime's exceptions: one exception either way.
    assert traces.parse("Fatal error: exception Stack overflow\n").crash_type == "Stack_overflow"


def test_an_exception_printed_quoted_or_as_an_s_expression_is_named():
    # caffeinelabs/motoko#2599 (js_of_ocaml's quoted form) and nuscr/nuscr#99 (Base's s-expression), v19.
    quoted = sign(
        'Fatal error: exception "Assert_failure mo_idl/idl_to_mo.ml:106:9"\n'
        'Raised at file "mo_idl/idl_to_mo.ml", line 106, characters 9-21\n'
        'Called from file "pipeline/pipeline.ml", line 345, characters 14-61\n'
    )
    assert (quoted.crash_type, quoted.frames[0]) == ("Assertion failed", "site idl_to_mo.ml:106")
    base = sign(
        'Fatal error: exception (Not_found_s "List.find_exn: not found")\n'
        'Raised at file "src/list.ml", line 251, characters 12-27\n'
        'Called from file "lib/lib.ml", line 95, characters 4-131\n'
    )
    assert base.crash_type.startswith("Not_found_s")
