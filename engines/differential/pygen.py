"""A generator of random, deterministic, terminating Python programs, in the spirit of fuzz-d.

Generation is typed: a scope table maps every variable to its type (int,
str, bool, list of int, dict of str to int, set of int), and each
expression is drawn for the type its context needs, so programs run rather
than fail at the first operation. Reconditioning keeps every program
deterministic and finite:

- division and modulo go through ``_div``/``_mod`` (zero divisor: the
  dividend), indexing through ``_at`` (empty: 0, index taken modulo length);
- loops are over small ranges or copies of lists, and ``while`` loops carry
  a counter bound; functions never call themselves or later functions;
- sets and dicts are printed sorted; nothing prints ids, hashes, floats or
  the message of an exception the runtime raised (those differ between
  implementations, see ``KNOWN_DIFFERENCES``);
- the program ends by printing every global variable: the checksum.

Swarm testing: each program draws its own weights for the grammar's
features, so some programs are all loops, others all classes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engines.differential import generated
from engines.differential.generated import Program

# Semantic differences between the backends (CPython, CPython -O, PyPy,
# Cython) that are not bugs, and what the generator does about each.
KNOWN_DIFFERENCES = {
    "assert statements and __debug__": "removed by -O: the generator never writes assert or __debug__",
    "messages of built-in exceptions": "worded differently across implementations: only the generator's own "
    "raise messages are printed, built-in exceptions print their type only",
    "id(), hash() of str/bytes, object reprs with addresses": "differ per run and implementation: never printed",
    "set iteration order": "depends on hashing: sets are only printed and iterated sorted",
    "float repr and rounding of huge values": "the generator has no floats",
    "recursion limit and deep recursion": "no recursion: functions only call functions defined before them",
    "small-int and string interning (is)": "identity comparisons are never generated",
    "language level": "PyPy 7.3 is Python 3.9: no match statements, no 3.10+ syntax",
    "int to str of over 4300 digits": "refused by CPython 3.11, allowed by PyPy: integers stay far smaller "
    "(no repeated multiplication, expressions at most 3 deep)",
}

FEATURES = ("assign", "if", "for", "while", "function", "closure", "class", "try", "comprehension", "mutate")
TYPES = ("int", "str", "bool", "list", "dict", "set")
PREFIXES = {"int": "n", "str": "s", "bool": "b", "list": "l", "dict": "d", "set": "t"}
PRELUDE = """def _div(a, b):
    return a // b if b else a


def _mod(a, b):
    return a % b if b else a


def _at(items, i):
    return items[i % len(items)] if items else 0

