"""Elixir's exceptions are read (signature v19): the exception's module, and the function a
FunctionClauseError or an UndefinedFunctionError names; the frames by module and name, Elixir's and OTP's
own applications skipped, the arguments (the user's data) and the arity a frame printed with them lacks
left out.

The fixtures (tests/traces/elixir) are JakeBecker/elixir-ls#63 and its duplicate #104, as posted: one bug
at two versions of ElixirSense, its lines moved.
"""

from __future__ import annotations

from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("elixir")


def test_a_duplicate_at_another_version_is_one_bucket():
    first, second = (sign(read_as_recorded(path)[1], "elixir-ls") for path in FIXTURES)
    assert first.crash_type == "FunctionClauseError in ElixirSense.Core.Introspection.extract_spec_ast_parts/1"
    assert first.frames[:2] == (
        "ElixirSense.Core.Introspection.extract_spec_ast_parts",
        "ElixirSense.Core.Introspection.format_spec_ast",
    )
    assert first.digest == second.digest


def test_a_logged_crash_is_keyed_by_the_function_not_the_loggers_line():
    # elixir-lsp/elixir-ls#474's head, its frames cut off: the logger's "[error] GenServer … terminating"
    # is the same for every crash of the server.
    text = (
        "16:25:40.654 [error] GenServer ElixirLS.LanguageServer.Server terminating\n"
        "** (FunctionClauseError) no function clause matching in anonymous fn/2 in "
        "ElixirLS.LanguageServer.Server.handle_notification/2\n"
        '    (language_server 0.6.4) lib/language_server/server.ex:402: anonymous fn(%{"type" => 2}, %{})\n'
    )
    signed = sign(text, "elixir-ls")
    assert "handle_notification" in signed.message
    assert "GenServer" not in signed.message
