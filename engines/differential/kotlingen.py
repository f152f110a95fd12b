"""A grammar-based generator of Kotlin files for comparing the K1 and K2 compiler frontends.

Each file batches several top-level functions (a kotlinc start costs
seconds, so one compile checks many functions) and a ``main`` that calls
each one and prints what it returned, or the type of what it threw.

Generation is typed, as in ``pygen``: a scope table maps every variable to
its Kotlin type and mutability, and each expression is drawn for the type
its context needs, with standard-library calls given arguments of the
right types. What the frontends must agree on is mostly inference, smart
casts, overload resolution and lambdas, so those are what the grammar
leans on: type-inferred locals, ``if``/``when`` as expressions, nullable
values with ``?:``, ``?.`` and smart casts (only of ``val``s, where they are
legal), lambdas with implicit ``it``, generic and extension functions,
inline higher-order functions, data and sealed classes, default and named
arguments, varargs.

Reconditioning keeps the programs deterministic and finite: division and
modulo go through ``sdiv``/``smod``, list indexing through ``at``, counts
passed to ``take``/``repeat``/``padStart`` are ``mod`` small numbers, loops
run over small ranges or carry a counter bound, and functions only call
functions defined before them.

Swarm testing: each file draws its own weights for the features.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engines.differential import generated
from engines.differential.generated import Program

FEATURES = (
    "if",
    "when",
    "loop",
    "lambda",
    "nullable",
    "template",
    "try",
    "local-fun",
    "data-class",
    "extension",
    "generic",
    "inline",
    "sealed",
    "default-args",
    "vararg",
)
TYPES = ("Int", "Long", "Boolean", "String", "Char", "List<Int>", "Int?")
PRELUDE = """fun sdiv(a: Int, b: Int): Int = if (b == 0) a else a / b

fun smod(a: Int, b: Int): Int = if (b == 0) a else a % b

fun at(items: List<Int>, i: Int): Int = if (items.isEmpty()) 0 else items[i.mod(items.size)]

