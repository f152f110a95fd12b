"""Elixir's exceptions as its runtime and its loggers print them (a GenServer terminating, a task, a Mix task).

``** (FunctionClauseError) no function clause matching in ElixirSense.Core.Introspection.extract_spec_ast_parts/1``
``    (elixir_sense) lib/elixir_sense/core/introspection.ex:282: ElixirSense.Core.Introspection.extract_spec_…(…)``
``    (elixir 1.11.2) lib/enum.ex:2181: Enum."-reduce/3-lists^foldl/2-0-"/3``
``    (language_server 0.6.4) lib/server.ex:402: anonymous fn(%{…}) in ElixirLS.LanguageServer.Server.f/2``

The exception's module is the crash's type; the frames are the functions by
module, name and arity (the arguments a clause failed on are the user's
data), an anonymous function by the function it is in. Elixir's and
Erlang/OTP's own applications (elixir, stdlib, kernel…) run whatever they
were handed: no frames. The logger's lines above ("[error] GenServer X
terminating") are the same for every crash of the process.
"""

from __future__ import annotations

import re

from crashes.model import Frame, ParsedTrace
from crashes.traces.text import MAX_LINE, lines_of

FORMAT = "elixir"
_EXCEPTION = re.compile(r"^\s{0,12}\*\* \((?P<type>[A-Z][\w.]{0,200})\) ?(?P<message>.{0,1000})$")
_FRAME = re.compile(
    r"^\s{0,16}\((?P<app>[a-z_][\w]{0,100})(?: [\w.+-]{1,40})?\) (?P<file>[^\s:]{1,300}):(?P<line>\d{1,9}): "
    r"(?P<rest>\S.{0,2000})$"
)
# "…) in Module.fun/2" closing a frame whose function was anonymous.
_IN_FUNCTION = re.compile(r" in (?P<function>[A-Z:][\w.:]{0,300}\.[\w?!\"-]{1,200}/\d{1,3})\s*$")
_NAMED = re.compile(r"^(?P<function>[A-Z:][\w.:]{0,300}\.(?:\"[^\"]{1,200}\"|[\w?!]{1,200}))(?:/(?P<arity>\d{1,3})|\()")
# Messages that name the function that failed: the crash is that function's, whatever data it was given.
_NAMES_FUNCTION = re.compile(
    r"^(?:no function clause matching in (?:anonymous fn/\d{1,3} in )?|function )(?P<function>[A-Z:][\w.:]{0,300}"
    r"\.[\w?!\"-]{1,200}/\d{1,3})(?: is undefined.*)?$"
)
_OTP_APPS = frozenset({"elixir", "stdlib", "kernel", "erts", "iex", "mix", "logger", "ex_unit", "eex"})
_FRAMES_WANTED = 1


def recognize(text: str) -> bool:
    if "** (" not in text:
        return False
    lines = list(lines_of(text))
    at = next((i for i, line in enumerate(lines) if "** (" in line and _EXCEPTION.match(line[:MAX_LINE])), None)
    return at is not None and any(_FRAME.match(line[:MAX_LINE]) for line in lines[at + 1 : at + 12])


def _function(rest: str) -> str:
    inside = _IN_FUNCTION.search(rest[-400:])
    if rest.startswith("anonymous fn") and inside:
        return inside["function"].rsplit("/", 1)[0]
    named = _NAMED.match(rest)
    if named is None:
        return inside["function"].rsplit("/", 1)[0] if inside else ""
    # By module and name: a frame printed with its arguments says no arity.
    return named["function"]


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at = next(i for i, line in enumerate(lines) if "** (" in line and _EXCEPTION.match(line[:MAX_LINE]))
    head = _EXCEPTION.match(lines[at][:MAX_LINE])
    frames = []
    for line in lines[at + 1 :]:
        found = _FRAME.match(line[:MAX_LINE])
        if found is None:
            if frames:
                break
            continue
        if found["app"] in _OTP_APPS:
            continue
        function = _function(found["rest"].strip())
        if function:
            frames.append(Frame(function=function, file=found["file"]))
    named = _NAMES_FUNCTION.match(head["message"].strip())
    crash_type = f"{head['type']} in {named['function']}" if named else head["type"]
    # Named so, it is the message too: a paste whose frames were cut reads the same line, and finds this one.
    message = crash_type if named else head["message"].strip()
    return ParsedTrace(
        format=FORMAT,
        crash_type=crash_type,
        message=message,
        frames=tuple(frames),
        language="elixir",
    )
