"""Semantic passes for the Python reducer: changes a person would make by hand, proposed as candidates.

Deleting parts of a program (ddmin over the syntax tree) stalls where a
part cannot go because something still uses it: a helper whose call feeds
the difference, a closure, a temporary. These passes rewrite instead of
delete: inline a function used once, or a variable, or a lambda; fold
constant subexpressions; replace every call of a function by a value and
drop the function; drop definitions nobody reads and parameters nobody
uses; unwrap control flow that decides nothing; and, last, give names one
letter.

Each pass is a pure function from a module to an iterator of
``(key, candidate)``: the candidate is a changed deep copy, the key names
the change so that the reducer need not test a refused change twice. A
pass may propose a program that means something else: the interestingness
test decides, as for every reducer. Candidates are only proposed; the
reducer unparses and compiles each before it costs a test.

Nothing here evaluates the program: constants are folded by a small
evaluator over literal values with size limits, never ``eval``.
"""

from __future__ import annotations

import ast
import builtins
import copy
import math
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

Candidate = tuple[str, ast.Module]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# --- finding and editing nodes in a copy -----------------------------------------------------------
def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str]]:
    """Each node's parent and the field that holds it, by ``id`` of the node."""
    mapping = {}
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    mapping[id(child)] = (node, field)
    return mapping


class _Edit:
    """A deep copy of a tree, and the copies of the given nodes, found by their place in the original walk."""

    def __init__(self, tree: ast.Module, *nodes: ast.AST):
        order = {id(node): index for index, node in enumerate(ast.walk(tree))}
        self.tree = copy.deepcopy(tree)
        walked = list(ast.walk(self.tree))
        self.nodes = [walked[order[id(node)]] for node in nodes]
        self.parents = _parents(self.tree)

    def parent(self, node: ast.AST) -> ast.AST | None:
        found = self.parents.get(id(node))
        return found[0] if found else None

    def replace(self, old: ast.AST, new: ast.AST) -> None:
        parent, field = self.parents[id(old)]
        value = getattr(parent, field)
        if isinstance(value, list):
            value[next(i for i, item in enumerate(value) if item is old)] = new
        else:
            setattr(parent, field, new)
        self.parents[id(new)] = (parent, field)

    def splice(self, old: ast.stmt, new: list[ast.stmt]) -> None:
        """A statement by a list of statements (none: removed); a block left empty gets ``pass``."""
        parent, field = self.parents[id(old)]
        block = getattr(parent, field)
        at = next(i for i, item in enumerate(block) if item is old)
        block[at : at + 1] = new
        for statement in new:
            self.parents[id(statement)] = (parent, field)
        if not block and field == "body" and not isinstance(parent, ast.Module):
            block.append(ast.Pass())

    def statement_of(self, node: ast.AST) -> ast.stmt | None:
        """The statement whose own expressions hold ``node``; None if a lambda or comprehension is between."""
        while not isinstance(node, ast.stmt):
            if isinstance(node, (ast.Lambda, *_COMPREHENSIONS)):
                return None
            node = self.parent(node)
            if node is None:
                return None
        return node


# --- what the program names ------------------------------------------------------------------------
def _reads(tree: ast.AST) -> Counter:
    return Counter(
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store)
    )


def _bindings(tree: ast.AST) -> Counter:
    """How often each name is bound: assigned, a parameter, defined, imported, caught or declared."""
    bound: Counter = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound[node.id] += 1
        elif isinstance(node, ast.arg):
            bound[node.arg] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] += 1
        elif isinstance(node, ast.alias):
            bound[(node.asname or node.name).split(".")[0]] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound[node.name] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update({name: 2 for name in node.names})  # a declared name is never "bound once"
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Name):
            bound[node.target.id] += 1
    return bound


def _attributes(tree: ast.AST) -> set[str]:
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}


def _blocks(tree: ast.AST) -> Iterator[tuple[ast.AST, str, list[ast.stmt]]]:
    """Every list of statements: (owner, field, statements), outermost first."""
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield node, field, value


def _uses(tree: ast.AST, name: str) -> list[ast.Name]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == name]


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Nodes of a function body that run in its own frame: what nested functions, lambdas and classes hold is left
    out (their definitions themselves are in)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - a key only; an odd node still gets one
        return ast.dump(node)


# --- substitution ----------------------------------------------------------------------------------
class _Substitute(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, ast.expr]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node


