"""Haskell programs' crashes (crashes.traces.haskell), on reports from GHC's, Elm's and PureScript's trackers.

The reports are in tests/data/dedup/cfamily.jsonl (GHC's GitLab and Trac: ghc:N, ghc-trac:N),
functional_compilers_dev.jsonl (elm/compiler, purescript/purescript) and haskell_tools_dev.jsonl (Agda,
ShellCheck, Taffybar), each with its source.
"""

from __future__ import annotations

from crashes import traces
from crashes.traces import haskell
from tests.crashes.pastes import hard_wrap
from tests.crashes.signing import record_trace, sign, sign_record


def test_a_ghc_panic_is_its_first_line_and_the_module_that_raised_it():
    # ghc:12925: pprPanic called in IfaceType, below two Outputable entries of the panic machinery.
    parsed = traces.parse(record_trace("ghc:12925"))
    assert (parsed.format, parsed.site) == (haskell.FORMAT, "IfaceType")
    assert parsed.crash_type == "Can't serialise IfaceTcTyVar"
    assert sign_record("ghc:12925", "ghc").frames == ("site IfaceType",)
    # GHC 9's layout ("<no location info>: error:", "GHC version 9.12.1:") and its GHC.Utils.Panic entry.
    newer = sign_record("ghc:25672", "ghc")
    assert (newer.crash_type, newer.frames) == ("refineFromInScope", ("site GHC.Core.Opt.Simplify.Env",))


def test_the_users_names_a_panic_prints_are_no_part_of_it():
    # ghc:12925's type variable, with another unique in another program; and ghc-trac:2378's first line,
    # which names the user's package and binding on the line itself (lookupVers1 <package>:<module> <name>).
    text = record_trace("ghc:12925")
    assert sign(text).digest == sign(text.replace("a_ary[sk:1]", "k_a1Uy[sk:2]")).digest
    old = record_trace("ghc-trac:2378")
    other = old.replace("language-c-test-0.2:Language.C.AST.Constants $cFlags{v}", "mypkg-1.0:Data.Thing $fShowT{v}")
    assert other != old
    assert sign(old).digest == sign(other).digest
    assert sign(old).crash_type == "lookupVersN ? ?"
    # Another panic's first line is another bug (ghc-trac:4003's tcIfaceGlobal, ghc-trac:7006's tyThingTyCon).
    assert len({sign_record(key).digest for key in ("ghc-trac:2378", "ghc-trac:4003", "ghc-trac:7006")}) == 3


def test_an_old_ghcs_assertion_is_its_file_and_line():
    # ghc-trac:4045 ("ASSERT failed! file compiler/typecheck/TcTyFuns.lhs line 318"), a look-alike of #4044:
    # its module (as the file names it) and the line.
    signature = sign_record("ghc-trac:4045", "ghc")
    assert (signature.crash_type, signature.frames) == ("ASSERT failed", ("site TcTyFuns:318",))


def test_a_programs_error_is_sited_past_its_own_crash_helper():
    # purescript/purescript#3118: internalError called in Linter.Imports, through PureScript's Crash module.
    signature = sign_record("purescript/purescript#3118", "purs")
    assert signature.trace_format == haskell.FORMAT
    assert signature.frames == ("site Language.PureScript.Linter.Imports:331",)


def test_a_librarys_stock_error_with_no_place_of_the_programs_names_no_bug():
    # elm/compiler#1916 and #2182: "Map.!: given key is not an element in the map", called in containers'
    # Data.Map.Internal and nowhere in Elm's code, reported for two different bugs (neither linked to the
    # other nor to #1851, which has the same line).
    first, second = sign_record("elm/compiler#1916", "elm"), sign_record("elm/compiler#2182", "elm")
    assert first.crash_type == second.crash_type == "unidentified crash"
    assert first.digest != second.digest


def test_a_runtimes_internal_error_is_its_message():
    # taffybar/taffybar#414: the runtime's "internal error: evacuate: strange closure type 0" in a program.
    parsed = traces.parse(record_trace("taffybar/taffybar#414"))
    assert (parsed.format, parsed.crash_type) == (haskell.FORMAT, "evacuate: strange closure type N")


def test_agdas_internal_error_is_its_location():
    # agda/agda#3202, #3542 and #3317 (all closed for #3199) at Serialise/Instances/Common.hs:178; #3199 quotes
    # the same error in the Emacs mode's Lisp string, its newlines escaped; #1843 (#1839's duplicate) under a
    # Markdown heading ("## Location of the error: …").
    same = [sign_record(key, "agda") for key in ("agda/agda#3199", "agda/agda#3202", "agda/agda#3542")]
    assert {signature.digest for signature in same} == {same[0].digest}
    assert same[0].frames == ("site Agda.TypeChecking.Serialise.Instances.Common:178",)
    assert sign_record("agda/agda#1839", "agda").digest == sign_record("agda/agda#1843", "agda").digest
    # #2592: ten lines above in the same file, another bug (the location was all that kept them apart: masked
    # as a path, every Agda report was one bucket).
    assert sign_record("agda/agda#2592", "agda").digest != same[0].digest


def test_a_failed_pattern_match_is_its_place():
    # koalaman/shellcheck#3479: "Non-exhaustive patterns in function checkCmd" in two releases, at two lines:
    # the function names the match. A lambda's or a case's failure is named by its line alone (#273, #2418).
    text = record_trace("koalaman/shellcheck#3479")
    first, second = (sign(part) for part in text.split("`v0.11.0-79-g764802b`:"))
    assert first.frames == second.frames == ("site ShellCheck.Analytics",)
    assert first.digest == second.digest
    lambda_failure = sign_record("koalaman/shellcheck#273")
    assert (lambda_failure.crash_type, lambda_failure.frames) == (
        "Non-exhaustive patterns in lambda",
        ("site ShellCheck.Analytics:1536",),
    )


def test_a_record_a_terminal_cut_is_joined_back():
    # Cut at 80 columns: Agda's location in its path (agda/agda#3202, and #3199's Lisp string), call-stack
    # entries in their module (ndmitchell/hlint#371, agda/agda#6758; haskell/cabal#6853 at 60 too), a failed
    # match on the blank before "in lambda" (koalaman/shellcheck#273): each is the report as pasted whole.
    for record_id, widths in (
        ("agda/agda#3202", (80,)),
        ("agda/agda#3199", (80,)),
        ("ndmitchell/hlint#371", (80, 120)),
        ("agda/agda#6758", (80, 120)),
        ("haskell/cabal#6853", (60, 80)),
        ("koalaman/shellcheck#273", (80,)),
    ):
        text = record_trace(record_id)
        for width in widths:
            assert hard_wrap(text, width) != text
            assert sign(hard_wrap(text, width)).digest == sign(text).digest, (record_id, width)
    # A whole failure's line is not joined to a label below it that a fence kept apart (shellcheck#3479).
    assert sign_record("koalaman/shellcheck#3479").crash_type == "Non-exhaustive patterns in function checkCmd"


def test_what_is_no_haskell_crash():
    # A sentence about a call, a Python traceback, and an entry whose place names no module.
    assert not haskell.recognize("The hook, called at startup, failed: see log\n")
    assert not haskell.recognize('Traceback (most recent call last):\n  File "a.py", line 1, in f\nValueError: x\n')
    assert not haskell.recognize("  error, called at src/A.hs:10:3\n")
    assert not haskell.recognize("ghc: panic! (the 'impossible' happened) is what I saw\n")
