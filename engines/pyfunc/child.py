"""The sandboxed side: import the target, describe it, run the calls sent to it.

Started by :class:`engines.pyfunc.executor.Child` as
``python -m engines.pyfunc.child MODULE REQUEST_FD RESPONSE_FD [PATH ...]``.
Nothing in here may trust the target: a target can print, exit, raise
anything (including ``SystemExit``), hang or crash the interpreter.
"""

from __future__ import annotations

import faulthandler
import fnmatch
import importlib
import inspect
import json
import linecache
import os
import pkgutil
import signal
import sys
import traceback

from engines.pyfunc import generators, protocol
from engines.pyfunc.coverage import ArcTracer, source_roots
from engines.pyfunc.hints import UnsupportedHint, describe_function
from engines.pyfunc.refs import ConstructionFailed, materialize
from engines.pyfunc.returns import conforms, describe_type, return_hint

MAX_TEXT = 64 * 1024
MAX_SOURCE = 64 * 1024
MAX_RETURNED = 300


def _safe_text(produce) -> str:
    # str() of a hostile exception can itself raise or return megabytes.
    try:
        text = produce()
    except BaseException as error:  # noqa: BLE001 - the target chooses what is raised
        text = f"<unprintable: {type(error).__name__}>"
    return text[:MAX_TEXT]


def _qualified_name(cls: type) -> str:
    module = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"


def _modules(module) -> tuple[list, list[dict]]:
    """``module`` and, for a package, every submodule that imports."""
    found, skipped = [module], []
    if hasattr(module, "__path__"):
        for info in pkgutil.walk_packages(module.__path__, prefix=module.__name__ + "."):
            if info.name.rsplit(".", 1)[-1].startswith("_") or ".tests" in info.name or ".test_" in info.name:
                continue
            try:
                found.append(importlib.import_module(info.name))
            except BaseException as error:  # noqa: BLE001 - a submodule's import can raise anything
                skipped.append({"name": info.name, "reason": f"import failed: {type(error).__name__}: {error}"})
    return found, skipped


def _selected(name: str, include: list[str], exclude: list[str]) -> bool:
    if include and not any(fnmatch.fnmatchcase(name, pattern) for pattern in include):
        return False
    return not any(fnmatch.fnmatchcase(name, pattern) for pattern in exclude)


def discover(module, include: list[str] = (), exclude: list[str] = ()) -> tuple[list[dict], list[dict], dict]:
    """Describe the public functions of ``module`` (and its submodules); list those skipped and why.

    Functions are named ``module.function``, except in the target module
    itself, where the bare name is enough. Returns (functions, skipped, the
    functions by name).
    """
    functions, table = [], {}
    modules, skipped = _modules(module)
    for owner in modules:
        owner_literals = module_literals(owner)
        for name, function in sorted(vars(owner).items()):
            if name.startswith("_") or not inspect.isfunction(function) or function.__module__ != owner.__name__:
                continue
            qualified = name if owner is module else f"{owner.__name__}.{name}"
            if not _selected(qualified, include, exclude):
                continue
            try:
                parameters = describe_function(function)
            except (UnsupportedHint, NameError, TypeError, ValueError) as error:
                skipped.append({"name": qualified, "reason": str(error)})
                continue
            table[qualified] = function
            functions.append(
                {
                    "name": qualified,
                    "module": owner.__name__,
                    "function": name,
                    "parameters": parameters,
                    "constants": constants(function, owner_literals),
                    **_source_of(function),
                }
            )
    return functions, skipped, table


MAX_CONSTANTS = 64
MAX_CONSTANT_LENGTH = 64


def _literals(value, found: dict[str, set]) -> None:
    # bool is an int, but True and False are never interesting as numbers.
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) < 2**128:
        found["int"].add(value)
    elif isinstance(value, float):
        found["float"].add(value)
    elif isinstance(value, str) and 0 < len(value) <= MAX_CONSTANT_LENGTH:
        found["str"].add(value)
    elif isinstance(value, bytes) and 0 < len(value) <= MAX_CONSTANT_LENGTH:
        found["bytes"].add(value.decode("latin-1"))


