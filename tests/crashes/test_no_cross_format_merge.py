"""No bucket ever holds reports of two language families (a Rust panic with a C++ crash…).

Such a merge is never right, whichever split it is on: this guards both splits of the corpus
(tests/data/dedup) as bench/dedup_quality.py buckets them, and says only how many there are.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import dedup_quality  # noqa: E402


def test_no_bucket_mixes_language_families():
    records = dedup_quality.load_corpus()
    split = dedup_quality.json.loads(dedup_quality.SPLIT.read_text())
    for name in ("dev", "test"):
        subset = [r for r in records if dedup_quality.split_of(r["project"], split) == name]
        clusters = dedup_quality.fuzzweb_clusters(subset)
        assert dedup_quality.cross_format_merges(subset, clusters) == 0, f"a cross-format merge on the {name} split"