def _substitute(expression: ast.expr, mapping: dict[str, ast.expr]) -> ast.expr | None:
    """``expression`` with each read of a mapped name replaced; None where a mapped name is rebound inside."""
    inner = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    inner |= {a.arg for a in ast.walk(expression) if isinstance(a, ast.arg)}
    if inner & mapping.keys():
        return None
    return _Substitute(mapping).visit(copy.deepcopy(expression))


def _bind(arguments: ast.arguments, call: ast.Call, skip: int = 0) -> dict[str, ast.expr] | None:
    """Parameter name to argument expression for ``call`` (defaults filled in); None if it does not map simply."""
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs:
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    params = [a.arg for a in arguments.posonlyargs + arguments.args][skip:]
    if len(call.args) > len(params):
        return None
    bound = dict(zip(params, call.args, strict=False))
    for keyword in call.keywords:
        if keyword.arg not in params or keyword.arg in bound:
            return None
        bound[keyword.arg] = keyword.value
    defaults = arguments.defaults
    first_default = len(params) - len(defaults)
    for index, param in enumerate(params):
        if param not in bound:
            if index < first_default:
                return None
            bound[param] = defaults[index - first_default]
    return bound


def _returned(body: list[ast.stmt]) -> tuple[list[ast.stmt], ast.expr | None] | None:
    """A body as (statements before its one return, returned expression); None if it returns anywhere else."""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # a docstring
    last = body[-1] if body else None
    before = body[:-1] if isinstance(last, ast.Return) else body
    for node in _own_nodes(before):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)):
            return None
    if isinstance(last, ast.Return):
        if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(last)):
            return None
        return before, last.value or ast.Constant(None)
    return before, ast.Constant(None)


# --- inlining --------------------------------------------------------------------------------------
def inline_functions(tree: ast.Module) -> Iterator[Candidate]:
    """A function or lambda called once: its returned expression with the arguments in place of the parameters,
    or its statements, parameters assigned, before the statement that called it."""
    reads = _reads(tree)
    bound = _bindings(tree)
    parents = _parents(tree)
    for owner, _field, block in list(_blocks(tree)):
        if isinstance(owner, ast.ClassDef):
            continue  # methods are called through attributes
        for definition in block:
            if isinstance(definition, ast.FunctionDef) and not definition.decorator_list:
                name, arguments, body = definition.name, definition.args, definition.body
            elif (
                isinstance(definition, ast.Assign)
                and len(definition.targets) == 1
                and isinstance(definition.targets[0], ast.Name)
                and isinstance(definition.value, ast.Lambda)
            ):
                name, arguments = definition.targets[0].id, definition.value.args
                body = [ast.Return(definition.value.body)]
            else:
                continue
            if reads[name] != 1 or bound[name] != 1:
                continue
            use = _uses(tree, name)
            call = next((u for u in use if isinstance(u.ctx, ast.Load)), None)
            caller = parents.get(id(call), (None, ""))
            if not isinstance(caller[0], ast.Call) or caller[1] != "func":
                continue
            yield from _inline_call(tree, definition, caller[0], arguments, body, name)
    for node in ast.walk(tree):
        # (lambda x: x + 1)(2): the lambda is gone, not just moved.
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda):
            mapping = _bind(node.func.args, node)
            replaced = _substitute(node.func.body, mapping) if mapping is not None else None
            if replaced is not None:
                edit = _Edit(tree, node)
                edit.replace(edit.nodes[0], replaced)
                yield f"inline lambda {_text(node)}", edit.tree


def _inline_call(tree, definition, call, arguments, body, name) -> Iterator[Candidate]:
    mapping = _bind(arguments, call)
    if mapping is None:
        return
    shape = _returned(body)
    if shape is None:
        return
    before, returned = shape
    if not before:
        replaced = _substitute(returned, mapping)
        if replaced is not None:
            edit = _Edit(tree, definition, call)
            edit.replace(edit.nodes[1], replaced)
            edit.splice(edit.nodes[0], [])
            yield f"inline {name} by its expression", edit.tree
    # The statement form: parameters assigned, the body, then the caller with the returned value in the call's place.
    edit = _Edit(tree, definition, call)
    definition_copy, call_copy = edit.nodes
    statement = edit.statement_of(call_copy)
    if statement is None or isinstance(statement, ast.While) or statement is definition_copy:
        return
    if any(statement is node for node in ast.walk(definition_copy)):
        return  # called from inside itself
    assigned = [
        ast.Assign([ast.Name(param, ast.Store())], copy.deepcopy(value), lineno=0) for param, value in mapping.items()
    ]
    edit.replace(call_copy, copy.deepcopy(returned))
    keep = not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))
    edit.splice(statement, assigned + copy.deepcopy(before) + ([statement] if keep else []))
    edit.splice(definition_copy, [])
    yield f"inline {name} by its statements", edit.tree


