"""C++ exceptions as Boost's ``diagnostic_information`` prints them: where they were thrown, and as what.

``/src/libsolidity/ast/Types.cpp(2321): Throw in function virtual bool solidity::frontend::StructType::f() const``
``Dynamic exception type: boost::exception_detail::clone_impl<solidity::langutil::InternalCompilerError>``
``std::exception::what: Expected detailed error message!``

Every program that throws with ``BOOST_THROW_EXCEPTION`` and reports what it
caught this way prints these lines (Solidity's "Internal compiler error
during compilation:", cpp-ethereum's, many others' top-level handlers): the
line above them is each program's stock sentence, and the throw's function
is what tells one crash from another, as an assertion's function does. Its
file's line moves between versions and is not kept; nor is the namespace the
function's class was in (Solidity moved ``dev::solidity`` to
``solidity::frontend``). The exception's class without Boost's wrappers
(``clone_impl<…>``, ``wrapexcept<…>``) is the crash's type; ``what()`` is its
message, often a stock one ("Unknown exception", "std::exception").
"""

from __future__ import annotations

import re

from crashes.model import ParsedTrace
from crashes.traces.llvm import function_name
from crashes.traces.text import lines_of

FORMAT = "boost-exception"
# "…/Types.cpp(2321): Throw in function <signature>", behind a prompt or a program's words on the same line.
_THROW = re.compile(
    r"(?:^|\s)(?P<file>(?:[A-Za-z]:)?[^\s()]{0,500}\.(?:cpp|cc|cxx|c|h|hpp|hxx|ipp))\((?P<line>\d{1,9})\): "
    r"Throw in function (?P<function>\S.{0,1000})$"
)
_UNKNOWN_LOCATION = "Throw location unknown (consider using BOOST_THROW_EXCEPTION)"
_TYPE = re.compile(r"^\s{0,8}Dynamic exception type: (?P<type>\S.{0,1000})$")
_WHAT = re.compile(r"^\s{0,8}std::exception::what: (?P<what>.{0,1000})$")
# Boost's wrappers around the class thrown, and MSVC's words for a class or a struct.
_WRAPPER = re.compile(r"\b(?:boost::)?(?:exception_detail::)?(?:clone_impl|error_info_injector|wrapexcept)<")
_CLASS_KEY = re.compile(r"\b(?:class|struct) ")
# Lines between the throw's line and the type's.
_TYPE_WITHIN = 2


def _type_line(lines: list[str], start: int) -> int:
    """The index of the "Dynamic exception type:" line at or just below ``start``, or -1."""
    for index in range(start, min(len(lines), start + _TYPE_WITHIN + 1)):
        if _TYPE.match(lines[index]):
            return index
    return -1


def _head(lines: list[str]) -> int:
    """The index of the throw's line (or of Boost's "Throw location unknown") above its type's, or -1."""
    for index, line in enumerate(lines):
        thrown = ("Throw in function " in line and _THROW.search(line)) or line.strip() == _UNKNOWN_LOCATION
        if thrown and _type_line(lines, index + 1) != -1:
            return index
    return -1


def recognize(text: str) -> bool:
    if "Dynamic exception type: " not in text:
        return False
    return _head(list(lines_of(text))) != -1


def exception_class(printed: str) -> str:
    """``boost::exception_detail::clone_impl<dev::solidity::InternalCompilerError>`` -> ``InternalCompilerError``."""
    name = _CLASS_KEY.sub("", printed.strip())
    while True:
        match = _WRAPPER.match(name)
        if match is None or not name.endswith(">"):
            break
        name = name[match.end() : -1].strip()
    # The class by its own name: namespaces move between versions (dev::solidity, solidity::langutil).
    return name.rsplit("::", 1)[-1] if "<" not in name else name


def _site(function: str) -> str:
    """The thrower's class and function: ``solidity::frontend::StructType::isDynamicallyEncoded`` ->
    ``StructType::isDynamicallyEncoded`` (a lambda inside it is that function's)."""
    name = function_name(_CLASS_KEY.sub("", function.replace("__cdecl ", "")))
    parts = [part for part in name.split("::") if part]
    return "::".join(parts[-2:])


def parse(text: str) -> ParsedTrace:
    lines = list(lines_of(text))
    at = _head(lines)
    throw = _THROW.search(lines[at])
    type_at = _type_line(lines, at + 1)
    crash_type = exception_class(_TYPE.match(lines[type_at])["type"])
    what = next((m["what"].strip() for line in lines[type_at + 1 : type_at + 3] if (m := _WHAT.match(line))), "")
    site = _site(throw["function"]) if throw else ""
    return ParsedTrace(format=FORMAT, crash_type=crash_type, message=what, language="native", site=site)
