"""How well does bucketing match root causes on crash reports nobody here wrote? Pairwise precision, recall, F1.

The corpus (tests/data/dedup/*.jsonl) is real crash reports from public
issue trackers, kept exactly as posted (prompts, quoting, wrapping,
truncation), each labelled with the bug its maintainers said it is: a
duplicate carries the id of the issue it was closed as a duplicate of (or
that the same change fixed); every record names its source and evidence.
No synthetic variants are scored (those are unit tests).

The split (tests/data/dedup_split.json) was frozen on 2026-11-24 before any
rule was tuned on the corpus: projects are ranked by a salted sha256 of
their name and the first third is the test split; a project added later
joins the test split when its hash is at most the recorded cutoff. Rules
and thresholds are tuned on the dev split only.

Methods, each run over the records in corpus order, with the project as
the target (as the ingest client would submit them):

- fuzzweb: the current signature (crashes.signatures) and then the fuzzy
  stage (crashes.similarity) against the buckets of the same target, as
  triage.ingest does;
- top3: "exception type + top 3 frames" as printed (file, line, function),
  no normalisation, no frames skipped (frames read by the v1 parsers);
- fuzzmanager: FuzzManager's FTB: a crash joins the first bucket whose
  signature matches it, else gets a new one from createCrashSignature();
- clusterfuzz: ClusterFuzz's stack analyzer (crash type + crash state) and
  its crash comparer's fuzzy grouping, run in .venv-clusterfuzz
  (bench/clusterfuzz_grouping.py; `make bench-deps`).

    .venv/bin/python bench/dedup_quality.py [--quick] [--thresholds] [--decisions]

Each split's table is followed by where fuzzweb's wrong pairs come from:
false pairs made by the exact digest or by the fuzzy stage, and missed
pairs whose reports share nothing the keys read or were alike below the
threshold.

--decisions also scores the current algorithm against the maintainers'
own decisions stored in the database at DATABASE_URL (triage.decisions:
standing merges are "same bug", splits and undone fuzzy matches are
"different bugs"): would it put each pair's example findings together now?

--quick scores fuzzweb and top3 on the dev split only (what `make test`
runs to keep this bench alive). Last line:
f1_test fuzzweb=<x> top3=<y> fuzzmanager=<z> clusterfuzz=<w> f1_dev=<v>
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections import Counter, defaultdict
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crashes import signatures, similarity  # noqa: E402
from crashes.v1 import traces as v1_traces  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "dedup"
SPLIT = ROOT / "tests" / "data" / "dedup_split.json"
CLUSTERFUZZ_PYTHON = ROOT / ".venv-clusterfuzz" / "bin" / "python"


def load_corpus() -> list[dict]:
    """Every record of the corpus, in file and line order."""
    records = []
    for path in sorted(CORPUS.glob("**/*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                records.append(json.loads(line))
    return records


def split_of(project: str, split: dict) -> str:
    """``test`` or ``dev``, by the frozen lists, else by the recorded hash cutoff."""
    if project in split["test"]:
        return "test"
    if project in split["dev"]:
        return "dev"
    digest = hashlib.sha256((split["salt"] + project).encode()).hexdigest()
    return "test" if digest <= split["cutoff"] else "dev"


def pairwise(labels: list[str], clusters: list[str]) -> tuple[float, float, float]:
    """Pairwise precision, recall and F1 of ``clusters`` against ``labels``."""
    same_cluster = sum(comb(n, 2) for n in Counter(clusters).values())
    same_label = sum(comb(n, 2) for n in Counter(labels).values())
    both = sum(comb(n, 2) for n in Counter(zip(clusters, labels, strict=True)).values())
    precision = both / same_cluster if same_cluster else 1.0
    recall = both / same_label if same_label else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class FuzzwebBuckets:
    """Exact signatures, then the fuzzy stage over the target's buckets, as ingest does."""

    def __init__(self, threshold: float = similarity.THRESHOLD):
        self.threshold = threshold
        self.by_digest: dict[tuple[str, str], str] = {}
        self.shapes: dict[str, list[tuple[str, similarity.Shape]]] = defaultdict(list)
        self.fuzzy_joins = 0
        # When each bucket was last hit (a report's number): ingest asks for candidates most recent first.
        self.last_seen: dict[str, int] = {}
        self.reports = 0

    def bucket(self, trace: str, target: str) -> str:
        signature = signatures.compute(kind="crash", trace_text=trace, target=target)
        # The exact lookup is across targets, as the signature index is (a signature
        # says itself whether its target is part of it).
        key = ("", signature.digest)
        if key in self.by_digest:
            return self._hit(self.by_digest[key])
        shape = similarity.shape_of(signature)
        wanted = set(shape.lookup_keys())
        candidates = [
            (name, other)
            for name, other in self.shapes[target]
            if wanted & set(other.lookup_keys())
            and other.kind == shape.kind
            # Frames are compared within a format; a report with none, by its message, with any.
            and (not shape.frames or other.trace_format == shape.trace_format)
        ]
        # As triage.fuzzy finds them: the most recently hit first (ties go to the first), at most CANDIDATES.
        candidates.sort(key=lambda candidate: -self.last_seen[candidate[0]])
        best = similarity.best_match(shape, candidates[: similarity.CANDIDATES], self.threshold)
        if best is not None:
            self.fuzzy_joins += 1
            self.by_digest[key] = best[0]
            return self._hit(best[0])
        name = signature.digest
        self.by_digest[key] = name
        self.shapes[target].append((name, shape))
        return self._hit(name)

    def _hit(self, name: str) -> str:
        self.reports += 1
        self.last_seen[name] = self.reports
        return name