def inline_methods(tree: ast.Module) -> Iterator[Candidate]:
    """``C(a).m(b)`` where ``C.__init__`` only stores its arguments and ``m`` returns an expression:
    that expression, ``self.x`` read as what ``__init__`` stored."""
    classes = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and not node.bases and not node.decorator_list:
            methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef) and not m.decorator_list}
            classes[node.name] = methods
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Call)
            and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id in classes
        ):
            continue
        methods = classes[node.func.value.func.id]
        replaced = _method_expression(methods, node.func.value, node.func.attr, node)
        if replaced is not None:
            edit = _Edit(tree, node)
            edit.replace(edit.nodes[0], replaced)
            yield f"inline method {_text(node)}", edit.tree


def _method_expression(methods, construct: ast.Call, name: str, call: ast.Call) -> ast.expr | None:
    method, init = methods.get(name), methods.get("__init__")
    if method is None or len(method.body) != 1 or not isinstance(method.body[0], ast.Return):
        return None
    if not method.args.args or method.body[0].value is None:
        return None
    stored: dict[str, ast.expr] = {}
    if init is not None:
        init_mapping = _bind(init.args, construct, skip=1)
        if init_mapping is None or not init.args.args:
            return None
        self_name = init.args.args[0].arg
        for statement in init.body:
            target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 else None
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
                return None
            if target.value.id != self_name:
                return None
            value = _substitute(statement.value, init_mapping)
            if value is None:
                return None
            stored[target.attr] = value
    elif construct.args or construct.keywords:
        return None
    mapping = _bind(method.args, call, skip=1)
    if mapping is None:
        return None
    self_name = method.args.args[0].arg

    class _Self(ast.NodeTransformer):
        ok = True

        def visit_Attribute(self, node):
            if isinstance(node.value, ast.Name) and node.value.id == self_name:
                if node.attr in stored and isinstance(node.ctx, ast.Load):
                    return copy.deepcopy(stored[node.attr])
                self.ok = False
            return self.generic_visit(node)

    rewriter = _Self()
    expression = rewriter.visit(copy.deepcopy(method.body[0].value))
    if not rewriter.ok or any(isinstance(n, ast.Name) and n.id == self_name for n in ast.walk(expression)):
        return None
    return _substitute(expression, mapping)


def inline_variables(tree: ast.Module) -> Iterator[Candidate]:
    """``t = EXPR`` bound once: every read of ``t`` becomes ``EXPR`` and the assignment goes."""
    reads = _reads(tree)
    bound = _bindings(tree)
    for _owner, _field, block in list(_blocks(tree)):
        for statement in block:
            if not (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
            ):
                continue
            name = statement.targets[0].id
            if bound[name] != 1 or not reads[name]:
                continue
            uses = [u for u in _uses(tree, name) if isinstance(u.ctx, ast.Load)]
            if len(uses) != reads[name]:
                continue  # a del
            edit = _Edit(tree, statement, *uses)
            for use in edit.nodes[1:]:
                edit.replace(use, copy.deepcopy(statement.value))
            edit.splice(edit.nodes[0], [])
            yield f"inline variable {name} = {_text(statement.value)}", edit.tree


# --- constants -------------------------------------------------------------------------------------
class _NotConstant(Exception):
    pass


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_PURE_BUILTINS: dict[str, Callable] = {
    name: getattr(builtins, name)
    for name in ("len", "abs", "min", "max", "sum", "sorted", "str", "int", "bool", "repr")
}
_ITERATING_BUILTINS = frozenset({"sum", "sorted", "min", "max"})
_STR_METHODS = ("upper", "lower", "strip", "replace", "title", "capitalize", "swapcase", "join", "count", "find")
_MAX_LENGTH = 64  # of a folded string or list: folding must shrink the program, not write a constant out
_MAX_BITS = 128


def _small(value) -> bool:
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return value.bit_length() <= _MAX_BITS
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return len(value) <= _MAX_LENGTH
    if isinstance(value, (list, tuple)):
        return len(value) <= _MAX_LENGTH and all(_small(item) for item in value)
    return False


