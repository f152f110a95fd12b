"""GCC's internal compiler errors that name a kind of failure, not a place (signature v18).

GCC's bugmasters tell ICEs apart by ``in FUNCTION, at FILE`` and the
backtrace. Some ICE lines name neither: the system killing the compiler,
GCC's diagnostics failing while reporting, its IL checkers
(``verify_gimple failed``) ending in the same checker and pass-manager
frames whatever they caught. The texts here are written as GCC prints
them; osrm-backend#1190 is a real report (tests/data/dedup).
"""

from __future__ import annotations

from crashes import signatures
from crashes.traces import gcc
from tests.crashes.signing import sign_record as _sign

_ADVICE = "Please submit a full bug report,\nwith preprocessed source if appropriate.\n"


def _sign_text(text: str, target: str = "t"):
    return signatures.compute(kind="crash", trace_text=text, target=target)


def test_gccs_driver_on_a_killed_compiler_names_no_bug():
    # GCC 9 on: "c++: fatal error: Killed signal terminated program cc1plus"; and a signal's ICE naming
    # the program it killed, with no frames below.
    killed = "c++: fatal error: Killed signal terminated program cc1plus\ncompilation terminated.\n"
    assert _sign_text(killed, "one").digest != _sign_text(killed, "another").digest
    assert _sign_text(killed).message != "c++: fatal error: Killed signal terminated program ccNplus"
    segfault = "a.cc:1:1: internal compiler error: Segmentation fault (program cc1plus)\n" + _ADVICE
    assert "no identifying line: a bucket of its own" in _sign_text(segfault).repairs
    assert _sign_text(segfault, "one").digest != _sign_text(segfault, "another").digest


def test_a_compiler_the_system_killed_names_no_bug():
    # Project-OSRM/osrm-backend#1190: "g++: internal compiler error: Killed (program cc1plus)", the
    # kernel's out-of-memory killer; the corpus holds another project's (ginkgo#331) as a look-alike of
    # another cause. An ICE naming no place in GCC is no compiler bug two projects could share.
    osrm = _sign("Project-OSRM/osrm-backend#1190")
    assert "no identifying line: a bucket of its own" in osrm.repairs
    killed = "c++: internal compiler error: Killed (program cc1plus)\n" + _ADVICE
    assert _sign_text(killed, "one").digest != _sign_text(killed, "another").digest


def test_gccs_diagnostics_re_entered_are_told_apart_by_the_frames_below():
    def re_entered(frames: str) -> str:
        return "x.cc:3:10: internal compiler error: error reporting routines re-entered.\n" + frames + _ADVICE

    nodiscard = re_entered(
        "0x1c0f8a1 warning_at(unsigned int, int, char const*, ...)\n\t../../gcc/diagnostic.cc:1894\n"
        "0x7a1b2c maybe_warn_nodiscard(tree_node*, impl_conv_void)\n\t../../gcc/cp/cvt.cc:1083\n"
    )
    incomplete = re_entered(
        "0x9b1c2d cxx_incomplete_type_diagnostic(unsigned int, tree_node const*, tree_node const*, diagnostic_t)\n"
        "\t../../gcc/cp/typeck2.cc:291\n"
    )
    assert _sign_text(nodiscard).frames == ("warning_at", "maybe_warn_nodiscard")
    assert _sign_text(incomplete).frames == ("cxx_incomplete_type_diagnostic",)
    assert _sign_text(nodiscard).digest != _sign_text(incomplete).digest
    # With no frames, the line alone puts no two reports together, of one project or of two.
    alone = re_entered("")
    assert "no identifying line: a bucket of its own" in _sign_text(alone).repairs
    assert _sign_text(alone, "one").digest != _sign_text(alone, "another").digest


