"""Build tests/data/dedup_corpus.jsonl: labelled traces for bench/dedup_quality.py.

Every real trace under tests/traces/ (each a different bug, copied from a
public bug report named in its .meta) appears as printed plus in VARIANTS
variants (tests/data/variants.py: other paths, line numbers, addresses,
inputs and recursion depth). The label is the bug id from the .meta.

    python -m tests.data.build_dedup_corpus
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.data.variants import variant
from tests.traces import read_meta

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = Path(__file__).resolve().parent / "dedup_corpus.jsonl"
VARIANTS = 2


def build() -> list[dict]:
    """The corpus records, in a stable order."""
    records = []
    for number, path in enumerate(sorted((ROOT / "traces").glob("*/*.txt"))):
        meta = read_meta(path)
        bug = meta.get("bug") or f"{path.parent.name}-{path.stem}"
        text = path.read_text()
        base = {"bug": bug, "format": path.parent.name, "source": meta["source"], "fixture": path.name}
        records.append({**base, "variant": 0, "trace": text})
        for index in range(1, VARIANTS + 1):
            records.append({**base, "variant": index, "trace": variant(text, seed=number * 100 + index)})
    return records


def main() -> None:
    records = build()
    with OUTPUT.open("w") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")
    bugs = {r["bug"] for r in records}
    formats = {r["format"] for r in records}
    print(f"{len(records)} traces of {len(bugs)} bugs in {len(formats)} formats -> {OUTPUT}")


if __name__ == "__main__":
    main()
