"""Symbols printed as linked key as the names a demangling tool prints (crashes.demangle)."""

from __future__ import annotations

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
