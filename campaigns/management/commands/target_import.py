from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaigns.targets import TargetInvalid, targets_import


class Command(BaseCommand):
    help = "Create or update targets from a TOML or JSON file (see README: user-defined targets)."

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="+", help="a .toml or .json file of targets")

    def handle(self, *args, **options):
        for name in options["file"]:
            path = Path(name)
            try:
                saved = targets_import(path.read_text(encoding="utf-8"), path.name)
            except OSError as error:
                raise CommandError(f"{name}: {error.strerror}") from None
            except TargetInvalid as error:
                raise CommandError(f"{name}: {error.name or 'target'}:\n  " + "\n  ".join(error.problems)) from None
            for target, created in saved:
                self.stdout.write(f"{'created' if created else 'updated'} {target.name} ({target.engine})")
