"""bench/dedup_quality.py scores a model of ingest: the real API must bucket real reports as that model does.

The bench runs the signature and the fuzzy stage in one process, over
signatures it holds in memory. Users' reports go through the HTTP API:
fields cleaned and capped, buckets and their lookup keys stored, candidates
found by the database's index, a fuzzy join made as a merge. If the two
disagree, the bench's figures say nothing of what users get. Here, reports
of the corpus's development split (several projects with duplicates,
look-alikes and fuzzy joins) are posted one by one and in one bulk batch
(the ingest client's `jsonl` command sends up to 500 at once), and the
buckets they land in are compared with the bench's.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from fuzzweb.tokens import api_token_create
from triage import text
from triage.models import BucketMove, Finding

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import dedup_quality  # noqa: E402

pytestmark = pytest.mark.django_db
# Projects whose reports hold multi-report bugs, look-alikes and fuzzy joins, most first.
PROJECTS = 8


def _sample() -> list[dict]:
    import json

    split = json.loads(dedup_quality.SPLIT.read_text())
    dev = [r for r in dedup_quality.load_corpus() if dedup_quality.split_of(r["project"], split) == "dev"]
    per_bug = Counter(r["bug"] for r in dev)
    grouped = Counter(r["project"] for r in dev if per_bug[r["bug"]] > 1)
    chosen = {project for project, _ in grouped.most_common(PROJECTS)}
    return [r for r in dev if r["project"] in chosen]


def _partition(ids: list[str], clusters: list) -> set[frozenset[str]]:
    groups = defaultdict(set)
    for record_id, cluster in zip(ids, clusters, strict=True):
        groups[cluster].add(record_id)
    return {frozenset(group) for group in groups.values()}


def _finding(record: dict) -> dict:
    return {"kind": "crash", "target": record["project"], "engine": "external", "trace": record["trace"]}


@pytest.mark.parametrize("batch", [1, 500], ids=["one by one", "in the client's bulk batches"])
def test_the_api_buckets_real_reports_as_the_bench_scores_them(client, admin_user, batch):
    records = _sample()
    token = api_token_create(user=admin_user, name="client", scope="ingest")[1]
    for start in range(0, len(records), batch):
        chunk = records[start : start + batch]
        answer = client.post(
            "/api/v1/findings/bulk",
            {"findings": [_finding(record) for record in chunk]},
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
        )
        assert answer.status_code == 200, (chunk[0]["id"], answer.content[:300])
    # One finding per distinct text (a text posted twice is one finding with two hits), stored cleaned.
    findings = Finding.objects.only("target", "trace", "bucket")
    bucket_of_text = {(finding.target, finding.trace): finding.bucket_id for finding in findings}
    ids = [record["id"] for record in records]
    stored = [bucket_of_text[(r["project"], text.clean(r["trace"], text.TRACE_LIMIT))] for r in records]
    modelled = dedup_quality.fuzzweb_clusters(records)

    assert len(records) > 150 and len(set(stored)) < len(records)  # duplicates
    assert BucketMove.objects.filter(by_fuzzy_match=True).count() >= 5  # and the fuzzy stage's joins
    assert _partition(ids, stored) == _partition(ids, modelled)