def _code_literals(code, found: dict[str, set], docstring) -> None:
    for constant in code.co_consts:
        if inspect.iscode(constant):
            _code_literals(constant, found, None)
        elif isinstance(constant, (tuple, frozenset)):
            for item in constant:
                _literals(item, found)
        elif constant is not docstring:
            _literals(constant, found)


def module_literals(module) -> dict[str, set]:
    """A module's simple globals, the keys of its global dicts and the members of its global sets and tuples."""
    found: dict[str, set] = {"int": set(), "float": set(), "str": set(), "bytes": set()}
    for name, value in list(vars(module).items())[:1000]:
        if name.startswith("__"):
            continue
        if isinstance(value, (dict, set, frozenset, tuple, list)):
            for item in list(value)[:MAX_CONSTANTS]:
                _literals(item, found)
        else:
            _literals(value, found)
    return found


def constants(function, module_found: dict[str, set]) -> dict[str, list]:
    """The literals a function compares its input with, as a fuzzing dictionary.

    From the function's own code (nested functions and comprehensions too)
    and its module's literals (``module_literals``, read once per module):
    ``if key.startswith("max_")``, ``_UNITS[unit]``. Sorted, so that runs
    stay reproducible.
    """
    found = {kind: set(values) for kind, values in module_found.items()}
    _code_literals(function.__code__, found, function.__doc__)
    return {kind: sorted(values, key=repr)[:MAX_CONSTANTS] for kind, values in found.items() if values}


def _source_of(function) -> dict:
    """Where ``function`` is written, and its text: the function page shows it."""
    code = function.__code__
    try:
        lines, first_line = inspect.getsourcelines(function)
    except (OSError, TypeError):
        lines, first_line = [], code.co_firstlineno
    return {
        "file": code.co_filename,
        "first_line": first_line,
        "source": "".join(lines)[:MAX_SOURCE],
        "executable_lines": sorted(_executable_lines(code) - {code.co_firstlineno}),
    }


def _executable_lines(code) -> set[int]:
    """Lines that can run, nested functions and comprehensions included.

    The def line itself runs at import, never during a call: it is left out
    by the caller. ``else:`` and blank lines have no code and are not here.
    """
    lines = {line for _, _, line in code.co_lines() if line is not None}
    for constant in code.co_consts:
        if inspect.iscode(constant):
            lines |= _executable_lines(constant)
    return lines


def _exception_response(error: BaseException) -> dict:
    # Drop this module's own frame so the trace starts at the target, as the
    # one-line reproducer will show it.
    tb = error.__traceback__.tb_next if error.__traceback__ else None
    formatted = _safe_text(lambda: "".join(traceback.format_exception(type(error), error, tb)))
    return {
        "status": "exception",
        "type": _qualified_name(type(error)),
        "message": _safe_text(lambda: str(error)),
        "traceback": formatted,
    }


def explicit_raise(error: BaseException, function) -> bool:
    """True if ``function`` itself raised ``error`` with a ``raise`` statement.

    That is the function refusing an input on purpose (``raise ValueError("width
    must be positive")``): maintainers call it expected behaviour, not a bug.
    An error from deeper down, or from an operation (1 // 0), is not.
    """
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = getattr(function, "__code__", None)
    if tb.tb_frame.f_code is not code:
        return False
    return linecache.getline(code.co_filename, tb.tb_lineno).lstrip().startswith("raise")


