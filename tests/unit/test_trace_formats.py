"""Every trace parser on real traces from public bug reports (tests/traces/<format>/).

Each fixture's .meta says what a reader of the trace sees: its source, the
error as printed and the innermost frame of the first stack. The parser
must find the same, after auto-detecting the format.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crashes.v1 import traces
from tests.traces import read_meta

ROOT = Path(__file__).resolve().parent.parent / "traces"
FORMAT_OF = {
    "jvm": "jvm",
    "dotnet": "dotnet",
    "gcc": "gcc-ice",
    "clang": "llvm",
    "gdb": "gdb",
    "sanitizer": "sanitizer",
    "rust": "rust",
    "go": "go",
}


def _fixtures(*folders):
    return sorted(p for folder in folders for p in (ROOT / folder).glob("*.txt"))


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_enough_real_traces_per_format():
    counts = {folder: len(_fixtures(folder)) for folder in [*FORMAT_OF, "libfuzzer", "python"]}
    assert all(count >= 4 for count in counts.values()), counts
    assert sum(counts.values()) >= 90


@pytest.mark.parametrize("path", _fixtures(*FORMAT_OF, "libfuzzer"), ids=_id)
def test_fixture_has_a_public_source(path):
    assert read_meta(path)["source"].startswith("https://")


@pytest.mark.parametrize("path", _fixtures("jvm"), ids=_id)
def test_jvm(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "jvm"
    blocks = [*parsed.causes, parsed]
    # The exception whose stack is printed first, with its innermost frame.
    first = next(b for b in blocks if b.frames)
    assert first.crash_type == meta["error"]
    # Java 9+ module prefixes ("java.base/") are dropped from frame names.
    assert first.frames[0].function == re.sub(r"^([\w.-]+(@[\w.-]+)?/)+", "", meta["innermost"])
    # The crash is the root cause: the last exception of the chain.
    assert parsed.crash_type == blocks[-1].crash_type


@pytest.mark.parametrize("path", _fixtures("dotnet"), ids=_id)
def test_dotnet(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "dotnet"
    assert parsed.crash_type == meta["error"]
    assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("gcc"), ids=_id)
def test_gcc(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "gcc-ice"
    # The line number of the ICE site is dropped: it moves between releases.
    assert parsed.crash_type == "internal compiler error: " + re.sub(r"(\.\w+):\d+$", r"\1", meta["error"])
    if meta["innermost"] == "none":
        assert parsed.frames == ()
    else:
        assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("clang"), ids=_id)
def test_llvm(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "llvm"
    expected = "SEGV" if meta["error"] == "SEGV" else f"Assertion `{meta['error']}' failed"
    assert parsed.crash_type == expected
    assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("gdb"), ids=_id)
def test_gdb(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "gdb"
    assert parsed.crash_type == meta["error"]
    assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("sanitizer"), ids=_id)
def test_sanitizers(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "sanitizer"
    # Memory errors carry the access kind: "heap-buffer-overflow READ".
    assert parsed.crash_type == meta["error"] or re.fullmatch(
        re.escape(meta["error"]) + r" (READ|WRITE)", parsed.crash_type
    )
    if meta["innermost"] == "none":
        assert not parsed.frames or not parsed.frames[0].function
    else:
        assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("libfuzzer"), ids=_id)
def test_libfuzzer_and_atheris(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    if meta["format"] == "atheris":
        assert parsed.format == "python"
        assert parsed.crash_type == meta["error"]
    else:
        assert parsed.format == "libfuzzer"
        assert meta["error"].startswith(parsed.crash_type)
        assert not re.search(r"\d", parsed.crash_type)
    if meta["innermost"] == "none":
        assert not parsed.frames
    else:
        assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("rust"), ids=_id)
def test_rust(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "rust"
    assert parsed.message == meta["error"]
    assert not re.search(r"\d", parsed.crash_type)
    if meta["innermost"] == "none":
        assert not parsed.frames[0].function  # only the panic location
    else:
        assert parsed.frames[0].function == meta["innermost"]


@pytest.mark.parametrize("path", _fixtures("go"), ids=_id)
def test_go(path):
    meta, parsed = read_meta(path), traces.parse(path.read_text())
    assert parsed.format == "go"
    assert parsed.message == meta["error"]
    assert parsed.frames[0].function == meta["innermost"]