def _verifier(error: str, ice: str, stage: str) -> str:
    return (
        "a.c: In function 'f':\n"
        f"a.c:3:6: error: {error}\n"
        "long int\n\nint\n\n_1 = a_2(D) + b_3(D);\n"
        f"during GIMPLE pass: {stage}\n"
        f"a.c:3:6: internal compiler error: {ice}\n"
        "0x1234 verify_gimple_in_cfg(function*, bool)\n\t../../gcc/tree-cfg.cc:5521\n"
        "0x5678 execute_function_todo\n\t../../gcc/passes.cc:2091\n" + _ADVICE
    )


def test_an_il_checkers_ice_is_keyed_by_what_it_found_and_the_pass_that_left_it():
    mismatch = _verifier("type mismatch in binary expression", "verify_gimple failed", "vect")
    parsed = gcc.parse(mismatch)
    assert parsed.crash_type == (
        "internal compiler error: verify_gimple failed: type mismatch in binary expression (during GIMPLE pass: vect)"
    )
    one = _sign_text(mismatch)
    # Another pass's, or another finding in the same pass: other bugs, with the same two frames.
    other_pass = _sign_text(_verifier("type mismatch in binary expression", "verify_gimple failed", "fre"))
    other_finding = _sign_text(_verifier("invalid operand in unary operation", "verify_gimple failed", "vect"))
    assert one.frames == other_pass.frames == other_finding.frames
    assert len({one.digest, other_pass.digest, other_finding.digest}) == 3
    # What it quotes is what it found (the tree code), in either quotes GCC prints.
    mem_ref = _verifier("non-trivial conversion in 'mem_ref'", "verify_gimple failed", "vect")
    curly = _verifier("non-trivial conversion in \u2018mem_ref\u2019", "verify_gimple failed", "vect")
    constant = _verifier("non-trivial conversion in 'integer_cst'", "verify_gimple failed", "vect")
    assert _sign_text(mem_ref).digest == _sign_text(curly).digest != _sign_text(constant).digest
    # The same failure in another function of another program is the same bug.
    again = mismatch.replace("a.c", "kernel/sched.c").replace("'f'", "'update_curr'")
    assert _sign_text(again).digest == one.digest
    # An ICE that says where it failed keeps that as its identity, whatever error came above it.
    located = _verifier("type mismatch in binary expression", "in expand_expr_real_1, at expr.cc:10862", "expand")
    assert gcc.parse(located).crash_type == "internal compiler error: in expand_expr_real_1, at expr.cc"


# dolphin-emu/dolphin#9412 (https://github.com/dolphin-emu/dolphin/issues/9412), as posted: a release GCC's
# segfault, whose only frame is the C library's.
_SEGFAULT = (
    "../Source/Core/Common/Arm64Emitter.cpp: In member function "
    "‘void Arm64Gen::ARM64XEmitter::MOVI2RImpl(Arm64Gen::ARM64Reg, T)’:\n"
    "../Source/Core/Common/Arm64Emitter.cpp:2039:5: internal compiler error: Segmentation fault\n"
    "     MOVZ,\n     ^~~~\n"
    "0x7f99269d23 __libc_start_main\n\t../csu/libc-start.c:308\n"
)


def test_a_segfault_without_gccs_own_frames_is_keyed_by_the_function_it_was_compiling():
    # v19: the user's function is the input, so the key is the target's (a bucket of its own before).
    signed = signatures.compute(kind="crash", trace_text=_SEGFAULT, target="dolphin")
    assert signed.frames == ("input Arm64Gen::ARM64XEmitter::MOVI2RImpl",)
    moved = _SEGFAULT.replace("2039:5", "2051:5").replace("0x7f99269d23", "0x7f88001122")
    assert signatures.compute(kind="crash", trace_text=moved, target="dolphin").digest == signed.digest
    other = _SEGFAULT.replace("MOVI2RImpl", "ADDI2R")
    assert signatures.compute(kind="crash", trace_text=other, target="dolphin").digest != signed.digest
    assert signatures.compute(kind="crash", trace_text=_SEGFAULT, target="other").digest != signed.digest
