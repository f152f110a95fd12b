"""Symbols printed as linked key as the names a demangling tool prints (crashes.demangle)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from crashes import signatures
from crashes.demangle import demangle
from crashes.frames import normalize_function
from tests.data.record_digests import dedup_records


@pytest.mark.parametrize(
    ("symbol", "name"),
    [
        ("_ZN4llvm13FPPassManager13runOnFunctionERNS_8FunctionE", "llvm::FPPassManager::runOnFunction"),
        ("_ZNK4llvm3DIE13getUnitOrNullEv", "llvm::DIE::getUnitOrNull"),  # a const method
        ("__ZN4llvm6legacy15PassManagerImpl3runERNS_6ModuleE", "llvm::legacy::PassManagerImpl::run"),  # macOS
        ("_ZN4llvm6legacy15PassManagerImpl3runERNS_6ModuleE+0x1a4", "llvm::legacy::PassManagerImpl::run"),
        ("_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector::push_back"),  # template arguments skipped
        ("_ZN3FooC2Ev", "Foo::Foo"),
        ("_ZN3FooD1Ev", "Foo::~Foo"),
        ("_Z3foov", "foo"),
        (
            "_ZN5clang6clangd12_GLOBAL__N_18readLineEP8_IO_FILERN4llvm15SmallVectorImplIcEE",
            "clang::clangd::(anonymous namespace)::readLine",
        ),
        # Template arguments stepped over whole: substitutions (S1_), packs (J…E), function types (F…E).
        (
            "_ZN4llvm15AnalysisManagerINS_8FunctionEJEE10invalidateERS1_RKNS_17PreservedAnalysesE",
            "llvm::AnalysisManager::invalidate",
        ),
        ("_ZN1N1SIFviEE1gEv", "N::S::g"),
        ("_ZNSs4sizeEv", "std::basic_string::size"),
        ("_ZSt9terminatev", "std::terminate"),
        ("_ZL3foov", "foo"),  # static
        ("_Z10GetTempDirB5cxx11v", "GetTempDir"),  # an ABI tag
        # Rust before its v0 mangling: punctuation escaped, a hash last.
        (
            "_ZN41_$LT$bool$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE",
            "<bool as core::fmt::Debug>::fmt::h0123456789abcdef",
        ),
        (
            "_ZN3std9panicking12default_hook28_$u7b$$u7b$closure$u7d$$u7d$17haba1b8b7cf61bd7aE.llvm.526D1984",
            "std::panicking::default_hook::{{closure}}::haba1b8b7cf61bd7a",
        ),
    ],
)
def test_the_name_inside_a_symbol(symbol, name):
    assert demangle(symbol) == name


@pytest.mark.parametrize(
    "text",
    ["main", "_Z", "_ZN99999", "_ZN3fooXyz", "_ZN" + "9" * 50, "llvm::foo", "_Z²", "_Z١foo", "_ZN3FooplERKS_"],
)
def test_what_is_not_read_is_left_as_it_was(text):
    assert demangle(text) == text


def test_a_frame_keys_alike_mangled_or_demangled():
    demangled = "clang::clangd::(anonymous namespace)::readLine(_IO_FILE*, llvm::SmallVectorImpl<char>&)"
    mangled = "_ZN5clang6clangd12_GLOBAL__N_18readLineEP8_IO_FILERN4llvm15SmallVectorImplIcEE"
    assert normalize_function(mangled, "native") == normalize_function(demangled, "native")


def test_a_backtrace_printed_with_symbols_as_linked_keys_by_their_names():
    # clangd/clangd#1648: clangd's own stack printer showed the symbols undemangled.
    trace = dedup_records()["clangd/clangd#1648"]["trace"]
    assert "_ZN5clang6clangd15ClangdLSPServer3runEv" in trace
    frames = signatures.compute(kind="crash", trace_text=trace, target="t").frames
    assert "clang::clangd::ClangdLSPServer::run" in frames
    assert not any(frame.startswith("_Z") for frame in frames)


def test_a_constructor_code_adds_its_class_once():
    # "C1" repeated is no symbol: it must not grow the name a class at a time.
    assert demangle("_ZN3Foo" + "C1" * 62 + "E").count("Foo") <= 2


def test_gccs_clones_and_a_methods_qualifiers_are_not_its_name():
    assert normalize_function("Foo::bar() [clone .cold]", "native") == "Foo::bar"
    assert normalize_function("Baz::qux() const &", "native") == "Baz::qux"


def test_an_abi_tag_is_not_part_of_the_name_demangled_or_not():
    assert normalize_function("GetTempDir[abi:cxx11]()", "native") == normalize_function(
        "_Z10GetTempDirB5cxx11v", "native"
    )


def test_every_libstdcxx_symbol_read_keys_as_cxxfilts_demangling():
    # The real tools: nm lists the C++ library's symbols as linked, c++filt demangles them.
    library = next(Path("/usr/lib").glob("*/libstdc++.so.6"))
    listed = subprocess.run(["nm", "-D", str(library)], capture_output=True, text=True, check=True).stdout
    symbols = sorted({line.split()[-1].split("@")[0] for line in listed.splitlines() if " _Z" in line})
    demangled = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True, check=True)
    read = [
        (symbol, tool)
        for symbol, tool in zip(symbols, demangled.stdout.splitlines(), strict=True)
        if demangle(symbol) != symbol
    ]
    assert len(symbols) > 1000 and len(read) > 0.7 * len(symbols)
    differ = [s for s, tool in read if normalize_function(s, "native") != normalize_function(tool, "native")]
    assert differ == []


def _v0(*parts: str) -> str:
    return "".join(parts)


def _ident(name: str) -> str:
    return f"{len(name)}{name}"


# Rust v0 symbols of the constructs a backtrace shows (rustc's own libraries are built with v0):
# functions in modules, inherent and trait impls, generic instantiations, closures, back references.
RUST_V0 = [
    _v0("_RNvNtCs1234_", _ident("mycrate"), _ident("foo"), _ident("bar")),
    "_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
    "_RNvXs_Cs4Cv8Wi1oAIB_7mycrateNtB4_3FooNtNtCs1234_4core3fmt7Display3fmt",
    "_RINvNtCs9ltgdHTiPiY_4core3ptr13drop_in_placeNtCs1234_7mycrate3FooEB4_",
    "_RNCNvCsdf_4main4main0B3_",
    _v0("_RNvMs0_NtCs8Kb3sJ5M0qR_", _ident("rustc_trait_selection"), _ident("solve"), "NtB5_", _ident("EvalCtxt"))
    + _ident("evaluate_goal"),
    _v0("_RNvMs0_NtCsXYZ_", _ident("rustc_trait_selection"), _ident("solve"), "NtB5_", _ident("EvalCtxt"))
    + _ident("evaluate_goal")
    + ".llvm.4242",
    # A generic impl's method: <Vec<u8>>::push, its self type instantiated with a basic type.
    "_RNvMNtCs1_5alloc3vecINtB2_3VechE4pushCs2_5crate",
    # Through a reference and a slice: <&[u8] as core::fmt::Debug>::fmt.
    "_RNvXCs1_5crateRShNtNtCs2_4core3fmt5Debug3fmt",
]


def _as_read(demangled: str) -> str:
    """c++filt's demangling as a frame is keyed: no crate hashes, generic arguments or closure numbers,
    an impl by its self type."""
    name = re.sub(r"\[[0-9a-f]+\]", "", demangled)
    name = re.sub(r"\{closure#\d+\}", "{closure}", name)
    out, depth = [], 0
    for index, char in enumerate(name):  # drop "::<…>" turbofish arguments
        if name.startswith("::<", index) and depth == 0:
            depth = 1
        elif depth and char == "<":
            depth += 1
        elif depth and char == ">":
            depth -= 1
            continue
        if not depth:
            out.append(char)
    name = "".join(out).replace("::::", "::")
    impl = re.match(r"^<(?P<self>.+?)(?: as .+)?>::(?P<rest>.+)$", name)
    if impl:
        self_type = impl["self"]
        self_type = re.sub(r"<.*>$", "", self_type)  # Vec<u8> -> Vec
        self_type = {"&[u8]": "&_"}.get(self_type, self_type)
        name = f"{self_type}::{impl['rest']}"
    return name


def test_rust_v0_symbols_read_as_binutils_demangles_them():
    # c++filt (libiberty) reads Rust's v0 mangling: the names must be its, without what changes
    # between builds (the crate hashes in brackets).
    demangled = subprocess.run(["c++filt"], input="\n".join(RUST_V0), capture_output=True, text=True, check=True)
    for symbol, tool in zip(RUST_V0, demangled.stdout.splitlines(), strict=True):
        assert tool != symbol, symbol  # binutils read it: a well-formed symbol
        assert demangle(symbol) == _as_read(tool), (symbol, tool)
    # Two builds of rustc (other crate hashes, other back references) name one function alike.
    assert demangle(RUST_V0[5]) == demangle(RUST_V0[6]) == "rustc_trait_selection::solve::EvalCtxt::evaluate_goal"


def _doubling(levels: int) -> str:
    """A v0 symbol whose every level refers back to the one inside it: re-read in full, 2**levels steps."""
    symbol = "C1a"
    for level in range(1, levels + 1):
        inner = levels - level + 1  # where the level inside starts, just after this one's "I"
        symbol = f"I{symbol}B{_BASE62[inner - 1]}_E"
    return "_R" + symbol


_BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@pytest.mark.parametrize(
    "text",
    [
        "_R",
        "_RB0_",
        "_RNvC3foo",
        "_RNvNtB0_3a3b",
        "_RC" + "9" * 50,
        "_RNvNtCs_" + "N" * 5000,
        "_RINv" + "I" * 200,
        _doubling(50),
    ],
)
def test_a_v0_symbol_not_read_is_left_as_it_was(text):
    # Cut, forward back references, lengths past the end, nesting deeper than any real symbol, and
    # back references that would re-read the symbol 2**50 times.
    assert demangle(text) == text
