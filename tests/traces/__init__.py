"""Real traces, one folder per format; see README.md here."""

from __future__ import annotations

from pathlib import Path

from crashes import traces
from crashes.model import ParsedTrace

ROOT = Path(__file__).resolve().parent


def read_meta(trace: Path) -> dict[str, str]:
    """The fields of ``trace``'s sidecar ``.meta`` file (source, error, innermost, ...)."""
    fields = {}
    for line in trace.with_suffix(".meta").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def fixtures(folder: str) -> list[Path]:
    """The traces of one format's folder, in a stable order (for a test parametrized over them)."""
    return sorted((ROOT / folder).glob("*.txt"))


def read_as_recorded(trace: Path, source: str = "https://") -> tuple[dict[str, str], str, ParsedTrace]:
    """``trace``'s fields, text and parse, after checking what every format's fixture records.

    Its source is a public report (starting with ``source``), and it reads in the recorded format
    as the recorded error.
    """
    meta, text = read_meta(trace), trace.read_text()
    assert meta["source"].startswith(source)
    parsed = traces.parse(text)
    assert (parsed.format, parsed.crash_type) == (meta["format"], meta["error"])
    return meta, text, parsed


def read_report(name: str, source: str = "https://github.com/") -> str:
    """The real report ``tests/traces/<name>.txt``, its recorded source checked to start with ``source``."""
    path = ROOT / f"{name}.txt"
    assert read_meta(path)["source"].startswith(source)
    return path.read_text()
