from django.core.management.base import BaseCommand

from triage.decisions import decision_pairs, thresholds_learn


class Command(BaseCommand):
    help = (
        "Learn each target's fuzzy-stage threshold from its maintainers' merges, splits and undone fuzzy "
        "matches (also a daily job). A learned threshold is kept only where it agrees with more decisions "
        "than the global one; the admin shows it and reverts it."
    )

    def handle(self, *args, **options):
        self.stdout.write(f"{len(decision_pairs())} labelled pairs.")
        for row in thresholds_learn():
            self.stdout.write(
                f"{row.target}: {row.threshold:.3f} agrees with {row.agreed} of {row.decisions} decisions "
                f"(the global threshold with {row.agreed_by_default})."
            )