def _guard(op: type, left, right) -> None:
    """Refuse operations whose result could be huge before computing them."""
    numbers = all(isinstance(v, (int, float)) for v in (left, right))
    if op is ast.Pow and not (numbers and abs(right) <= 64 and abs(left) <= 2**64):
        raise _NotConstant
    if op in (ast.LShift, ast.RShift) and not (numbers and 0 <= right <= 64):
        raise _NotConstant
    if op is ast.Mult and not numbers:
        count = right if isinstance(right, int) else left
        if not isinstance(count, int) or count > _MAX_LENGTH:
            raise _NotConstant
    if op is ast.Mod and not numbers:
        raise _NotConstant  # string formatting


def evaluate(node: ast.AST, shadowed: frozenset[str] = frozenset()):
    """The value of a constant expression over literals (numbers, strings, lists, tuples); raises if it is none.

    Only operators, comparisons, subscripts and a few pure builtins (not in
    ``shadowed``) on literal values, with limits on sizes: never ``eval``.
    """
    try:
        value = _evaluate(node, shadowed)
    except _NotConstant:
        raise
    except Exception as error:  # noqa: BLE001 - an operation that raises (1 // 0) is no constant
        raise _NotConstant from error
    if not _small(value):
        raise _NotConstant
    return value


def _evaluate(node: ast.AST, shadowed: frozenset[str]):
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float, str, bool)) or node.value is None:
            return node.value
        raise _NotConstant
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [evaluate(item, shadowed) for item in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = evaluate(node.left, shadowed), evaluate(node.right, shadowed)
        sequences = isinstance(left, (list, tuple)) or isinstance(right, (list, tuple))
        # Generated programs build their lists as [0] + [...]: concatenation and repetition fold.
        concatenation = isinstance(node.op, ast.Add) and type(left) is type(right)
        if sequences and not concatenation and not isinstance(node.op, ast.Mult):
            raise _NotConstant
        _guard(type(node.op), left, right)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](evaluate(node.operand, shadowed))
    if isinstance(node, ast.BoolOp):
        values = [evaluate(v, shadowed) for v in node.values]
        result = values[0]
        for value in values[1:]:
            if (isinstance(node.op, ast.And) and not result) or (isinstance(node.op, ast.Or) and result):
                break
            result = value
        return result
    if isinstance(node, ast.Compare):
        left = evaluate(node.left, shadowed)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            if type(op) not in _COMPARE:
                raise _NotConstant  # is, is not: identity of literals is no constant
            right = evaluate(comparator, shadowed)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Subscript):
        container = evaluate(node.value, shadowed)
        if isinstance(node.slice, ast.Slice):
            parts = [evaluate(p, shadowed) if p is not None else None for p in (node.slice.lower, node.slice.upper)]
            if node.slice.step is not None:
                raise _NotConstant
            return container[parts[0] : parts[1]]
        return container[evaluate(node.slice, shadowed)]
    if isinstance(node, ast.ListComp):
        return _comprehension(node, shadowed)
    if isinstance(node, ast.Call) and not node.keywords:
        # A generator handed to a builtin that iterates it (sum(-3 for v in [0])) is the list it yields.
        iterates = isinstance(node.func, ast.Name) and node.func.id in _ITERATING_BUILTINS
        arguments = [
            _comprehension(a, shadowed) if isinstance(a, ast.GeneratorExp) and iterates else evaluate(a, shadowed)
            for a in node.args
        ]
        if isinstance(node.func, ast.Name) and node.func.id in _PURE_BUILTINS and node.func.id not in shadowed:
            return _PURE_BUILTINS[node.func.id](*arguments)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS:
            receiver = evaluate(node.func.value, shadowed)
            if isinstance(receiver, str):
                if node.func.attr == "replace" and len(arguments) == 2 and len(arguments[1]) > len(arguments[0]):
                    raise _NotConstant  # may grow past any limit before it is checked
                return getattr(receiver, node.func.attr)(*arguments)
    raise _NotConstant


def _comprehension(node: ast.ListComp | ast.GeneratorExp, shadowed: frozenset[str]) -> list:
    """``[x for v in range(3)]``: a comprehension whose item is a constant, over a constant or a small range."""
    if len(node.generators) != 1:
        raise _NotConstant
    generator = node.generators[0]
    if generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name):
        raise _NotConstant
    source = generator.iter
    if (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Name)
        and source.func.id == "range"
        and "range" not in shadowed
        and not source.keywords
        and 1 <= len(source.args) <= 3
    ):
        bounds = [evaluate(argument, shadowed) for argument in source.args]
        if not all(type(bound) is int for bound in bounds):
            raise _NotConstant
        items = range(*bounds)
    else:
        items = evaluate(source, shadowed)
    if not isinstance(items, (list, tuple, str, range)) or len(items) > _MAX_LENGTH:
        raise _NotConstant
    # The loop variable is a name, and names are no constants: an item that reads it does not fold.
    item = evaluate(node.elt, shadowed | {generator.target.id})
    return [item] * len(items)