def _check_return(function, result) -> dict:
    """ok, or a finding if ``result`` breaks the declared return type."""
    if function not in _RETURN_HINTS:
        _RETURN_HINTS[function] = return_hint(function)
    hint = _RETURN_HINTS[function]
    if hint is None or conforms(result, hint):
        return {"status": "ok"}
    declared = describe_type(hint)
    actual = type(result).__qualname__
    code = function.__code__
    # A trace in the traceback format, pointing at the function, so that
    # triage buckets it like any other failure of this function.
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "{code.co_filename}", line {code.co_firstlineno}, in {code.co_name}\n'
        f"ReturnTypeViolation: declared {declared}, returned {actual}: {_safe_text(lambda: repr(result))[:200]}\n"
    )
    return {
        "status": "exception",
        "type": "ReturnTypeViolation",
        "message": f"declared {declared}, returned {actual}",
        "traceback": trace,
    }


_RETURN_HINTS: dict = {}


def _own_class(path: str, target: str) -> bool:
    """The class ``module:Qual`` belongs to the target's package (its top-level name)."""
    module = path.partition(":")[0]
    root = target.split(".")[0]
    return module == root or module.startswith(root + ".") or module == "__main__"


def serve(module, table: dict, request_fd: int, response_fd: int) -> None:
    """Answer call requests until the parent closes the channel."""
    own_pid = os.getpid()
    tracer = ArcTracer(source_roots(module))
    # Arcs this child has reported already: each is sent once, so a
    # response stays small once coverage stops growing.
    reported: set[tuple[str, int, int]] = set()
    while True:
        try:
            name, args, kwargs, detail = protocol.receive_request(request_fd)
        except protocol.ChannelClosed:
            return
        function = None
        try:
            # Stand-ins for classes become real objects here. A constructor of the
            # target's own that raises is the target's failure too; one of another
            # package (uuid.UUID from its __init__ hints) only means this input
            # cannot be built, which is not the function's bug.
            try:
                args, kwargs = materialize(args), materialize(kwargs)
            except ConstructionFailed as failed:
                if not _own_class(failed.cls, module.__name__):
                    protocol.send_response(response_fd, {"status": "unbuildable", "type": failed.cls})
                    continue
                raise failed.__cause__ from None
            function = table[name]
            result = tracer.run(function, args, kwargs)
        except BaseException as error:  # noqa: BLE001 - SystemExit from a target is a finding
            response = _exception_response(error)
            if function is not None and explicit_raise(error, function):
                response["expected"] = True
        else:
            response = _check_return(function, result)
            if detail:
                response["returned"] = _safe_text(lambda value=result: repr(value))[:MAX_RETURNED]
        if detail:
            # An example call: all of its arcs, and no change to what the
            # search has been told, so choosing examples never steers it.
            response["all_arcs"] = sorted(tracer.arcs)
        else:
            new = tracer.arcs - reported
            if new:
                reported |= new
                response["arcs"] = sorted(new)
        if os.getpid() != own_pid:
            # A process the target forked got back here: it must never speak
            # on the protocol, which belongs to the process the parent started.
            os._exit(0)
        protocol.send_response(response_fd, response)


def main(argv: list[str]) -> None:
    module_name, request_fd, response_fd = argv[0], int(argv[1]), int(argv[2])
    selection = json.loads(argv[3])
    sys.path[:0] = argv[4:]
    # Target output must not mix with the protocol, which has its own fds.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    # On a segfault, and on SIGUSR1 (sent on a timeout), dump the Python stack
    # to stderr, which the parent reads back as the finding's trace.
    faulthandler.enable(file=sys.stderr)
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=False)
    try:
        for setup in selection.get("setup", []):
            generators.register_module(importlib.import_module(setup))
        module = importlib.import_module(module_name)
        functions, skipped, table = discover(module, selection["include"], selection["exclude"])
    except BaseException as error:  # noqa: BLE001 - an import can raise anything
        response = _exception_response(error)
        response["status"] = "import_error"
        protocol.send_response(response_fd, response)
        return
    protocol.send_response(response_fd, {"status": "ready", "functions": functions, "skipped": skipped})
    serve(module, table, request_fd, response_fd)


if __name__ == "__main__":
    main(sys.argv[1:])
