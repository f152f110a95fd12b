"""Every finding comes in through one service, which alone decides whether it may be re-run."""

from __future__ import annotations

from dataclasses import replace

import pytest

from campaigns.models import Campaign, Target
from fuzzweb.models import Scope
from fuzzweb.tokens import api_token_create
from tests.integration.test_ingest import make_finding
from triage.models import Finding
from triage.receive import findings_receive

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    target = Target.objects.get(module="engines.demo.textkit")
    return Campaign.objects.create(target=target, engine="pyfunc", time_budget_seconds=10)


def _token(user, replay: bool):
    token = api_token_create(user=user, name=f"box {replay}", scope=Scope.INGEST)[0]
    token.replay = replay
    return token


def test_campaign_findings_are_replayable_and_counted(campaign, settings):
    settings.FUZZWEB_AUTO_REDUCE = False
    # Whatever the submission claims, the door decides.
    submission = replace(make_finding(function="a", hits=3), replay_allowed=False)
    result = findings_receive(submissions=[submission, make_finding(function="b")], campaign_id=campaign.pk)
    assert all(f.replay_allowed for f in Finding.objects.filter(pk__in=[f.pk for f in result.findings]))
    campaign.refresh_from_db()
    assert (campaign.findings_count, campaign.new_buckets) == (4, 2)


def test_api_findings_are_replayable_only_with_the_tokens_right(admin_user, settings):
    settings.FUZZWEB_AUTO_REDUCE = False
    plain = findings_receive(submissions=[make_finding(function="c")], token=_token(admin_user, replay=False))
    trusted = findings_receive(submissions=[make_finding(function="d")], token=_token(admin_user, replay=True))
    assert not Finding.objects.get(pk=plain.findings[0].pk).replay_allowed
    assert Finding.objects.get(pk=trusted.findings[0].pk).replay_allowed


def test_a_finding_comes_from_exactly_one_source(campaign, admin_user):
    with pytest.raises(ValueError, match="exactly one"):
        findings_receive(submissions=[make_finding()])
    with pytest.raises(ValueError, match="exactly one"):
        findings_receive(submissions=[make_finding()], campaign_id=campaign.pk, token=_token(admin_user, True))