def literal(value) -> ast.expr:
    """The expression for a value ``evaluate`` returns; negative numbers as a negation, so that ``(-4) ** 2``
    keeps its parentheses."""
    if isinstance(value, list):
        return ast.List([literal(v) for v in value], ast.Load())
    if isinstance(value, tuple):
        return ast.Tuple([literal(v) for v in value], ast.Load())
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (value < 0 or str(value).startswith("-")):
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))
    return ast.Constant(value)


def _is_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return True
    return isinstance(node, (ast.List, ast.Tuple)) and all(_is_literal(e) for e in node.elts)


def _foldable(tree: ast.Module) -> Iterator[tuple[ast.expr, object]]:
    """Every constant subexpression that is not written as a literal already, with its value, outermost first."""
    shadowed = frozenset(_bindings(tree))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.expr)
            and not _is_literal(node)
            and not isinstance(getattr(node, "ctx", None), ast.Store)
        ):
            try:
                yield node, evaluate(node, shadowed)
            except _NotConstant:
                continue


def fold_constants(tree: ast.Module) -> Iterator[Candidate]:
    """Constant subexpressions replaced by their values: all of them first, then one at a time."""
    found = list(_foldable(tree))
    if not found:
        return
    inner = set()
    for node, _value in found:
        inner.update(id(n) for n in ast.walk(node) if n is not node)
    outermost = [(node, value) for node, value in found if id(node) not in inner]
    edit = _Edit(tree, *(node for node, _ in outermost))
    for node, (_original, value) in zip(edit.nodes, outermost, strict=True):
        edit.replace(node, literal(value))
    yield "fold all " + ";".join(_text(n) for n, _ in outermost), edit.tree
    for node, value in found:
        edit = _Edit(tree, node)
        edit.replace(edit.nodes[0], literal(value))
        yield f"fold {_text(node)}", edit.tree


# --- calls, definitions, parameters ----------------------------------------------------------------
def replace_calls(tree: ast.Module) -> Iterator[Candidate]:
    """Every call of a function or class replaced by one value (None, 0, the call's first argument, or the constant
    the function returns), and the definition dropped: no stub stays behind because something called it."""
    parents = _parents(tree)
    reads = _reads(tree)
    for owner, _field, block in list(_blocks(tree)):
        if isinstance(owner, ast.ClassDef):
            continue
        for definition in block:
            if not isinstance(definition, (ast.FunctionDef, ast.ClassDef)):
                continue
            uses = [u for u in _uses(tree, definition.name) if isinstance(u.ctx, ast.Load)]
            sites = []
            for use in uses:
                parent, field = parents.get(id(use), (None, ""))
                if not isinstance(parent, ast.Call) or field != "func":
                    break
                site = parent
                # C(a).m(b): the method call is what stands for a value.
                above = parents.get(id(parent), (None, ""))[0]
                if isinstance(definition, ast.ClassDef) and isinstance(above, ast.Attribute):
                    call = parents.get(id(above), (None, ""))
                    if isinstance(call[0], ast.Call) and call[1] == "func":
                        site = call[0]
                sites.append(site)
            else:
                if not uses or len(uses) != reads[definition.name]:
                    continue
                yield from _replace_sites(tree, definition, sites)


def _replace_sites(tree, definition, sites) -> Iterator[Candidate]:
    options: list[tuple[str, Callable[[ast.Call], ast.expr]]] = [
        ("None", lambda _call: ast.Constant(None)),
        ("0", lambda _call: ast.Constant(0)),
    ]
    if all(site.args and not isinstance(site.args[0], ast.Starred) for site in sites):
        options.append(("its first argument", lambda call: call.args[0]))
    body = definition.body
    returns = isinstance(definition, ast.FunctionDef) and len(body) == 1 and isinstance(body[0], ast.Return)
    if returns and body[0].value is not None and _is_literal(body[0].value):
        constant = body[0].value
        options.insert(0, (_text(constant), lambda _call: copy.deepcopy(constant)))
    # Outer sites first, so that a call inside another call's argument is replaced in the copy it ends up in.
    for label, make in options:
        edit = _Edit(tree, definition, *sites)
        done: set[int] = set()
        for site in edit.nodes[1:]:
            if any(id(n) in done for n in ast.walk(site)):
                continue
            replacement = make(site)
            edit.replace(site, copy.deepcopy(replacement))
            done.add(id(site))
        edit.splice(edit.nodes[0], [])
        yield f"replace calls of {definition.name} by {label}", edit.tree


