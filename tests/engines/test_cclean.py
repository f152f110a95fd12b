"""What C-Vise leaves of a Csmith program, cleaned up under a real interestingness test.

The residue (tests/data/cvise_residue.c) is shaped as C-Vise leaves Csmith programs: safe-math
wrappers nested in one another, the CRC checksum, Csmith's set-up calls and an unused flag. The
compiler under test is tests/data/planted/multi_gcc, whose -fgcse turns ``% 7`` into ``% 5``.
"""

from __future__ import annotations

from engines import sandbox
from engines.differential import compare, harness
from engines.differential.backends import Backend
from engines.differential.c import CSMITH_INCLUDE, undefined_behaviour
from engines.reduce import cclean
from tests.conftest import BASE_DIR

RESIDUE = (BASE_DIR / "tests" / "data" / "cvise_residue.c").read_text()
MULTI_GCC = str(BASE_DIR / "tests" / "data" / "planted" / "multi_gcc")


def _backend(name: str, compiler: str, level: str) -> Backend:
    command = (compiler, level, "-w", f"-I{CSMITH_INCLUDE}", "-o", "{binary}", "{source}")
    return Backend(name=name, compile=command, run=("{binary}",))


BACKENDS = [_backend("gcc-O0", "gcc", "-O0"), _backend("multi-O2", MULTI_GCC, "-O2")]


def _miscompiled(text: str) -> bool:
    """multi -O2 prints otherwise than gcc -O0, and the program has no undefined behaviour (as a bucket's test)."""
    limits = sandbox.Limits()
    verdict = compare.classify(harness.process(text, ".c", BACKENDS, limits), "gcc-O0")
    return verdict.outcomes.get("multi-O2") == "wrong_output" and not undefined_behaviour(text, limits)


def test_csmith_scaffolding_becomes_plain_c_that_still_shows_the_bug():
    assert _miscompiled(RESIDUE)
    cleaned, tests = cclean.clean(RESIDUE, _miscompiled)
    assert _miscompiled(cleaned) and 0 < tests <= 10
    assert "(int32_t)((int16_t)(g_17 * l_2) + (g_9 % 7))" in cleaned  # nested wrappers, typed casts kept
    assert 'printf("%llu\\n", (unsigned long long)(g_3));' in cleaned
    for gone in ("safe_", "transparent_crc", "crc32_gentab", "platform_main", "csmith.h", "print_hash_value"):
        assert gone not in cleaned, gone
    assert cleaned.startswith("#include <stdint.h>\n#include <stdio.h>\n") and len(cleaned) < len(RESIDUE)


def test_a_wrapper_whose_check_the_bug_needs_stays():
    # Without its wrapper, 9 + INT_MAX overflows: undefined behaviour, so the test refuses that candidate.
    kept = "l_2 = safe_add_func_int32_t_s_s(l_2, 2147483647);"
    program = RESIDUE.replace("int32_t l_2 = 9L;\n", f"int32_t l_2 = 9L;\n    {kept}\n")
    assert _miscompiled(program)
    cleaned, _ = cclean.clean(program, _miscompiled)
    assert _miscompiled(cleaned)
    assert kept in cleaned  # refused: it overflows without its check
    assert "(int32_t)((int16_t)(g_17 * l_2) + (g_9 % 7))" in cleaned  # the others still go


def test_sites_are_numbered_outermost_first_and_rewritten_one_at_a_time():
    text = "x = safe_add_func_int32_t_s_s(safe_unary_minus_func_int8_t_s(a), b[1]);"
    assert cclean.unwrap_safe_math(text) == ("x = (int32_t)((int8_t)(-a) + b[1]);", 2)
    assert cclean.unwrap_safe_math(text, {1})[0] == "x = safe_add_func_int32_t_s_s((int8_t)(-a), b[1]);"
    assert cclean.unwrap_safe_math(text, {0})[0] == "x = (int32_t)(safe_unary_minus_func_int8_t_s(a) + b[1]);"
    assert cclean.print_values('transparent_crc(g_1.f0, "g_1.f0", p);') == (
        'printf("%llu\\n", (unsigned long long)(g_1.f0));',
        1,
    )


def test_hostile_nesting_and_long_operands_are_left_alone_not_a_crash():
    nested = "x = " + "safe_add_func_int32_t_s_s(" * 1000 + "1" + ", 2)" * 1000 + ";\n"
    unwrapped, sites = cclean.unwrap_safe_math(nested)
    assert sites > cclean.MAX_DEPTH and unwrapped.startswith("x = (int32_t)(")  # the outer levels, no RecursionError
    long_operand = "x = safe_add_func_int32_t_s_s(" + "a." * 20_000 + "b, 1);\n"
    assert cclean.unwrap_safe_math(long_operand)[0].endswith(".b + 1);\n")
    # A program larger than the clean-up's limit is returned as it is, without a test.
    big = RESIDUE + "/*" + " " * cclean.MAX_SIZE + "*/\n"
    assert cclean.clean(big, _miscompiled) == (big, 0)


def test_a_main_that_returns_no_int_is_undefined_behaviour_not_a_miscompilation():
    # Its exit status is whatever the register held, different at every level: C-Vise drifts to it on any
    # wrong-code finding whose bug shows in the exit status.
    limits = sandbox.Limits()
    assert "main" in undefined_behaviour("void main() {}\n", limits)
    assert "no value" in undefined_behaviour("int main() { return; }\n", limits)
    assert undefined_behaviour("int main(void) { return 0; }\n", limits) == ""