"""
WORDS = ("alpha", "beta", "", "Hello", "a b", "42", "-7", "é", "x1", "zz")
CHARS = ("'a'", "'Z'", "'0'", "' '", "'é'", "'7'")
FUNCTIONS_PER_FILE = 8


@dataclass
class _Var:
    type: str
    mutable: bool


@dataclass
class _Function:
    parameters: list[tuple[str, str, bool]]  # name, type, has a default
    returns: str


@dataclass
class _Declarations:
    """Top-level helpers this file declares, by feature (the suffix keeps names unique)."""

    data_class: str = ""
    sealed: str = ""
    extension: str = ""
    pick: str = ""
    twice: str = ""
    total: str = ""
    globals: dict[str, str] = field(default_factory=dict)


class Generator:
    """One file per instance: ``Generator(rng).program()``."""

    MAX_DEPTH = 3
    MAX_NESTING = 3

    def __init__(
        self, rng: random.Random, weights: dict[str, float] | None = None, functions: int = FUNCTIONS_PER_FILE
    ):
        self.rng = rng
        self.weights = weights or swarm_weights(rng)
        self.function_count = functions
        self.lines: list[str] = []
        self.scopes: list[dict[str, _Var]] = [{}]
        self.functions: dict[str, _Function] = {}
        self.decl = _Declarations()
        self.counter = 0
        self.counts = dict.fromkeys(FEATURES, 0)

    # --- helpers ------------------------------------------------------------
    def _fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _on(self, feature: str) -> bool:
        """Draw whether to use ``feature`` here, by its swarm weight, and count it."""
        if self.rng.random() < self.weights[feature] * 0.5:
            self.counts[feature] += 1
            return True
        return False

    def _visible(self, kind: str, *, immutable: bool = False) -> list[str]:
        return [
            name
            for scope in self.scopes
            for name, var in scope.items()
            if var.type == kind and not (immutable and var.mutable)
        ]

    def _emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def _small(self, depth: int, bound: int) -> str:
        return f"{self.expr('Int', depth)}.mod({bound})"

    def _receiver(self, kind: str, depth: int) -> str:
        # A bare ``null`` is of type Nothing?, which has no members to call.
        value = self.expr(kind, depth)
        return "(null as Int?)" if value == "null" else value

    # --- expressions ----------------------------------------------------------
    def expr(self, kind: str, depth: int = 0) -> str:
        names = self._visible(kind) + (self._visible("Int") if kind == "Int?" else [])
        if names and self.rng.random() < 0.4:
            return self.rng.choice(names)
        if depth >= self.MAX_DEPTH:
            return self.literal(kind)
        method = {"List<Int>": "_expr_list", "Int?": "_expr_nullable"}.get(kind, f"_expr_{kind.lower()}")
        return getattr(self, method)(depth + 1)

    def literal(self, kind: str) -> str:
        rng = self.rng
        if kind in ("Int", "Int?"):
            if kind == "Int?" and rng.random() < 0.3:
                return "null"
            return rng.choice(("0", "1", "(-1)", "2", "7", "10", "255", "(-128)", "Int.MAX_VALUE", "Int.MIN_VALUE"))
        if kind == "Long":
            return rng.choice(("0L", "3L", "(-7L)", "10000000000L", "Long.MAX_VALUE"))
        if kind == "Boolean":
            return rng.choice(("true", "false"))
        if kind == "String":
            return '"' + rng.choice(WORDS) + '"'
        if kind == "Char":
            return rng.choice(CHARS)
        items = ", ".join(self.literal("Int") for _ in range(rng.randint(0, 4)))
        return f"listOf<Int>({items})"

    def _call(self, depth: int, returns: str) -> str | None:
        candidates = [name for name, f in self.functions.items() if f.returns == returns]
        if not candidates:
            return None
        name = self.rng.choice(candidates)
        arguments, named = [], False
        for parameter, kind, has_default in self.functions[name].parameters:
            if has_default and self.rng.random() < 0.5:
                named = True  # one left out: the arguments after it must be named
                continue
            named = named or self._on("default-args")
            value = self.expr(kind, depth)
            arguments.append(f"{parameter} = {value}" if named else value)
        return f"{name}({', '.join(arguments)})"

    def _expr_int(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        d = self.decl
        choice = rng.randrange(20)
        if choice == 0:
            return f"({e('Int', depth)} {rng.choice('+-*')} {e('Int', depth)})"
        if choice == 1:
            return f"{rng.choice(('sdiv', 'smod'))}({e('Int', depth)}, {e('Int', depth)})"
        if choice == 2:
            return rng.choice((f"{e('String', depth)}.length", f"{e('List<Int>', depth)}.size"))
        if choice == 3:
            return f"at({e('List<Int>', depth)}, {e('Int', depth)})"
        if choice == 4 and self._on("lambda"):
            items = e("List<Int>", depth)
            return rng.choice(
                (
                    f"{items}.count {{ it > {e('Int', depth)} }}",
                    f"{items}.fold({e('Int', depth)}) {{ acc, v -> acc * 31 + v }}",
                    f"{items}.sumOf {{ it xor {e('Int', depth)} }}",
                    f"{e('Int', depth)}.let {{ it * 2 + {e('Int', depth)} }}",
                    f"run {{ val r = {e('Int', depth)}; r - {e('Int', depth)} }}",
                )
            )
        if choice == 5 and self._on("if"):
            return f"(if ({e('Boolean', depth)}) {e('Int', depth)} else {e('Int', depth)})"
        if choice == 6 and self._on("when"):
            return (
                f"(when ({self._small(depth, 3)}) {{ 0 -> {e('Int', depth)}; 1 -> {e('Int', depth)}; "
                f"else -> {e('Int', depth)} }})"
            )
        if choice == 7:
            call = self._call(depth, "Int")
            if call:
                return call
        if choice == 8:
            a, b = sorted(rng.sample(range(-100, 100), 2))
            return rng.choice(
                (
                    f"{rng.choice(('maxOf', 'minOf'))}({e('Int', depth)}, {e('Int', depth)})",
                    f"{e('Int', depth)}.coerceIn({a}, {b})",
                )
            )
        if choice == 9 and self._on("nullable"):
            vals = self._visible("Int?", immutable=True)
            if vals and rng.random() < 0.5:
                # A smart cast: legal only on a val.
                x = rng.choice(vals)
                return f"(if ({x} != null) {x} + {e('Int', depth)} else {e('Int', depth)})"
            return f"({e('Int?', depth)} ?: {e('Int', depth)})"
        if choice == 10:
            return rng.choice(
                (
                    f"({e('Int', depth)} shl {self._small(depth, 8)})",
                    f"({e('Int', depth)} and {e('Int', depth)})",
                    f"({e('Int', depth)} xor {e('Int', depth)})",
                    f"{e('Int', depth)}.inv()",
                    f"{e('Int', depth)}.countOneBits()",
                )
            )
        if choice == 11:
            return rng.choice(
                (
                    f"{e('Long', depth)}.toInt()",
                    f"{e('Char', depth)}.code",
                    f"{e('String', depth)}.hashCode()",
                    f"{e('String', depth)}.compareTo({e('String', depth)})",
                )
            )
        if choice == 12 and d.data_class and self._on("data-class"):
            built = f"{d.data_class}({e('Int', depth)}, {e('String', depth)})"
            return rng.choice((f"{built}.a", f"{built}.copy(a = {e('Int', depth)}).a", f"{built}.hashCode()"))
        if choice == 13 and d.extension and self._on("extension"):
            return f"{e('Int', depth)}.{d.extension}({e('Int', depth)})"
        if choice == 14 and d.pick and self._on("generic"):
            return f"{d.pick}({e('Boolean', depth)}, {e('Int', depth)}, {e('Int', depth)})"
        if choice == 15 and d.twice and self._on("inline"):
            return f"{d.twice}({e('Int', depth)}) {{ it {rng.choice('+-*')} {e('Int', depth)} }}"
        if choice == 16 and d.sealed and self._on("sealed"):
            made = rng.choice(
                (
                    f"{d.sealed}A({e('Int', depth)})",
                    f"{d.sealed}B",
                    f"{d.sealed}C({e('String', depth)})",
                    f"if ({e('Boolean', depth)}) {d.sealed}A({e('Int', depth)}) else {d.sealed}C({e('String', depth)})",
                )
            )
            return f"eval{d.sealed}({made})"
        if choice == 17 and self._on("try"):
            return f"(try {{ {e('String', depth)}.toInt() }} catch (e: NumberFormatException) {{ {e('Int', depth)} }})"
        if choice == 18 and d.total and self._on("vararg"):
            arguments = ", ".join(e("Int", depth) for _ in range(rng.randint(0, 3)))
            if rng.random() < 0.3:
                arguments = f"*{e('List<Int>', depth)}.toIntArray()"
            return f"{d.total}({arguments})"
        if choice == 19 and d.globals:
            return rng.choice([name for name, kind in d.globals.items() if kind == "Int"] or ["0"])
        return self.literal("Int")

    def _expr_long(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(6)
        if choice == 0:
            return f"{e('Int', depth)}.toLong()"
        if choice == 1:
            return f"({e('Long', depth)} {rng.choice('+-*')} {e('Long', depth)})"
        if choice == 2:
            return f"({e('Long', depth)} + {e('Int', depth)})"
        if choice == 3 and self._on("lambda"):
            return f"{e('List<Int>', depth)}.sumOf {{ it.toLong() * {e('Long', depth)} }}"
        if choice == 4:
            return f"maxOf({e('Long', depth)}, {e('Long', depth)})"
        return self.literal("Long")

    def _expr_boolean(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(9)
        if choice == 0:
            kind = rng.choice(("Int", "Int", "Long", "Char", "String"))
            op = rng.choice(("<", "<=", "==", "!=", ">", ">="))
            return f"({e(kind, depth)} {op} {e(kind, depth)})"
        if choice == 1:
            return f"({e('Boolean', depth)} {rng.choice(('&&', '||'))} {e('Boolean', depth)})"
        if choice == 2:
            return f"(!{e('Boolean', depth)})"
        if choice == 3:
            return rng.choice(
                (
                    f"{e('String', depth)}.isEmpty()",
                    f"{e('String', depth)}.startsWith({e('String', depth)})",
                    f"{e('String', depth)}.contains({e('Char', depth)})",
                    f"{e('Char', depth)}.isDigit()",
                    f"{e('Char', depth)}.isLetter()",
                )
            )
        if choice == 4:
            return f"({e('Int', depth)} in {e('List<Int>', depth)})"
        if choice == 5:
            a, b = sorted(rng.sample(range(-20, 20), 2))
            return f"({e('Int', depth)} in {a}..{b})"
        if choice == 6 and self._on("lambda"):
            return f"{e('List<Int>', depth)}.{rng.choice(('any', 'all', 'none'))} {{ it > {e('Int', depth)} }}"
        if choice == 7 and self._on("nullable"):
            return f"({e('Int?', depth)} == null)"
        if choice == 8:
            call = self._call(depth, "Boolean")
            if call:
                return call
        return self.literal("Boolean")

    def _expr_string(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        d = self.decl
        choice = rng.randrange(12)
        if choice == 0:
            return f"({e('String', depth)} + {e('String', depth)})"
        if choice == 1 and self._on("template"):
            return f'"${{{e("Int", depth)}}}:${{{e("String", depth)}}}-${{{e("List<Int>", depth)}}}"'
        if choice == 2:
            return f"{self._receiver(rng.choice(('Int', 'Long', 'Char', 'Boolean', 'Int?')), depth)}.toString()"
        if choice == 3:
            method = rng.choice(("uppercase", "lowercase", "reversed", "trim"))
            return f"{e('String', depth)}.{method}()"
        if choice == 4:
            return rng.choice(
                (
                    f"{e('String', depth)}.take({self._small(depth, 6)})",
                    f"{e('String', depth)}.drop({self._small(depth, 6)})",
                    f"{e('String', depth)}.padStart({self._small(depth, 10)}, {e('Char', depth)})",
                    f"{e('String', depth)}.repeat({self._small(depth, 3)})",
                )
            )
        if choice == 5:
            return f"{e('String', depth)}.replace({e('String', depth)}, {e('String', depth)})"
        if choice == 6:
            if self._on("lambda"):
                return f'{e("List<Int>", depth)}.joinToString("|") {{ (it * 2).toString() }}'
            return f'{e("List<Int>", depth)}.joinToString(",")'
        if choice == 7 and self._on("when"):
            return f'(when {{ {e("Boolean", depth)} -> {e("String", depth)}; else -> "w" }})'
        if choice == 8 and d.data_class and self._on("data-class"):
            return f"{d.data_class}({e('Int', depth)}, {e('String', depth)}).toString()"
        if choice == 9 and d.pick and self._on("generic"):
            return f"{d.pick}({e('Boolean', depth)}, {e('String', depth)}, {e('String', depth)})"
        if choice == 10 and self._on("lambda"):
            return f"buildString {{ append({e('String', depth)}); append({e('Int', depth)}) }}"
        if choice == 11:
            call = self._call(depth, "String")
            if call:
                return call
        return self.literal("String")

    def _expr_char(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(5)
        if choice == 0:
            return f"({e('String', depth)}.firstOrNull() ?: {e('Char', depth)})"
        if choice == 1:
            return f"({e('Char', depth)} + {self._small(depth, 5)})"
        if choice == 2:
            return f"{e('Char', depth)}.uppercaseChar()"
        if choice == 3 and self._on("lambda"):
            return f"{e('String', depth)}.getOrElse({self._small(depth, 4)}) {{ {e('Char', depth)} }}"
        return self.literal("Char")

    def _expr_list(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(8)
        if choice == 0 and self._on("lambda"):
            return rng.choice(
                (
                    f"{e('List<Int>', depth)}.map {{ it {rng.choice('+-*')} {e('Int', depth)} }}",
                    f"{e('List<Int>', depth)}.filter {{ it > {e('Int', depth)} }}",
                    f"List({self._small(depth, 5)}) {{ it * {e('Int', depth)} }}",
                    f"{e('List<Int>', depth)}.zip({e('List<Int>', depth)}) {{ x, y -> x - y }}",
                )
            )
        if choice == 1:
            method = rng.choice(("sorted", "reversed", "distinct", "sortedDescending"))
            return f"{e('List<Int>', depth)}.{method}()"
        if choice == 2:
            return f"{e('List<Int>', depth)}.take({self._small(depth, 4)})"
        if choice == 3:
            return f"(0 until {self._small(depth, 6)}).toList()"
        if choice == 4:
            return f"({e('List<Int>', depth)} + {e(rng.choice(('Int', 'List<Int>')), depth)})"
        if choice == 5 and self._on("lambda"):
            return f"mutableListOf<Int>().apply {{ add({e('Int', depth)}); addAll({e('List<Int>', depth)}) }}"
        if choice == 6:
            call = self._call(depth, "List<Int>")
            if call:
                return call
        return self.literal("List<Int>")

    def _expr_nullable(self, depth: int) -> str:
        rng, e = self.rng, self.expr
        choice = rng.randrange(6)
        if choice == 0:
            return f"{e('List<Int>', depth)}.{rng.choice(('firstOrNull', 'lastOrNull', 'maxOrNull'))}()"
        if choice == 1:
            return f"{e('String', depth)}.toIntOrNull()"
        if choice == 2:
            return f"(if ({e('Boolean', depth)}) null else {e('Int', depth)})"
        if choice == 3:
            return f"{self._receiver('Int?', depth)}?.plus({e('Int', depth)})"
        if choice == 4 and self._on("lambda"):
            return f"{e('List<Int>', depth)}.find {{ it > {e('Int', depth)} }}"
        return self.literal("Int?")

    # --- statements ---------------------------------------------------------------
    def block(self, indent: int, size: int) -> None:
        self.scopes.append({})
        for _ in range(size):
            self.statement(indent)
        self.scopes.pop()

    def statement(self, indent: int) -> None:
        rng = self.rng
        if indent < self.MAX_NESTING:
            for feature in ("if", "when", "loop", "try", "local-fun"):
                if rng.random() < 0.25 and self._on(feature):
                    getattr(self, f"_stmt_{feature.replace('-', '_')}")(indent)
                    return
        mutable = [n for scope in self.scopes[1:] for n, v in scope.items() if v.mutable]
        if mutable and rng.random() < 0.35:
            name = rng.choice(mutable)
            kind = self.scopes_type(name)
            if kind in ("Int", "Long", "String", "List<Int>") and rng.random() < 0.5:
                added = "Int" if kind in ("Long", "List<Int>") else kind
                self._emit(indent, f"{name} += {self.expr(added)}")
            else:
                self._emit(indent, f"{name} = {self.expr(kind)}")
            return
        self._declare(indent)

    def scopes_type(self, name: str) -> str:
        return next(scope[name].type for scope in reversed(self.scopes) if name in scope)

    def _declare(self, indent: int) -> None:
        rng = self.rng
        kind = rng.choice(TYPES)
        mutable = rng.random() < 0.4
        name = self._fresh("v")
        value = self.expr(kind)
        # Inference is what the frontends most often differ on: leave types out
        # where the value alone fixes them.
        typed = mutable or kind == "Int?" or value == "null" or rng.random() < 0.3
        annotation = f": {kind}" if typed else ""
        self._emit(indent, f"{'var' if mutable else 'val'} {name}{annotation} = {value}")
        self.scopes[-1][name] = _Var(kind, mutable)

    def _stmt_if(self, indent: int) -> None:
        self._emit(indent, f"if ({self.expr('Boolean')}) {{")
        self.block(indent + 1, self.rng.randint(1, 3))
        if self.rng.random() < 0.5:
            self._emit(indent, "} else {")
            self.block(indent + 1, self.rng.randint(1, 2))
        self._emit(indent, "}")

    def _stmt_when(self, indent: int) -> None:
        self._emit(indent, f"when ({self._small(0, 3)}) {{")
        for label in ("0", "1", "else"):
            self._emit(indent + 1, f"{label} -> {{")
            self.block(indent + 2, self.rng.randint(1, 2))
            self._emit(indent + 1, "}")
        self._emit(indent, "}")

    def _stmt_loop(self, indent: int) -> None:
        rng = self.rng
        variable = self._fresh("i")
        choice = rng.randrange(5)
        if choice == 3:
            bound = self._fresh("w")
            self._emit(indent, f"var {bound} = 0")
            self._emit(indent, f"while ({self.expr('Boolean')} && {bound} < {rng.randint(1, 5)}) {{")
            self._emit(indent + 1, f"{bound}++")
            self.block(indent + 1, rng.randint(1, 3))
            self._emit(indent, "}")
            return
        if choice == 4:
            self._emit(indent, f"repeat({self._small(0, 4)}) {{ {variable} ->")
        else:
            source = (
                f"0 until {self._small(0, 5)}",
                f"{self._small(0, 6)} downTo 0 step 2",
                f"{self.expr('List<Int>')}.take(6)",
            )[choice]
            self._emit(indent, f"for ({variable} in {source}) {{")
        self.scopes.append({variable: _Var("Int", False)})
        self.block(indent + 1, rng.randint(1, 3))
        self.scopes.pop()
        self._emit(indent, "}")

    def _stmt_try(self, indent: int) -> None:
        name = self._fresh("v")
        self._emit(indent, f'var {name}: String = "none"')
        self._emit(indent, "try {")
        self._emit(indent + 1, f"{name} = {self.expr('String')}.toInt().toString()")
        self._emit(indent, "} catch (e: NumberFormatException) {")
        self._emit(indent + 1, f'{name} = "nfe"')
        self._emit(indent, "}")
        self.scopes[-1][name] = _Var("String", True)

    def _stmt_local_fun(self, indent: int) -> None:
        name, parameter = self._fresh("local"), self._fresh("p")
        self.scopes.append({parameter: _Var("Int", False)})
        body = self.expr("Int")
        self.scopes.pop()
        self._emit(indent, f"fun {name}({parameter}: Int): Int = {body}")
        result = self._fresh("v")
        self._emit(indent, f"val {result} = {name}({self.expr('Int')})")
        self.scopes[-1][result] = _Var("Int", False)

    # --- top level ------------------------------------------------------------
    def _declarations(self) -> None:
        rng, d = self.rng, self.decl
        for _ in range(rng.randint(1, 3)):
            name, kind = self._fresh("g"), rng.choice(("Int", "String"))
            d.globals[name] = kind
            self.scopes[0][name] = _Var(kind, False)
            self._emit(0, f"val {name} = {self.literal(kind)}")
        if self.weights["data-class"]:
            d.data_class = self._fresh("Data")
            self._emit(0, f"data class {d.data_class}(val a: Int, val s: String)")
        if self.weights["sealed"]:
            d.sealed = self._fresh("S")
            s = d.sealed
            self._emit(0, f"sealed interface {s}")
            self._emit(0, f"data class {s}A(val v: Int) : {s}")
            self._emit(0, f"object {s}B : {s}")
            self._emit(0, f"class {s}C(val s: String) : {s}")
            self._emit(0, f"fun eval{s}(x: {s}): Int = when (x) {{ is {s}A -> x.v; {s}B -> 7; is {s}C -> x.s.length }}")
        if self.weights["extension"]:
            d.extension = self._fresh("ext")
            self._emit(0, f"fun Int.{d.extension}(k: Int): Int = this * k - {rng.randint(0, 9)}")
        if self.weights["generic"]:
            d.pick = self._fresh("pick")
            self._emit(0, f"fun <T> {d.pick}(c: Boolean, a: T, b: T): T = if (c) a else b")
        if self.weights["inline"]:
            d.twice = self._fresh("twice")
            self._emit(0, f"inline fun {d.twice}(x: Int, f: (Int) -> Int): Int = f(f(x))")
        if self.weights["vararg"]:
            d.total = self._fresh("total")
            self._emit(0, f"fun {d.total}(vararg xs: Int): Int = xs.sum()")
        self._emit(0, "")

    def _function(self) -> None:
        rng = self.rng
        name = self._fresh("f")
        parameters = []
        for index in range(rng.randint(0, 3)):
            has_default = index > 0 and bool(parameters) and parameters[-1][2] or rng.random() < 0.2
            has_default = has_default and self.weights["default-args"] > 0
            parameters.append((self._fresh("p"), rng.choice(TYPES), has_default))
        returns = rng.choice(TYPES)
        self.scopes.append({p: _Var(t, False) for p, t, _ in parameters})
        rendered = []
        for p, t, has_default in parameters:
            rendered.append(f"{p}: {t}" + (f" = {self.literal(t)}" if has_default else ""))
        self._emit(0, f"fun {name}({', '.join(rendered)}): {returns} {{")
        for _ in range(rng.randint(2, 6)):
            self.statement(1)
        self._emit(1, f"return {self.expr(returns)}")
        self._emit(0, "}")
        self._emit(0, "")
        self.scopes.pop()
        # Registered after its body: a function never calls itself.
        self.functions[name] = _Function(parameters, returns)

    def program(self) -> str:
        self._declarations()
        for _ in range(self.function_count):
            self._function()
        self._emit(0, "fun main() {")
        for name, function in self.functions.items():
            arguments = ", ".join(self.literal(kind) for _, kind, _ in function.parameters)
            self._emit(1, f'try {{ println("{name}: " + {name}({arguments})) }}')
            self._emit(1, f'catch (e: Exception) {{ println("{name} threw " + e.javaClass.simpleName) }}')
        self._emit(0, "}")
        return PRELUDE + "\n".join(self.lines) + "\n"


def swarm_weights(rng: random.Random) -> dict[str, float]:
    """Random feature weights for one file: some features off, the rest weighted."""
    return generated.swarm_weights(rng, FEATURES)


def generate(rng: random.Random) -> Program:
    """One file, its seed and swarm weights drawn from ``rng``."""
    return generated.generate(rng, "kotlingen", FEATURES, Generator)