"""
WORDS = ("alpha", "beta", "gamma", "x", "", "zz", "Hello", "a b", "42", "é")


@dataclass
class _Scope:
    variables: dict[str, str] = field(default_factory=dict)


class Generator:
    """One program per instance: ``Generator(rng).program()``."""

    MAX_STATEMENTS = 40
    MAX_DEPTH = 3  # of expressions
    MAX_NESTING = 3  # of blocks

    def __init__(self, rng: random.Random, weights: dict[str, float] | None = None):
        self.rng = rng
        self.weights = weights or swarm_weights(rng)
        self.lines: list[str] = []
        self.scopes: list[_Scope] = [_Scope()]
        self.function_scopes: list[int] = []  # index in scopes of each enclosing function's own scope
        self.functions: dict[str, list[str]] = {}  # name -> parameter types (all return int)
        self.classes: list[str] = []
        self.counter = 0
        self.statements = 0
        self.counts = dict.fromkeys(FEATURES, 0)

    # --- names and scopes -------------------------------------------------
    def _fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _comprehension_variable(self) -> str:
        """The variable of a comprehension about to be written (and counted)."""
        self.counts["comprehension"] += 1
        return self._fresh("v")

    def _visible(self, kind: str) -> list[str]:
        return [name for scope in self.scopes for name, t in scope.variables.items() if t == kind]

    def _emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    # --- expressions ----------------------------------------------------------
    def expr(self, kind: str, depth: int = 0) -> str:
        names = self._visible(kind)
        if names and self.rng.random() < 0.4:
            return self.rng.choice(names)
        if depth >= self.MAX_DEPTH:
            return self.literal(kind)
        return getattr(self, f"_expr_{kind}")(depth + 1)

    def literal(self, kind: str) -> str:
        rng = self.rng
        if kind == "int":
            return str(rng.choice((0, 1, -1, 2, 7, 10, 255, -128, 2**31, 10**20, rng.randint(-50, 50))))
        if kind == "str":
            return repr(rng.choice(WORDS))
        if kind == "bool":
            return rng.choice(("True", "False"))
        if kind == "list":
            return "[" + ", ".join(self.literal("int") for _ in range(rng.randint(0, 4))) + "]"
        if kind == "dict":
            items = {rng.choice(WORDS): self.literal("int") for _ in range(rng.randint(0, 3))}
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in items.items()) + "}"
        return (
            "{" + ", ".join(self.literal("int") for _ in range(rng.randint(1, 4))) + "}"
            if rng.random() < 0.8
            else "set()"
        )

    def _expr_int(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(12)
        if choice == 0:
            return f"({e('int', depth)} {rng.choice('+-*')} {e('int', depth)})"
        if choice == 1:
            return f"{rng.choice(('_div', '_mod'))}({e('int', depth)}, {e('int', depth)})"
        if choice == 2:
            return f"len({e(rng.choice(('str', 'list', 'dict', 'set')), depth)})"
        if choice == 3:
            return f"_at({e('list', depth)}, {e('int', depth)})"
        if choice == 4:
            return f"{e('dict', depth)}.get({e('str', depth)}, {e('int', depth)})"
        if choice == 5:
            return f"sum({e('list', depth)})"
        if choice == 6:
            return f"({e('int', depth)} if {e('bool', depth)} else {e('int', depth)})"
        if choice == 7 and self.functions:
            name = rng.choice(sorted(self.functions))
            return f"{name}({', '.join(e(t, depth) for t in self.functions[name])})"
        if choice == 8:
            return f"{rng.choice(('abs', 'int'))}({e('int', depth)})"
        if choice == 9:
            return f"{rng.choice(('min', 'max'))}({e('int', depth)}, {e('int', depth)})"
        if choice == 10 and self.weights["comprehension"]:
            v = self._comprehension_variable()
            return f"sum({v} * {e('int', depth)} for {v} in {e('list', depth)} if {v} % 2)"
        return f"(({e('int', depth)}) << 3) ^ {e('int', depth)}" if choice == 11 else self.literal("int")

    def _expr_str(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(8)
        if choice == 0:
            return f"({e('str', depth)} + {e('str', depth)})"
        if choice == 1:
            return f"str({e('int', depth)})"
        if choice == 2:
            return f"{e('str', depth)}[{e('int', depth)} % 5:{e('int', depth)} % 7]"
        if choice == 3:
            return f"{e('str', depth)}.{rng.choice(('upper', 'lower', 'strip', 'title', 'swapcase'))}()"
        if choice == 4:
            return f"{e('str', depth)}.replace({e('str', depth)}, {e('str', depth)})"
        if choice == 5:
            return f"'-'.join(str(x) for x in {e('list', depth)})"
        if choice == 6:
            return f"({e('str', depth)} * _mod({e('int', depth)}, 4))"
        return self.literal("str")

    def _expr_bool(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(5)
        if choice == 0:
            return f"({e('int', depth)} {rng.choice(('<', '<=', '==', '!=', '>', '>='))} {e('int', depth)})"
        if choice == 1:
            return f"({e('bool', depth)} {rng.choice(('and', 'or'))} {e('bool', depth)})"
        if choice == 2:
            return f"(not {e('bool', depth)})"
        if choice == 3:
            return f"({e('int', depth)} in {e(rng.choice(('list', 'set')), depth)})"
        return f"({e('str', depth)} in {e('str', depth)})"

    def _expr_list(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(5)
        if choice == 0 and self.weights["comprehension"]:
            v = self._comprehension_variable()
            return f"[{v} {rng.choice('+-*')} {e('int', depth)} for {v} in range(_mod({e('int', depth)}, 8))]"
        if choice == 1:
            return f"sorted({e(rng.choice(('list', 'set')), depth)})"
        if choice == 2:
            return f"{e('list', depth)}[{e('int', depth)} % 4:]"
        if choice == 3:
            return f"({e('list', depth)} + {e('list', depth)})"
        return self.literal("list")

    def _expr_dict(self, depth: int) -> str:
        if self.weights["comprehension"] and self.rng.random() < 0.4:
            v = self._comprehension_variable()
            return f"{{str({v}): {v} * {self.expr('int', depth)} for {v} in {self.expr('list', depth)}}}"
        return self.literal("dict")

    def _expr_set(self, depth: int) -> str:
        if self.weights["comprehension"] and self.rng.random() < 0.4:
            v = self._comprehension_variable()
            return f"{{{v} % 5 for {v} in {self.expr('list', depth)}}}"
        return self.literal("set")

    # --- statements --------------------------------------------------------
    def block(self, indent: int, size: int) -> None:
        """A nested block: names it binds are its own (a branch not taken binds nothing)."""
        self.scopes.append(_Scope())
        start = len(self.lines)
        for _ in range(size):
            if self.statements >= self.MAX_STATEMENTS:
                break
            self.statement(indent)
        if len(self.lines) == start:
            self._emit(indent, "pass")
        self.scopes.pop()

    def _rebindable(self, kind: str) -> list[str]:
        # Names the current function (or the module, at top level) may assign
        # to: rebinding a global inside a function would make it local there.
        first = self.function_scopes[-1] if self.function_scopes else 0
        return [n for scope in self.scopes[first:] for n, t in scope.variables.items() if t == kind]

    def statement(self, indent: int) -> None:
        self.statements += 1
        features = [f for f in FEATURES if self.weights[f] > 0]
        feature = self.rng.choices(features, [self.weights[f] for f in features])[0]
        # Deep nesting adds little but runtime: past a few levels, only simple statements.
        if indent >= self.MAX_NESTING and feature in ("if", "for", "while", "try", "function", "class", "closure"):
            feature = "assign"
        self.counts[feature] += 1
        getattr(self, f"_stmt_{feature}")(indent)

    def _stmt_assign(self, indent: int) -> None:
        kind = self.rng.choice(TYPES)
        names = self._rebindable("int")
        if kind == "int" and names and self.rng.random() < 0.3:
            self._emit(indent, f"{self.rng.choice(names)} {self.rng.choice(('+=', '-=', '^='))} {self.expr('int')}")
            return
        name = self._fresh(PREFIXES[kind])
        value = self.expr(kind)
        self.scopes[-1].variables[name] = kind
        self._emit(indent, f"{name} = {value}")

    def _stmt_comprehension(self, indent: int) -> None:
        kind = self.rng.choice(("list", "dict", "set"))
        name = self._fresh(PREFIXES[kind])
        value = getattr(self, f"_expr_{kind}")(1)
        self.scopes[-1].variables[name] = kind
        self._emit(indent, f"{name} = {value}")

    def _stmt_if(self, indent: int) -> None:
        self._emit(indent, f"if {self.expr('bool')}:")
        self.block(indent + 1, self.rng.randint(1, 3))
        if self.rng.random() < 0.5:
            self._emit(indent, "else:")
            self.block(indent + 1, self.rng.randint(1, 2))

    def _stmt_for(self, indent: int) -> None:
        v = self._fresh("i")
        source = f"range(_mod({self.expr('int')}, 6))" if self.rng.random() < 0.6 else f"list({self.expr('list')})[:6]"
        self._emit(indent, f"for {v} in {source}:")
        self.scopes.append(_Scope({v: "int"}))  # visible in the body only: the loop may not run
        self.block(indent + 1, self.rng.randint(1, 3))
        self.scopes.pop()

    def _stmt_while(self, indent: int) -> None:
        bound = self._fresh("w")
        self._emit(indent, f"{bound} = 0")
        self._emit(indent, f"while {self.expr('bool')} and {bound} < {self.rng.randint(1, 6)}:")
        self._emit(indent + 1, f"{bound} += 1")
        self.block(indent + 1, self.rng.randint(1, 3))

    def _function_body(self, indent: int, parameters: list[tuple[str, str]]) -> None:
        self.scopes.append(_Scope(dict(parameters)))
        self.function_scopes.append(len(self.scopes) - 1)
        for _ in range(self.rng.randint(1, 4)):
            if self.statements < self.MAX_STATEMENTS:
                self.statement(indent + 1)
        self._emit(indent + 1, f"return {self.expr('int')}")
        self.function_scopes.pop()
        self.scopes.pop()

    def _stmt_function(self, indent: int) -> None:
        if indent:
            return self._stmt_assign(indent)
        name = self._fresh("f")
        parameters = [(self._fresh("p"), self.rng.choice(TYPES)) for _ in range(self.rng.randint(0, 3))]
        self._emit(indent, f"def {name}({', '.join(p for p, _ in parameters)}):")
        self._function_body(indent, parameters)
        # Registered after its body: a function never calls itself.
        self.functions[name] = [t for _, t in parameters]
        return None

    def _stmt_closure(self, indent: int) -> None:
        outer, inner, captured = self._fresh("f"), self._fresh("g"), self._fresh("c")
        self._emit(indent, f"def {outer}({captured}):")
        self._emit(indent + 1, f"def {inner}(k):")
        self._emit(indent + 2, f"return {captured} * k + {self.rng.randint(-5, 5)}")
        self._emit(indent + 1, f"return {inner}")
        name = self._fresh("n")
        self._emit(indent, f"{name} = {outer}({self.expr('int')})({self.expr('int')})")
        self.scopes[-1].variables[name] = "int"

    def _stmt_class(self, indent: int) -> None:
        if indent:
            return self._stmt_assign(indent)
        cls, field_name = self._fresh("K"), self._fresh("a")
        self._emit(indent, f"class {cls}:")
        self._emit(indent + 1, "def __init__(self, value):")
        self._emit(indent + 2, f"self.{field_name} = value")
        self._emit(indent + 1, "def total(self, k):")
        self._emit(indent + 2, f"return self.{field_name} * k - {self.rng.randint(0, 9)}")
        name = self._fresh("n")
        self._emit(indent, f"{name} = {cls}({self.expr('int')}).total({self.expr('int')})")
        self.scopes[-1].variables[name] = "int"
        self.classes.append(cls)
        return None

    def _stmt_try(self, indent: int) -> None:
        name = self._fresh("s")
        self.scopes[-1].variables[name] = "str"
        self._emit(indent, f"{name} = 'none'")
        self._emit(indent, "try:")
        self._emit(indent + 1, f"if {self.expr('bool')}:")
        self._emit(indent + 2, f"raise ValueError({self.expr('str')})")
        self._emit(indent + 1, f"{name} = 'ok' + str({self.expr('list')}[{self.rng.randint(0, 3)}])")
        self._emit(indent, "except ValueError as error:")
        self._emit(indent + 1, f"{name} = 'raised ' + str(error)")
        # A built-in error: its type is the same everywhere, its message is not.
        self._emit(indent, "except IndexError as error:")
        self._emit(indent + 1, f"{name} = type(error).__name__")

    def _stmt_mutate(self, indent: int) -> None:
        kind = self.rng.choice(("list", "dict", "set"))
        names = [n for n in self.scopes[-1].variables if self.scopes[-1].variables[n] == kind]
        if not names:
            return self._stmt_assign(indent)
        name = self.rng.choice(names)
        if kind == "list":
            self._emit(indent, self.rng.choice((f"{name}.append({self.expr('int')})", f"if {name}: {name}.pop()")))
        elif kind == "dict":
            self._emit(indent, f"{name}[{self.expr('str')}] = {self.expr('int')}")
        else:
            self._emit(indent, f"{name}.{self.rng.choice(('add', 'discard'))}({self.expr('int')})")
        return None

    # --- the program ----------------------------------------------------------
    def program(self) -> str:
        # A few globals first: the checksum must have something to print.
        for _ in range(2):
            self.statements += 1
            self._stmt_assign(0)
        while self.statements < self.MAX_STATEMENTS:
            self.statement(0)
        checksum = []
        for name, kind in sorted(self.scopes[0].variables.items(), key=lambda item: int(item[0][1:])):
            shown = f"sorted({name})" if kind == "set" else f"sorted({name}.items())" if kind == "dict" else name
            checksum.append(f"print({name!r}, repr({shown}))")
        return PRELUDE + "\n".join(self.lines) + "\n\n" + "\n".join(checksum) + "\n"


def swarm_weights(rng: random.Random) -> dict[str, float]:
    """Random feature weights for one program: some features off, the rest weighted."""
    weights = generated.swarm_weights(rng, FEATURES)
    weights["assign"] = max(weights["assign"], 0.3)  # every program needs variables
    return weights


def generate(rng: random.Random) -> Program:
    """One program, its seed and swarm weights drawn from ``rng``."""
    return generated.generate(rng, "pygen", FEATURES, Generator)