def fuzzweb_clusters(records: list[dict], threshold: float = similarity.THRESHOLD) -> list[str]:
    buckets = FuzzwebBuckets(threshold)
    return [buckets.bucket(r["trace"], r["project"]) for r in records]


def top3_clusters(records: list[dict]) -> list[str]:
    out = []
    for record in records:
        trace = record["trace"]
        parsed = v1_traces.parse(trace)
        if parsed is None:
            first = next((line for line in trace.splitlines() if line.strip()), "")
            out.append("unparsed:" + first)
            continue
        frames = [f"{f.file}:{f.line}:{f.function}" for f in parsed.frames[:3]]
        out.append("|".join([parsed.format, parsed.crash_type, *frames]))
    return out


def fuzzmanager_clusters(records: list[dict]) -> list[str] | None:
    try:
        from FTB.ProgramConfiguration import ProgramConfiguration
        from FTB.Signatures.CrashInfo import CrashInfo
    except ImportError:
        return None
    config = ProgramConfiguration("target", "x86-64", "linux")
    buckets, out, unmatched = [], [], 0
    for record in records:
        try:
            crash = CrashInfo.fromRawCrashData([], record["trace"].splitlines(), config)
            name = next((name for name, sig in buckets if sig.matches(crash)), None)
            sig = crash.createCrashSignature() if name is None else None
        except Exception:  # noqa: BLE001 - FTB raises on traces it cannot read; such a crash stays alone
            name, sig = None, None
        if name is None:
            if sig is None:
                unmatched += 1
                name = f"unbucketed-{unmatched}"
            else:
                name = f"fm-{len(buckets)}"
                buckets.append((name, sig))
        out.append(name)
    return out