def _unread_names(statement: ast.stmt, reads: Counter, attributes: set[str], in_class: bool) -> bool:
    """Does ``statement`` only bind names nothing reads?"""

    def unread(name: str) -> bool:
        if in_class and (name in attributes or name.startswith("__")):
            return False
        return not reads[name]

    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return unread(statement.name)
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return all(unread((a.asname or a.name).split(".")[0]) for a in statement.names) and not any(
            a.name == "*" for a in statement.names
        )
    if isinstance(statement, ast.Assign):
        targets = [n for t in statement.targets for n in ast.walk(t)]
        names = [n for n in targets if isinstance(n, ast.Name)]
        only_names = all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store)) for n in targets)
        return only_names and bool(names) and all(unread(n.id) for n in names)
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        return isinstance(statement.target, ast.Name) and unread(statement.target.id)
    return False


def drop_unused(tree: ast.Module) -> Iterator[Candidate]:
    """Definitions, imports and assignments of names nothing reads: all at once, then one at a time."""
    reads = _reads(tree)
    attributes = _attributes(tree)
    unused = [
        statement
        for owner, _field, block in _blocks(tree)
        for statement in block
        if _unread_names(statement, reads, attributes, isinstance(owner, ast.ClassDef))
    ]
    if not unused:
        return
    if len(unused) > 1:
        edit = _Edit(tree, *unused)
        for statement in edit.nodes:
            edit.splice(statement, [])
        yield "drop unused " + ";".join(_text(s)[:40] for s in unused), edit.tree
    for statement in unused:
        edit = _Edit(tree, statement)
        edit.splice(edit.nodes[0], [])
        yield f"drop unused {_text(statement)[:80]}", edit.tree


def drop_parameters(tree: ast.Module) -> Iterator[Candidate]:
    """A parameter its function never reads, with the argument every call passes for it."""
    parents = _parents(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.decorator_list or node.args.vararg or node.args.kwarg:
            continue
        owner = parents.get(id(node), (None, ""))[0]
        sites = _call_sites(tree, node, owner, parents)
        if sites is None:
            continue
        params = node.args.posonlyargs + node.args.args
        skip = 1 if isinstance(owner, ast.ClassDef) else 0
        body_reads = _reads(ast.Module(body=node.body, type_ignores=[]))
        for index, param in enumerate(params):
            if index < skip or body_reads[param.arg]:
                continue
            edit = _Edit(tree, node, *sites)
            function = edit.nodes[0]
            arguments = function.args
            first_default = len(params) - len(arguments.defaults)
            if index >= first_default:
                del arguments.defaults[index - first_default]
            if index < len(arguments.posonlyargs):
                del arguments.posonlyargs[index]
            else:
                del arguments.args[index - len(arguments.posonlyargs)]
            for call in edit.nodes[1:]:
                position = index - skip
                if len(call.args) > position:
                    del call.args[position]
                call.keywords = [k for k in call.keywords if k.arg != param.arg]
            yield f"drop parameter {node.name}({param.arg})", edit.tree


def _call_sites(tree, function: ast.FunctionDef, owner, parents) -> list[ast.Call] | None:
    """Every call of ``function`` (of a method: as ``C(...).m(...)`` or, for ``__init__``, ``C(...)``); None if it
    is used any other way or called with ``*``/``**``."""
    sites = []
    if isinstance(owner, ast.ClassDef):
        if function.name == "__init__":
            references = [u for u in _uses(tree, owner.name) if isinstance(u.ctx, ast.Load)]
        else:
            references = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == function.name]
            if any(
                not (
                    isinstance(r.value, ast.Call)
                    and isinstance(r.value.func, ast.Name)
                    and r.value.func.id == owner.name
                )
                for r in references
            ):
                return None
    else:
        references = [u for u in _uses(tree, function.name) if isinstance(u.ctx, ast.Load)]
        if len(references) != _reads(tree)[function.name]:
            return None
    for reference in references:
        parent, field = parents.get(id(reference), (None, ""))
        if not isinstance(parent, ast.Call) or field != "func":
            return None
        if any(isinstance(a, ast.Starred) for a in parent.args) or any(k.arg is None for k in parent.keywords):
            return None
        sites.append(parent)
    return sites


