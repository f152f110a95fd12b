"""C++ exceptions as Boost's diagnostic_information prints them (signature v19): keyed by the function that
threw and the class thrown, never by the program's stock sentence above them.

The fixtures (tests/traces/boost_exception) are real reports from Solidity's tracker: four different bugs,
every one below "Internal compiler error during compilation:", which keyed all of them (and every other ICE
of the compiler) into one bucket before.
"""

from __future__ import annotations

import pytest

from crashes.traces import boost_exception
from tests.crashes.signing import sign
from tests.traces import fixtures, read_as_recorded

FIXTURES = fixtures("boost_exception")


@pytest.mark.parametrize("trace", FIXTURES, ids=lambda path: path.stem)
def test_the_site_is_the_throwers_class_and_function(trace):
    # A lambda inside the function is that function's throw; MSVC's signature (__cdecl, "class" in the
    # parameters) names it as GCC's does; a prompt above the file and the program's words on its line.
    meta, text, _ = read_as_recorded(trace)
    assert sign(text, "solidity").frames == (meta["site"],)


def test_each_throw_site_is_its_own_bucket():
    digests = {sign(path.read_text(), "solidity").digest for path in FIXTURES}
    assert len(FIXTURES) == 4 and len(digests) == 4


def _fixture(stem: str) -> str:
    return next(path for path in FIXTURES if path.stem == stem).read_text()


def test_a_later_release_throwing_from_the_same_function_is_the_same_bucket():
    # The line moves, the namespace moved (dev::solidity -> solidity::frontend), Boost's wrapper changed.
    old = _fixture("solidity_msvc_add_variable")
    new = (
        old.replace("CompilerContext.cpp(127)", "CompilerContext.cpp(311)")
        .replace("dev::solidity::CompilerContext", "solidity::frontend::CompilerContext")
        .replace(
            "class boost::exception_detail::clone_impl<struct dev::solidity::InternalCompilerError>",
            "boost::wrapexcept<solidity::langutil::InternalCompilerError>",
        )
    )
    assert new != old
    assert sign(new, "solidity").digest == sign(old, "solidity").digest


def test_another_exception_from_the_same_function_is_another_bucket():
    old = _fixture("solidity_array_interface_type")
    other = old.replace("langutil::InternalCompilerError", "langutil::UnimplementedFeatureError")
    assert sign(other, "solidity").crash_type == "UnimplementedFeatureError"
    assert sign(other, "solidity").digest != sign(old, "solidity").digest


@pytest.mark.parametrize(
    ("printed", "name"),
    [
        ("boost::exception_detail::clone_impl<dev::solidity::InternalCompilerError>", "InternalCompilerError"),
        ("boost::wrapexcept<boost::bad_any_cast>", "bad_any_cast"),
        (
            "class boost::exception_detail::clone_impl<struct boost::exception_detail::error_info_injector<"
            "class std::runtime_error> >",
            "runtime_error",
        ),
        ("std::out_of_range", "out_of_range"),
    ],
)
def test_boosts_wrappers_are_no_part_of_the_class(printed, name):
    assert boost_exception.exception_class(printed) == name


def test_a_throw_without_its_location_is_keyed_by_its_class():
    text = (
        "Throw location unknown (consider using BOOST_THROW_EXCEPTION)\n"
        "Dynamic exception type: boost::wrapexcept<boost::program_options::unknown_option>\n"
        "std::exception::what: unrecognised option '--frobnicate'\n"
    )
    signed = sign(text)
    assert (signed.trace_format, signed.crash_type) == ("boost-exception", "unknown_option")
