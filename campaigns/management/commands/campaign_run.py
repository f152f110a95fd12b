"""Fuzzing from CI: launch a campaign, follow it on the terminal, list its buckets, fail on a new one.

    manage.py campaign_run --target NAME --seconds N [--shards K] [--url https://fuzzweb.example]

Runs through the same queues and workers as the dashboard (a worker must
serve the target's engine queue). Exit status: 0 when the campaign found no
new unmuted bucket, 1 when it did (the build should fail), 2 when the
campaign could not run (unknown target, failed shards, interrupted).
"""

from __future__ import annotations

import sys
import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from campaigns.engines import targets_ensure
from campaigns.launch import campaign_launch, campaign_stop
from campaigns.models import Campaign, CampaignStatus, Target
from campaigns.selectors import campaign_outcome


class _Everything:
    """The command runs with the server's own rights: every bucket is listed (restricted ones too)."""

    is_active = is_superuser = is_authenticated = True
    pk = None


class Command(BaseCommand):
    help = "Launch a campaign, follow its progress, print its buckets; exit 1 on a new unmuted bucket."

    def add_arguments(self, parser):
        parser.add_argument("--target", required=True, help="the target's name")
        parser.add_argument("--seconds", type=int, required=True, help="time budget per shard")
        parser.add_argument("--shards", type=int, default=1, help="parallel shards (each needs a free worker)")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--url", default="", help="the dashboard's address, for links (default: paths only)")
        parser.add_argument("--user", default="", help="launch as this user (recorded on the campaign)")
        parser.add_argument("--poll", type=float, default=2.0, help="seconds between progress lines")

    def handle(self, *args, **options):
        if options["seconds"] < 1 or not 1 <= options["shards"] <= 64:
            raise CommandError("--seconds must be at least 1 and --shards between 1 and 64")
        targets_ensure()
        target = Target.objects.filter(name=options["target"]).first()
        if target is None:
            known = ", ".join(Target.objects.order_by("name").values_list("name", flat=True))
            raise CommandError(f"no target {options['target']!r}; known: {known}")
        user = get_user_model().objects.filter(username=options["user"]).first() if options["user"] else None
        campaign = campaign_launch(
            target=target,
            time_budget_seconds=options["seconds"],
            shard_count=options["shards"],
            seed=options["seed"],
            user=user,
        )
        base = options["url"].rstrip("/")
        self.stdout.write(
            f"campaign #{campaign.pk} on {target.name}: {base}{reverse('campaigns:detail', args=[campaign.pk])}"
        )
        try:
            outcome = self._follow(campaign, options["poll"])
        except KeyboardInterrupt:
            campaign_stop(campaign_id=campaign.pk)
            self.stderr.write("interrupted: the campaign was asked to stop")
            sys.exit(2)
        for row in outcome["buckets"]:
            mark = "NEW" if row["new"] else "   "
            muted = " (muted)" if row["muted"] else ""
            self.stdout.write(f"{mark} #{row['id']} [{row['kind']}] {row['title']}{muted}  {base}{row['url']}")
        new = sum(row["new"] and not row["muted"] for row in outcome["buckets"])
        self.stdout.write(
            f"{outcome['status']}: {outcome['findings']} findings in {len(outcome['buckets'])} buckets, {new} new"
        )
        if outcome["status"] == CampaignStatus.FAILED:
            self.stderr.write(f"the campaign failed: {outcome['error']}")
            sys.exit(2)
        sys.exit(1 if outcome["failing"] else 0)

    def _follow(self, campaign: Campaign, poll: float) -> dict:
        shown = ""
        while True:
            campaign.refresh_from_db()
            outcome = campaign_outcome(campaign, user=_Everything())
            line = (
                f"  {outcome['status']} {outcome['elapsed_seconds']:.0f}/{outcome['time_budget_seconds']} s, "
                f"{outcome['findings']} findings, {len(outcome['buckets'])} buckets"
            )
            if line != shown:
                self.stdout.write(line)
                self.stdout.flush()
                shown = line
            if not outcome["active"]:
                return outcome
            time.sleep(poll)