# --- control flow ----------------------------------------------------------------------------------
def simplify_control(tree: ast.Module) -> Iterator[Candidate]:
    """Control that decides nothing: an ``if`` (or ``x if c else y``) whose test is a constant, a ``for`` over
    one item, a ``try`` by its body; an ``if`` or ``while`` by its test alone."""
    shadowed = frozenset(_bindings(tree))
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            try:
                test = evaluate(node.test, shadowed)
            except _NotConstant:
                if not isinstance(node, ast.IfExp):
                    # The test alone, for what evaluating it does (``if 0(): pass`` raises; ``0()`` says so).
                    edit = _Edit(tree, node)
                    edit.splice(edit.nodes[0], [ast.Expr(copy.deepcopy(node.test), lineno=0)])
                    yield f"test alone {_text(node.test)[:80]}", edit.tree
                continue
            if isinstance(node, ast.While):
                continue
            edit = _Edit(tree, node)
            chosen = node.body if test else node.orelse
            if isinstance(node, ast.If):
                edit.splice(edit.nodes[0], copy.deepcopy(chosen))
            else:
                edit.replace(edit.nodes[0], copy.deepcopy(chosen))
            yield f"constant test {_text(node)[:80]}", edit.tree
        elif isinstance(node, ast.For) and not node.orelse:
            item = _only_item(node.iter)
            if item is not None:
                edit = _Edit(tree, node)
                first = ast.Assign([copy.deepcopy(node.target)], item, lineno=0)
                edit.splice(edit.nodes[0], [first, *copy.deepcopy(node.body)])
                yield f"loop once {_text(node)[:80]}", edit.tree
        elif isinstance(node, ast.Try):
            edit = _Edit(tree, node)
            edit.splice(edit.nodes[0], copy.deepcopy(node.body + node.orelse + node.finalbody))
            yield f"try body {_text(node)[:80]}", edit.tree


def _prints(expression: ast.expr) -> bool:
    return isinstance(expression, ast.Call) and isinstance(expression.func, ast.Name) and expression.func.id == "print"


def print_values(tree: ast.Module) -> Iterator[Candidate]:
    """Print a value the program computes, and stop there: what is raised, assigned or evaluated.

    Generated programs route values through exceptions and variables before
    printing them (``raise ValueError(x)`` caught, kept and printed at the
    end); printing the value where it is made, in place of the top-level
    statement that makes it and everything after, lets all of that go at once,
    and is what a maintainer pastes: ``print(-7 // 2)``. Only values whose
    names the statements before already bind (or builtins) are tried.
    """
    for index, value, candidate in printed_alone(tree, _made_values):
        yield f"print {_text(value)[:80]} and stop at statement {index}", candidate


