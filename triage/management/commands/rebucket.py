import django_rq
from django.core.management.base import BaseCommand

from triage.jobs import rebucket_job


class Command(BaseCommand):
    help = "Queue a job that re-buckets findings made by older signature algorithms (--all: every finding)."

    def add_arguments(self, parser):
        parser.add_argument("--all", action="store_true", help="recompute every finding, not only outdated ones")

    def handle(self, *args, **options):
        job = django_rq.get_queue("default").enqueue(rebucket_job, not options["all"], job_timeout=24 * 3600)
        self.stdout.write(f"queued re-bucketing job {job.id}")
