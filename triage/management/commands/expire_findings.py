from django.conf import settings
from django.core.management.base import BaseCommand

from triage.retention import expirable_findings, findings_expire


class Command(BaseCommand):
    help = (
        "Retention: drop the testcases, traces and outputs of closed buckets' duplicate findings unseen for "
        "N days (default FUZZWEB_RETENTION_DAYS), keeping their counts and every bucket's representative."
    )

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=settings.FUZZWEB_RETENTION_DAYS)
        parser.add_argument("--dry-run", action="store_true", help="only count what would be dropped")

    def handle(self, *args, days, dry_run, **options):
        if days < 1:
            self.stdout.write("Retention is off (days < 1): nothing dropped.")
        elif dry_run:
            self.stdout.write(f"{expirable_findings(older_than_days=days).count()} findings would be dropped.")
        else:
            self.stdout.write(f"{findings_expire(older_than_days=days)} findings dropped.")
