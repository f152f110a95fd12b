"""Record the current signature version's digests of every real trace: tests/data/current_digests.json.

A signature version is a promise: the same report gets the same digest for
as long as the version stands, so that a finding ingested today lands in the
bucket an identical one made last month. ``tests/crashes/test_current_frozen.py``
holds every rule change to it. A change that moves any digest bumps
``crashes.signatures.CURRENT.VERSION`` (``manage.py rebucket`` then moves
stored findings) and re-records:

    .venv/bin/python -m tests.data.record_digests
"""

from __future__ import annotations

import json
from pathlib import Path

from crashes import signatures

DATA = Path(__file__).resolve().parent
OUTPUT = DATA / "current_digests.json"


def dedup_records() -> dict[str, dict]:
    """The real reports of tests/data/dedup, by id, in file and line order."""
    found = {}
    for path in sorted((DATA / "dedup").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                found[record["id"]] = record
    return found


def real_traces() -> dict[str, tuple[str, str]]:
    """Every real report the tests hold, by a stable key: (text, target)."""
    found = {}
    traces = DATA.parent / "traces"
    for path in sorted(traces.glob("*/**/*.txt")):
        found[f"traces/{path.relative_to(traces).as_posix()}"] = (path.read_text(), "")
    for record_id, record in dedup_records().items():
        found[f"dedup/{record_id}"] = (record["trace"], record["project"])
    return found


def digests() -> dict[str, str]:
    return {
        key: signatures.CURRENT.compute(kind="crash", trace_text=text, target=target).digest
        for key, (text, target) in real_traces().items()
    }


def main() -> None:
    payload = {"version": signatures.CURRENT.VERSION, "digests": digests()}
    OUTPUT.write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n")
    print(f"{len(payload['digests'])} digests of signature v{payload['version']} in {OUTPUT}")


if __name__ == "__main__":
    main()
