"""A Python package from PyPI as a target: installed by the target itself, sandboxed, then fuzzed."""

from __future__ import annotations

import pytest
from django.db import transaction

from campaigns.launch import campaign_launch
from campaigns.models import CampaignStatus, Target
from campaigns.targets import target_save
from tests.conftest import run_worker_burst
from triage.models import Finding

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]
# A small pure-Python package with annotated functions, pinned.
PACKAGE = "humanize==4.9.0"


def test_a_package_target_is_installed_by_the_worker_and_its_functions_fuzzed(tmp_path, monkeypatch):
    target, _ = target_save(
        description={"name": "humanize (PyPI)", "package": PACKAGE, "include": "*.naturalsize *.intword *.ordinal"}
    )
    assert target.engine == "pyfunc" and target.module == "humanize"
    with transaction.atomic():
        campaign = campaign_launch(target=target, time_budget_seconds=20, max_executions=3000, seed=1)
    monkeypatch.setenv("FUZZWEB_PACKAGE_DIR", str(tmp_path / "packages"))
    result = run_worker_burst(queues=["engine-pyfunc"])
    assert result.returncode == 0, result.stderr[-3000:]
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    target.refresh_from_db()
    assert target.install_ok is True and "Successfully installed humanize-4.9.0" in target.install_log
    discovery = campaign.shards.get().discovery
    assert set(discovery["functions"]) == {
        "humanize.filesize.naturalsize",
        "humanize.number.intword",
        "humanize.number.ordinal",
    }
    assert campaign.executions > 100
    # Installed into its own environment, not into the project's.
    assert (tmp_path / "packages").is_dir()
    # humanize 4.9.0 raises on some annotated inputs (naturalsize of an infinite float, say): found and bucketed.
    found = Finding.objects.filter(campaign=campaign)
    assert found.exists() and all(f.function.startswith("humanize.") for f in found)
    assert found.filter(trace__contains="site-packages/humanize/").exists()


def test_a_package_that_cannot_be_installed_fails_the_campaign_with_pips_reason(tmp_path, monkeypatch):
    target = Target.objects.create(
        name="missing", engine="pyfunc", module="nothing", package="fuzzweb-no-such-dist==0.0.1"
    )
    with transaction.atomic():
        campaign = campaign_launch(target=target, time_budget_seconds=10, seed=1)
    monkeypatch.setenv("FUZZWEB_PACKAGE_DIR", str(tmp_path / "packages"))
    result = run_worker_burst(queues=["engine-pyfunc"])
    assert result.returncode == 0, result.stderr[-3000:]
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FAILED
    assert "could not install fuzzweb-no-such-dist==0.0.1" in campaign.error
    target.refresh_from_db()
    assert target.install_ok is False and "No matching distribution" in target.install_log
