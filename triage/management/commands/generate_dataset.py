from django.core.management.base import BaseCommand

from triage.dataset import dataset_generate


class Command(BaseCommand):
    help = "Add a made-up year of findings (default: 1,000,000 in 50,000 buckets across 500 campaigns)."

    def add_arguments(self, parser):
        parser.add_argument("--findings", type=int, default=1_000_000)
        parser.add_argument("--buckets", type=int, default=50_000)
        parser.add_argument("--campaigns", type=int, default=500)
        parser.add_argument("--seed", type=int, default=1)

    def handle(self, *args, findings, buckets, campaigns, seed, **options):
        summary = dataset_generate(
            findings=findings, buckets=buckets, campaigns=campaigns, seed=seed, progress=self.stdout.write
        )
        self.stdout.write(
            f"{summary.findings} findings in {summary.buckets} buckets across {summary.campaigns} campaigns, "
            f"{summary.events} history entries, in {summary.seconds:.0f} s"
        )
