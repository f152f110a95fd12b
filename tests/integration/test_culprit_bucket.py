"""A wrong-code bucket from a compiler with a bug planted in one optimisation gets that optimisation as culprit."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.launch import campaign_launch
from campaigns.targets import target_save
from tests.conftest import BASE_DIR, run_worker_burst
from triage.culprits import bucket_culprit_find
from triage.models import Bucket, BucketEvent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]
PLANTED = BASE_DIR / "tests" / "data" / "planted"


def test_the_planted_flag_is_named_on_the_bucket_and_in_its_report(client, admin_user):
    target, _ = target_save(
        description={
            "name": "planted vrp",
            "language": "c",
            "reference": "gcc-O2",
            "generator": {"kind": "command", "command": f"python3 {PLANTED}/gen_c.py {{seed}} {{out}}"},
            "backends": [
                {"name": "gcc-O2", "compile": "gcc -O2 -w -o {binary} {source}", "run": "{binary}",
                 "version": "gcc --version"},
                {"name": "vrp-gcc-O2", "compile": f"{PLANTED}/pass_gcc -O2 -w -o {{binary}} {{source}}",
                 "run": "{binary}", "version": "gcc --version"},
            ],
        }
    )  # fmt: skip
    with transaction.atomic():
        campaign_launch(target=target, time_budget_seconds=60, max_executions=12, seed=3)
    result = run_worker_burst(queues=["engine-differential"])
    assert result.returncode == 0, result.stderr[-2000:]
    bucket = Bucket.objects.get(kind="miscompilation")

    found = bucket_culprit_find(bucket_id=bucket.pk)
    assert found["backends"]["vrp-gcc-O2"]["name"] == "-ftree-vrp"
    counter = found["backends"]["vrp-gcc-O2"]["narrowed"]  # the planted rewrites count as gcc's ccp counter
    assert counter.startswith("ccp:") and int(counter[4:]) >= 1
    assert found["reference"] == "gcc-O2"
    assert BucketEvent.objects.filter(bucket=bucket, field="culprit", new_value="vrp-gcc-O2: -ftree-vrp").exists()

    client.force_login(admin_user)
    page = client.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert '<b class="culprit-name">-ftree-vrp</b>' in page
    assert f'<code class="culprit-counter">-fdbg-cnt={counter}</code>' in page
    report = client.get(reverse("triage:bucket_report_as", args=[bucket.pk, "md"])).content.decode()
    assert "## Culprit" in report, report
    assert "-ftree-vrp" in report.split("## Culprit", 1)[1].split("##", 1)[0]
    assert f"first breaks at -fdbg-cnt={counter}" in report
    # The releases × levels matrix: the wrapper's family is gcc; real gcc releases print 40, so all good.
    matrix = found["matrix"]
    assert matrix["family"] == "gcc" and "12" in matrix["versions"]
    assert set(matrix["levels"]) == {"-O0", "-O1", "-O2", "-O3", "-Os"}
    assert all(state == "good" for row in matrix["cells"].values() for state in row.values())
    assert matrix["first_bad"]["-O2"] is None
    assert 'id="version-matrix"' in page
