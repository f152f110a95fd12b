"""The shape of a reduced C program: one key for two reductions of one bug, two keys for two bugs."""

from __future__ import annotations

from engines.differential import cfeatures, culprit, shape

# gcc-11's pr100740 as C-Vise left it (docs/findings.md): the niter bug needs unsigned loops and a compare.
PR100740 = """unsigned a, b;
int main() {
  unsigned c = 0;
  for (a = 0; a < 2; a++)
    for (b = 0; b < 2; b++)
      if (++c < a) __builtin_abort ();
}
"""


def test_two_reductions_of_one_bug_share_a_shape_and_names_values_and_plumbing_do_not():
    first = '#include <stdio.h>\nint main(void) {\n  volatile int a4 = 711;\n  printf("%d\\n", a4 % 7);\n}\n'
    second = "int x = 90;\nint main() {\n  int y = x % 7;\n  if (y != 6) abort();\n  return 0;\n}\n"
    assert shape.shape_key(first, "output", ".c") == "output: %"
    # The comparison that shows the value is an operation too, as Python's kept index is.
    assert shape.shape_key(second, "output", ".c") == "output: != % if"
    assert cfeatures.c_features(PR100740) == {"for", "if", "<", "++", "type:unsigned"}


def test_operators_are_told_apart_by_what_comes_before_them():
    program = "int main() { int a = 3, *p = &a; return -a * *p - (a) - p[0] + s.f + q->g; }"
    assert cfeatures.c_features(program) == {
        "addr", "neg", "deref", "*", "-", "+", "subscript", "member", "->",
    }  # fmt: skip
    assert cfeatures.c_features("int main() { return a ? b - c : 3; }") == {"?", "-"}  # not a bit-field
    assert "bit-field" in cfeatures.c_features("struct S { unsigned f : 3; } s;\nint main() { return s.f; }")


def test_the_programs_own_functions_are_a_construct_and_library_calls_are_operations():
    program = 'static int f(int x) { return x; }\nint main() { printf("%d", f(2) + __builtin_clz(8)); }'
    assert cfeatures.c_features(program) == {"function", "+", "call:__builtin_clz"}
    # Comments, strings and directives are not code.
    assert cfeatures.c_features('#define X a<<3\nint main() { /* a % b */ puts("a + b"); }') == frozenset()


def test_text_that_is_no_program_or_too_long_has_no_shape():
    assert cfeatures.c_features("segmentation fault in a log line") is None
    answer = shape.answer("error: expected ';'", 0, 1, suffix=".c")
    assert answer["method"] == "none" and culprit.cause_key("gcc", answer) == ""
    assert cfeatures.c_features("{" + "x;" * (cfeatures.MAX_CHARS // 2)) is None
    operators = ["+", "-", "*", "/", "%", "&", "|", "^", "<", ">", "<<", ">>", "==", "!="]
    busy = "int main() {" + " ".join(f"a{op}b;" for op in operators) + "if(a)for(;;)while(b)do{}while(c);}"
    assert len(cfeatures.c_features(busy)) > shape.MAX_FEATURES
    assert shape.shape_key(busy, "output", ".c") == ""  # not reduced far enough to say what the bug needs


def test_hostile_text_gets_an_answer():
    # Unclosed comments, strings and parentheses, nested calls: read as far as they go, never an error.
    assert cfeatures.c_features("int main() { f(" * 10_000) == {"call:f"}
    assert cfeatures.c_features('{"' + "\\" * 100_000) == frozenset()
    assert cfeatures.c_features("{/*" + "*" * 100_000) == frozenset()
    assert cfeatures.c_features("{" + "a(" * 50_000) == {"call:a"}
