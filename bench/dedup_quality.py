"""How well does bucketing match root causes? Pairwise precision, recall, F1.

On tests/data/dedup_corpus.jsonl (real public traces of distinct bugs, each
also in variants with other paths, line numbers, addresses, inputs and
depth; see tests/data/build_dedup_corpus.py) it buckets every trace three
ways and compares each bucketing with the labels:

- fuzzweb: triage.signatures (current version);
- top3: the plain rule "exception type + last 3 frames", frames as printed
  (file, line, function), no normalisation, no frames skipped;
- fuzzmanager: FuzzManager's FTB, as its server does it: a crash joins the
  first bucket whose signature matches it, else a new bucket is made from
  the crash's own createCrashSignature().

    .venv/bin/python bench/dedup_quality.py        (make bench-deps first)
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from triage import signatures, traces  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "dedup_corpus.jsonl"


def pairwise(labels: list[str], clusters: list[str]) -> tuple[float, float, float]:
    """Pairwise precision, recall and F1 of ``clusters`` against ``labels``."""
    same_cluster = sum(comb(n, 2) for n in Counter(clusters).values())
    same_label = sum(comb(n, 2) for n in Counter(labels).values())
    both = sum(comb(n, 2) for n in Counter(zip(clusters, labels, strict=True)).values())
    precision = both / same_cluster if same_cluster else 1.0
    recall = both / same_label if same_label else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def fuzzweb_bucket(trace: str) -> str:
    return signatures.compute(kind="crash", trace_text=trace).digest


def top3_bucket(trace: str) -> str:
    parsed = traces.parse(trace)
    if parsed is None:
        return "unparsed:" + trace.strip().splitlines()[0] if trace.strip() else "empty"
    frames = [f"{f.file}:{f.line}:{f.function}" for f in parsed.frames[:3]]
    return "|".join([parsed.crash_type, *frames])


class FuzzManagerBuckets:
    """FuzzManager's own matching: each crash is tried against every bucket."""

    def __init__(self):
        from FTB.ProgramConfiguration import ProgramConfiguration

        self.config = ProgramConfiguration("target", "x86-64", "linux")
        self.buckets = []  # (name, CrashSignature)
        self.unmatched = 0

    def bucket(self, trace: str) -> str:
        from FTB.Signatures.CrashInfo import CrashInfo

        crash = CrashInfo.fromRawCrashData([], trace.splitlines(), self.config)
        for name, signature in self.buckets:
            if signature.matches(crash):
                return name
        signature = crash.createCrashSignature()
        if signature is None:
            # FuzzManager cannot make a signature: the crash stays alone.
            self.unmatched += 1
            return f"unbucketed-{self.unmatched}"
        name = f"fm-{len(self.buckets)}"
        self.buckets.append((name, signature))
        return name


def main() -> int:
    records = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    labels = [r["bug"] for r in records]
    formats = sorted({r["format"] for r in records})
    print(f"corpus: {len(records)} traces, {len(set(labels))} bugs, formats: {', '.join(formats)}")
    try:
        fuzzmanager = FuzzManagerBuckets()
    except ImportError:
        print("FuzzManager is not installed: run `make bench-deps`", file=sys.stderr)
        return 2
    methods = {
        "fuzzweb": [fuzzweb_bucket(r["trace"]) for r in records],
        "top3": [top3_bucket(r["trace"]) for r in records],
        "fuzzmanager": [fuzzmanager.bucket(r["trace"]) for r in records],
    }
    print(f"\n{'method':12} {'buckets':>8} {'precision':>10} {'recall':>8} {'F1':>7}")
    scores = {}
    for name, clusters in methods.items():
        precision, recall, f1 = pairwise(labels, clusters)
        scores[name] = f1
        print(f"{name:12} {len(set(clusters)):8d} {precision:10.3f} {recall:8.3f} {f1:7.3f}")

    print("\nF1 per format:")
    print(f"{'format':10} " + " ".join(f"{name:>12}" for name in methods))
    for fmt in formats:
        index = [i for i, r in enumerate(records) if r["format"] == fmt]
        row = [pairwise([labels[i] for i in index], [clusters[i] for i in index])[2] for clusters in methods.values()]
        print(f"{fmt:10} " + " ".join(f"{value:12.3f}" for value in row))

    merged = defaultdict(set)
    for label, cluster in zip(labels, methods["fuzzweb"], strict=True):
        merged[cluster].add(label)
    wrong = [sorted(bugs) for bugs in merged.values() if len(bugs) > 1]
    if wrong:
        print("\nfuzzweb buckets holding more than one bug:", *wrong, sep="\n  ")
    print(f"f1 fuzzweb={scores['fuzzweb']:.3f} top3={scores['top3']:.3f} fuzzmanager={scores['fuzzmanager']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
