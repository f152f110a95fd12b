"""Signature v1 is frozen: its digests of every test trace are those recorded before v2 existed."""

import json
from pathlib import Path

from crashes.v1 import signature as v1

DATA = Path(__file__).resolve().parents[1] / "data"


def test_v1_digests_unchanged():
    recorded = json.loads((DATA / "v1_digests.json").read_text())
    corpus = [json.loads(line) for line in (DATA / "dedup_corpus.jsonl").read_text().splitlines()]
    changed = []
    for key, digest in recorded.items():
        if key.startswith("dedup_corpus:"):
            text = corpus[int(key.split(":")[1])]["trace"]
        else:
            text = (DATA.parent / "traces" / key).read_text()
        if v1.compute(kind="crash", trace_text=text).digest != digest:
            changed.append(key)
    assert len(recorded) > 200
    assert changed == []