def _made_values(statement: ast.stmt) -> Iterator[ast.expr]:
    """What a statement raises, assigns or evaluates (a print's argument is printed already)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and len(node.exc.args) == 1:
            yield node.exc.args[0]
        elif (
            isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
            and node.value is not None
            or isinstance(node, ast.Expr)
            and not _prints(node.value)
        ):
            yield node.value


def binds_names(expression: ast.AST) -> bool:
    """True when ``expression`` binds names of its own (a comprehension's target, a lambda's parameters)."""
    return bool(_bindings(expression))


def printed_alone(
    tree: ast.Module, values: Callable[[ast.stmt], Iterable[ast.expr]]
) -> Iterator[tuple[int, ast.expr, ast.Module]]:
    """(statement index, value, program): the statements before one, then one of ``values(statement)`` printed.

    Only values whose names the statements before already bind (or builtins) are printed.
    """
    bound: set[str] = set(dir(builtins))
    for index, statement in enumerate(tree.body):
        for value in values(statement):
            if isinstance(value, ast.Starred) or not _free_names(value) <= bound:
                continue
            shown = ast.Expr(ast.Call(ast.Name("print", ast.Load()), [copy.deepcopy(value)], []))
            yield index, value, ast.Module([*copy.deepcopy(tree.body[:index]), shown], type_ignores=[])
        bound |= set(_bindings(ast.Module([statement], type_ignores=[])))


def _free_names(expression: ast.expr) -> set[str]:
    """The names ``expression`` reads that it does not bind itself (a comprehension's or a lambda's own)."""
    loads = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loads - set(_bindings(expression))


def _only_item(iterable: ast.expr) -> ast.expr | None:
    """The one item a loop over ``iterable`` sees, when the code says so."""
    if isinstance(iterable, (ast.List, ast.Tuple)) and len(iterable.elts) == 1:
        return None if isinstance(iterable.elts[0], ast.Starred) else copy.deepcopy(iterable.elts[0])
    is_range = isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
    if is_range and len(iterable.args) == 1 and isinstance(iterable.args[0], ast.Constant):
        return ast.Constant(0) if iterable.args[0].value == 1 else None
    return None


# --- names -----------------------------------------------------------------------------------------
_FUNCTION_NAMES = "fghpqrstuvwxyz"
_CLASS_NAMES = "CDEFGHJKLMNPQRSTUVWXYZ"
_VARIABLE_NAMES = "abcdeijkmnopqrstuvwxyz"


def _fresh_names(letters: str, taken: set[str]) -> Iterator[str]:
    for letter in letters:
        if letter not in taken:
            yield letter
    number = 1
    while True:
        for letter in letters[:3]:
            if f"{letter}{number}" not in taken:
                yield f"{letter}{number}"
        number += 1


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node):
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.names.get(node.arg, node.arg)
        return self.generic_visit(node)

    def _named(self, node):
        node.name = self.names.get(node.name, node.name)
        return self.generic_visit(node)

    visit_FunctionDef = visit_ClassDef = _named

    def visit_ExceptHandler(self, node):
        if node.name:
            node.name = self.names.get(node.name, node.name)
        return self.generic_visit(node)

    def visit_Global(self, node):
        node.names = [self.names.get(n, n) for n in node.names]
        return node

    visit_Nonlocal = visit_Global


def short_names(tree: ast.Module) -> dict[str, str]:
    """Old name to one-letter name for every name the program binds, in order of first appearance: functions f, g,
    h; classes C, D; variables a, b, c. Builtins, dunders, imported modules, methods, class attributes, names
    passed as keywords, and self keep their names: an attribute is spelled elsewhere, a builtin is not the program's."""
    keep = (
        set(dir(builtins)) | {"self", "cls"} | {k.arg for k in ast.walk(tree) if isinstance(k, ast.keyword) and k.arg}
    )
    keep |= {(a.asname or a.name).split(".")[0] for a in ast.walk(tree) if isinstance(a, ast.alias)}
    parents = _parents(tree)
    for node in ast.walk(tree):
        owner = parents.get(id(node), (None, ""))[0]
        if isinstance(owner, ast.ClassDef) and isinstance(node, ast.stmt):
            keep |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            keep |= {node.name} if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else set()
    kinds: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kinds.setdefault(node.name, "function")
        elif isinstance(node, ast.ClassDef):
            kinds.setdefault(node.name, "class")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) or isinstance(node, ast.ExceptHandler):
            name = node.id if isinstance(node, ast.Name) else node.name
            if name:
                kinds.setdefault(name, "variable")
        elif isinstance(node, ast.arg):
            kinds.setdefault(node.arg, "variable")
    kinds = {n: k for n, k in kinds.items() if n not in keep and not n.startswith("__")}
    taken = keep | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(kinds)
    order: dict[str, int] = {}
    for node in ast.walk(tree):
        for name in (getattr(node, "id", None), getattr(node, "name", None), getattr(node, "arg", None)):
            if isinstance(name, str):
                order.setdefault(name, len(order))
    fresh = {
        "function": _fresh_names(_FUNCTION_NAMES, taken),
        "class": _fresh_names(_CLASS_NAMES, taken),
        "variable": _fresh_names(_VARIABLE_NAMES, taken),
    }
    names = {}
    for name in sorted(kinds, key=lambda n: order.get(n, len(order))):
        if len(name) == 1:
            continue  # already short: renaming it could not shrink the program
        new = next(fresh[kinds[name]])
        taken.add(new)
        names[name] = new
    return names


def rename(tree: ast.Module) -> Iterator[Candidate]:
    """Short names: all at once, then one name at a time."""
    names = short_names(tree)
    if not names:
        return
    yield "rename " + ",".join(f"{a}>{b}" for a, b in names.items()), _Rename(names).visit(copy.deepcopy(tree))
    if len(names) > 1:
        for old, new in names.items():
            yield f"rename {old}>{new}", _Rename({old: new}).visit(copy.deepcopy(tree))


# In order: what removes most with fewest tests first; renaming is not here, it runs once at the end.
PASSES: list[tuple[str, Callable[[ast.Module], Iterator[Candidate]]]] = [
    ("drop unused definitions", drop_unused),
    ("replace calls", replace_calls),
    ("inline functions", inline_functions),
    ("inline methods", inline_methods),
    ("inline variables", inline_variables),
    ("simplify control flow", simplify_control),
    ("print values", print_values),
    ("fold constants", fold_constants),
    ("drop unused parameters", drop_parameters),
]
