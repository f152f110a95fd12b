"""Real traces, one folder per format; see README.md here."""

from __future__ import annotations

from pathlib import Path

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
