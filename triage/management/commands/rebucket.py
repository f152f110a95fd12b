import django_rq
from django.core.management.base import BaseCommand

from crashes import signatures
from triage.jobs import rebucket_job
from triage.models import Bucket


class Command(BaseCommand):
    help = "Queue a job that re-buckets findings made by older signature algorithms (--all: every finding)."

    def add_arguments(self, parser):
        parser.add_argument("--all", action="store_true", help="recompute every finding, not only outdated ones")
        parser.add_argument(
            "--if-outdated",
            action="store_true",
            help="queue nothing when every bucket already has the current version (what `make run` does at start)",
        )

    def handle(self, *args, **options):
        if options["if_outdated"] and not options["all"]:
            outdated = Bucket.objects.exclude(signature_version=signatures.CURRENT.VERSION)
            if not outdated.exists():
                self.stdout.write(f"every bucket has signature v{signatures.CURRENT.VERSION}")
                return
        job = django_rq.get_queue("default").enqueue(rebucket_job, not options["all"], job_timeout=24 * 3600)
        self.stdout.write(f"queued re-bucketing job {job.id}")
