from django.core.management.base import BaseCommand

from campaigns.launch import campaigns_stop_all


class Command(BaseCommand):
    help = "Ask every queued or running campaign to stop (used when the stack shuts down)."

    def handle(self, *args, **options):
        stopped = campaigns_stop_all()
        if stopped:
            self.stdout.write(f"asked {stopped} campaign(s) to stop")
