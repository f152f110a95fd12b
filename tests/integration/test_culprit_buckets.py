"""Miscompilations grouped by cause: findings leave their provisional bucket for the bucket of their culprit.

The compiler under test is tests/data/planted/multi_gcc: gcc with four wrong-code bugs, each planted in
one optimisation flag that -O2 and -O3 both enable. Every bug at -O2 shares one provisional bucket
(which backends disagreed, and how); by culprit they split into one bucket per bug, each joining what
-O2 and -O3 saw.
"""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.launch import campaign_launch
from campaigns.targets import target_save
from tests.conftest import BASE_DIR, run_worker_burst
from triage.culprits import culprit_move_undo
from triage.models import Bucket, BucketMove, Finding, Method
from triage.rebucket import findings_rebucket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]
PLANTED = BASE_DIR / "tests" / "data" / "planted"
FLAG_OF = {"<< 3": "-ftree-vrp", "% 7": "-fgcse", "* 9": "-fipa-sra", "- 11": "-ftree-pre"}


def _backend(name: str, compiler: str, level: str) -> dict:
    return {"name": name, "compile": f"{compiler} {level} -w -o {{binary}} {{source}}", "run": "{binary}",
            "version": "gcc --version"}  # fmt: skip


def test_wrong_code_findings_move_to_one_bucket_per_culprit_and_back(monkeypatch, client, admin_user):
    target, _ = target_save(
        description={
            "name": "multi-bug gcc",
            "language": "c",
            "reference": "gcc-O0",
            "generator": {"kind": "command", "command": f"python3 {PLANTED}/gen_multi.py {{seed}} {{out}}"},
            "backends": [
                _backend("gcc-O0", "gcc", "-O0"),
                _backend("multi-O2", str(PLANTED / "multi_gcc"), "-O2"),
                _backend("multi-O3", str(PLANTED / "multi_gcc"), "-O3"),
            ],
        }
    )
    monkeypatch.setenv("FUZZWEB_AUTO_REDUCE", "0")  # the culprit jobs alone on the reduce queue
    with transaction.atomic():
        campaign_launch(target=target, time_budget_seconds=120, max_executions=10, seed=11)
    assert run_worker_burst(queues=["engine-differential"]).returncode == 0
    wrong = list(Finding.objects.filter(kind="miscompilation"))
    provisional = {f.bucket_id for f in wrong}
    assert len(provisional) == 1  # every planted bug is "multi-O2, multi-O3 wrong output"
    result = run_worker_burst(queues=["reduce"], timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]

    by_bucket: dict[int, set[str]] = {}
    for finding in Finding.objects.filter(pk__in=[f.pk for f in wrong]).select_related("bucket"):
        planted = re.search(r"planted: (.+?) \*/", finding.testcase).group(1)
        assert finding.bucket.method == Method.CULPRIT, finding.bucket.title
        assert finding.bucket.title == f"wrong code: gcc:flags:{FLAG_OF[planted]}"  # the planted flag, named
        by_bucket.setdefault(finding.bucket_id, set()).add(planted)
    assert all(len(constructs) == 1 for constructs in by_bucket.values())  # one bug per bucket
    assert len(by_bucket) >= 2  # two bugs at the same levels, apart
    assert not Bucket.objects.get(pk=provisional.pop()).findings.exists()

    # A forced rebucket recomputes every signature: the culprits, found by re-compiling, stay.
    before = dict(Finding.objects.filter(pk__in=[f.pk for f in wrong]).values_list("pk", "bucket_id"))
    assert set(before.values()) == set(by_bucket)
    findings_rebucket(only_outdated=False)
    assert dict(Finding.objects.filter(pk__in=[f.pk for f in wrong]).values_list("pk", "bucket_id")) == before

    # The culprit bucket says where its findings came from, and a triager can send one back.
    move = BucketMove.objects.filter(kind=BucketMove.Kind.CULPRIT).first()
    client.force_login(admin_user)
    page = client.get(reverse("triage:bucket", args=[move.target_id])).content.decode()
    assert 'id="culprit-moves"' in page and f'href="/triage/buckets/{move.source_id}/"' in page
    client.post(reverse("triage:bucket_culprit_undo", args=[move.target_id, move.pk]))
    assert Finding.objects.get(pk=move.finding_ids[0]).bucket_id == move.source_id
    assert culprit_move_undo(move_id=move.pk, user=None) == 0  # once