def clusterfuzz_clusters(records: list[dict]) -> list[str] | None:
    if not CLUSTERFUZZ_PYTHON.exists():
        return None
    payload = "".join(
        json.dumps({"id": i, "trace": r["trace"], "group": r["project"]}) + "\n" for i, r in enumerate(records)
    )
    done = subprocess.run(
        [str(CLUSTERFUZZ_PYTHON), str(ROOT / "bench" / "clusterfuzz_grouping.py")],
        input=payload,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        print(f"clusterfuzz grouping failed: {done.stderr[-2000:]}", file=sys.stderr)
        return None
    rows = {row["id"]: row["cluster"] for row in map(json.loads, done.stdout.splitlines())}
    return [str(rows[i]) for i in range(len(records))]


# Which language's traces each ecosystem reports (a rustc ICE and an
# application's panic are both Rust panics; GCC's and an ASan report are native).
FAMILY = {
    "rustc": "rust",
    "rust-app": "rust",
    "mypy": "python",
    "python-app": "python",
    "go-compiler": "go",
    "go-app": "go",
    "clang-llvm": "native",
    "gcc": "native",
    "other-compiler": "native",
    "native-app": "native",
    "kotlin": "jvm",
    "jvm-app": "jvm",
    "dafny": "dotnet",
    "dotnet-app": "dotnet",
}


def cross_format_merges(records: list[dict], clusters: list[str]) -> int:
    """Buckets holding reports of more than one language family: never right."""
    families = defaultdict(set)
    for record, cluster in zip(records, clusters, strict=True):
        families[cluster].add(FAMILY.get(record["ecosystem"], record["ecosystem"]))
    return sum(1 for found in families.values() if len(found) > 1)


def error_kinds(records: list[dict], clusters: list[str]) -> str:
    """Where fuzzweb's wrong pairs come from: the exact digest or the fuzzy stage, and how far a missed pair was.

    A false pair whose two reports share a digest is a key too coarse; one the fuzzy stage made is a
    threshold or a score. A missed pair whose reports score 0 share nothing the keys read (a
    different crash of one bug); one that scores above 0 was alike, below the threshold.
    """
    signed = [signatures.compute(kind="crash", trace_text=r["trace"], target=r["project"]) for r in records]
    shapes = [similarity.shape_of(signature) for signature in signed]
    by_cluster, by_bug = defaultdict(list), defaultdict(list)
    for index, (record, cluster) in enumerate(zip(records, clusters, strict=True)):
        by_cluster[cluster].append(index)
        by_bug[record["bug"]].append(index)
    false = Counter()
    for members in by_cluster.values():
        for at, one in enumerate(members):
            for other in members[at + 1 :]:
                if records[one]["bug"] != records[other]["bug"]:
                    false["exact" if signed[one].digest == signed[other].digest else "fuzzy"] += 1
    missed = Counter()
    for members in by_bug.values():
        for at, one in enumerate(members):
            for other in members[at + 1 :]:
                if clusters[one] != clusters[other]:
                    score = similarity.similarity(shapes[one], shapes[other]).score
                    missed["alike" if score > 0 else "nothing"] += 1
    return (
        f"fuzzweb's wrong pairs: false {sum(false.values())} (exact digest {false['exact']}, fuzzy stage "
        f"{false['fuzzy']}); missed {sum(missed.values())} (nothing alike {missed['nothing']}, alike below "
        f"the threshold {missed['alike']})"
    )


def report(name: str, records: list[dict], methods: dict[str, list[str] | None]) -> dict[str, float]:
    labels = [r["bug"] for r in records]
    multi = sum(1 for count in Counter(labels).values() if count > 1)
    projects = len({r["project"] for r in records})
    print(
        f"\n== {name}: {len(records)} reports, {len(set(labels))} bugs ({multi} with 2+ reports), {projects} projects"
    )
    print(f"{'method':12} {'buckets':>8} {'precision':>10} {'recall':>8} {'F1':>7} {'cross-format':>13}")
    scores = {}
    for method, clusters in methods.items():
        if clusters is None:
            print(f"{method:12} (not installed: make bench-deps)")
            scores[method] = float("nan")
            continue
        precision, recall, f1 = pairwise(labels, clusters)
        scores[method] = f1
        cross = cross_format_merges(records, clusters)
        print(f"{method:12} {len(set(clusters)):8d} {precision:10.3f} {recall:8.3f} {f1:7.3f} {cross:13d}")
    if methods.get("fuzzweb"):
        print(error_kinds(records, methods["fuzzweb"]))
    # More than half the records were stored as an excerpt cut before the crash's own frames or message
    # (``cut``): nothing can find their duplicates. The figure on the others is what a tracker's whole
    # reports would give, with the buckets the full run made (a cut report still takes its place in them).
    whole = [i for i, r in enumerate(records) if not r.get("cut")]
    row = " ".join(
        f"{method}={pairwise([labels[i] for i in whole], [clusters[i] for i in whole])[2]:.3f}"
        for method, clusters in methods.items()
        if clusters
    )
    print(f"F1 on the {len(whole)} reports stored whole: {row}")
    print("F1 per ecosystem:")
    ecosystems = sorted({r["ecosystem"] for r in records})
    print(f"  {'ecosystem':16} {'reports':>7} " + " ".join(f"{m:>11}" for m in methods))
    for ecosystem in ecosystems:
        index = [i for i, r in enumerate(records) if r["ecosystem"] == ecosystem]
        row = []
        for clusters in methods.values():
            row.append(
                f"{pairwise([labels[i] for i in index], [clusters[i] for i in index])[2]:11.3f}"
                if clusters
                else f"{'-':>11}"
            )
        print(f"  {ecosystem:16} {len(index):7d} " + " ".join(row))
    return scores


def score_decisions() -> None:
    """Agreement of today's signatures and fuzzy stage with the maintainers' stored decisions."""
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fuzzweb.settings")
    django.setup()
    from triage.decisions import decision_pairs, target_threshold
    from triage.models import Bucket, Finding

    def example(bucket_id: int):
        return (
            Finding.objects.filter(bucket_id=bucket_id, expired_at__isnull=True)
            .only("trace", "target", "kind")
            .order_by("pk")
            .first()
        )

    pairs = decision_pairs()
    agree = {True: [0, 0], False: [0, 0]}  # same: [said together, said apart]
    for pair in pairs:
        first, second = example(pair.first_id), example(pair.second_id)
        if first is None or second is None:
            # A merge moves the findings: the source keeps none; its own signature's finding is elsewhere.
            moved = Bucket.objects.filter(pk=pair.first_id).values_list("signature", flat=True).first()
            first = first or Finding.objects.filter(signature=moved).only("trace", "target", "kind").first()
        if first is None or second is None:
            continue
        one = signatures.compute(kind=first.kind, trace_text=first.trace, target=first.target)
        other = signatures.compute(kind=second.kind, trace_text=second.trace, target=second.target)
        score = similarity.similarity(similarity.shape_of(one), similarity.shape_of(other)).score
        together = one.digest == other.digest or score >= target_threshold(second.target)
        agree[pair.same][0 if together else 1] += 1
    same_together, same_apart = agree[True]
    different_together, _ = agree[False]
    precision = same_together / (same_together + different_together) if same_together + different_together else 1.0
    recall = same_together / (same_together + same_apart) if same_together + same_apart else 1.0
    print(
        f"decisions: {len(pairs)} pairs ({sum(agree[True])} same, {sum(agree[False])} different); "
        f"together now: precision {precision:.3f} recall {recall:.3f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="fuzzweb and top3 on the dev split only")
    parser.add_argument("--thresholds", action="store_true", help="dev-split F1 of the fuzzy stage per threshold")
    parser.add_argument("--decisions", action="store_true", help="score against the decisions in DATABASE_URL")
    args = parser.parse_args()
    if args.decisions:
        score_decisions()
    records = load_corpus()
    split = json.loads(SPLIT.read_text())
    parts = {"dev": [], "test": []}
    for record in records:
        parts[split_of(record["project"], split)].append(record)
    print(f"corpus: {len(records)} reports from {len({r['project'] for r in records})} projects")
    if args.thresholds:
        dev = parts["dev"]
        labels = [r["bug"] for r in dev]
        for threshold in (0.5, 0.6, 0.65, 0.7, 0.72, 0.75, 0.8, 0.85, 0.9, 1.01):
            p, r, f = pairwise(labels, fuzzweb_clusters(dev, threshold))
            print(f"threshold {threshold:4.2f}: precision {p:.3f} recall {r:.3f} F1 {f:.3f}")
    scores = {}
    for name in ("dev", "test"):
        subset = parts[name]
        methods = {"fuzzweb": fuzzweb_clusters(subset), "top3": top3_clusters(subset)}
        if not args.quick:
            methods["fuzzmanager"] = fuzzmanager_clusters(subset)
            methods["clusterfuzz"] = clusterfuzz_clusters(subset)
        if args.quick and name == "test":
            # Quick mode keeps the test split unread: it only checks the bench still runs.
            scores[name] = {method: float("nan") for method in ("fuzzweb", "top3", "fuzzmanager", "clusterfuzz")}
            continue
        scores[name] = report(name, subset, methods)
        for method in ("fuzzmanager", "clusterfuzz"):
            scores[name].setdefault(method, float("nan"))
    test = scores["test"]
    print(
        f"f1_test fuzzweb={test['fuzzweb']:.3f} top3={test['top3']:.3f} fuzzmanager={test['fuzzmanager']:.3f} "
        f"clusterfuzz={test['clusterfuzz']:.3f} f1_dev={scores['dev']['fuzzweb']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
