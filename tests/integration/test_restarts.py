"""Servers restarting under a running campaign: nothing stored is lost, nothing stays stuck.

These restart the local PostgreSQL and Redis the suite runs on (the ones
`make test` starts when no DATABASE_URL / REDIS_URL is given). Against
servers elsewhere there is nothing this machine may restart, and the tests
say so and skip.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.db import connection, transaction

from campaigns.launch import campaign_launch
from campaigns.models import Campaign, CampaignStatus, Target
from tests.conftest import start_process, stop_process, wait_for
from triage.models import Finding

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.serial]
LOCAL = ("127.0.0.1", "localhost", "::1", "")
FAST_REAPER = {"FUZZWEB_SHARD_STALE_SECONDS": "4", "FUZZWEB_REAP_INTERVAL_SECONDS": "1"}


def _demo() -> Target:
    return Target.objects.get_or_create(
        name="textkit (demo)", defaults={"module": "engines.demo.textkit", "engine": "pyfunc"}
    )[0]


def _status(campaign) -> str:
    for _ in range(50):
        try:
            return Campaign.objects.get(pk=campaign.pk).status
        except Exception:  # noqa: BLE001 - the server may still be coming back
            connection.close()
            time.sleep(0.2)
    raise AssertionError("the database did not come back")


def _postgres_version() -> str | None:
    host = connection.settings_dict["HOST"] or ""
    if host not in LOCAL or not shutil.which("pg_ctlcluster") or not Path("/etc/postgresql").is_dir():
        return None
    versions = sorted(Path("/etc/postgresql").iterdir())
    return versions[-1].name if versions else None


def test_postgresql_restart_during_a_campaign(rq_workers):
    version = _postgres_version()
    if version is None:
        pytest.skip("PostgreSQL is not a local cluster this machine can restart")
    scheduler = start_process("rqcron", "fuzzweb.cron", env=FAST_REAPER)
    try:
        rq_workers(1)
        with transaction.atomic():
            campaign = campaign_launch(target=_demo(), time_budget_seconds=15, shard_count=1)
        wait_for(lambda: Finding.objects.filter(campaign=campaign).count() >= 3, timeout=30)
        before = set(Finding.objects.filter(campaign=campaign).values_list("pk", flat=True))
        connection.close()
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart", "--", "-m", "fast"], check=True
        )
        wait_for(lambda: _status(campaign) == CampaignStatus.FINISHED, timeout=90)
    finally:
        stop_process(scheduler)
    after = set(Finding.objects.filter(campaign=campaign).values_list("pk", flat=True))
    assert before <= after
    shard = Campaign.objects.get(pk=campaign.pk).shards.get()
    assert shard.status == "finished" and shard.elapsed_seconds >= 15


def _redis_restart() -> None:
    url = urlparse(settings.REDIS_URL)
    port = str(url.port or 6379)
    subprocess.run(["redis-cli", "-h", url.hostname, "-p", port, "shutdown", "nosave"], check=False)
    time.sleep(0.5)
    data = Path(settings.BASE_DIR) / "var" / "test-redis"
    data.mkdir(parents=True, exist_ok=True)
    # As scripts/test.sh starts it: nothing kept on disk, so the restart
    # loses every queued job, the harder case.
    subprocess.run(
        [
            "redis-server",
            "--daemonize",
            "yes",
            "--bind",
            "127.0.0.1",
            "-::1",
            "--port",
            port,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(data),
            "--logfile",
            str(data / "redis.log"),
        ],
        check=True,
    )
    for _ in range(50):
        if subprocess.run(["redis-cli", "-p", port, "ping"], capture_output=True).stdout.strip() == b"PONG":
            return
        time.sleep(0.1)
    raise AssertionError("Redis did not come back")


def test_redis_restart_during_a_campaign(rq_workers):
    url = urlparse(settings.REDIS_URL)
    if url.hostname not in LOCAL or not shutil.which("redis-server"):
        pytest.skip("Redis is not a local server this machine can restart")
    scheduler = start_process("rqcron", "fuzzweb.cron", env=FAST_REAPER)
    try:
        rq_workers(1)
        with transaction.atomic():
            # Two shards, one worker: one shard runs, the other waits in a
            # Redis queue that the restart will wipe.
            campaign = campaign_launch(target=_demo(), time_budget_seconds=6, shard_count=2)
        wait_for(lambda: campaign.shards.filter(status="running").exists(), timeout=30)
        before = set(Finding.objects.filter(campaign=campaign).values_list("pk", flat=True))
        _redis_restart()
        # What `make run` does for a worker or scheduler that died with the
        # connection: start another.
        stop_process(scheduler)
        scheduler = start_process("rqcron", "fuzzweb.cron", env=FAST_REAPER)
        rq_workers(1)
        wait_for(lambda: _status(campaign) == CampaignStatus.FINISHED, timeout=90)
    finally:
        stop_process(scheduler)
    assert before <= set(Finding.objects.filter(campaign=campaign).values_list("pk", flat=True))
    shards = list(campaign.shards.values_list("status", "attempts", "error"))
    assert {status for status, _, _ in shards} == {"finished"}, shards
