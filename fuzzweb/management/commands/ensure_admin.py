import os

from django.core.management.base import BaseCommand

from fuzzweb.first_admin import first_admin_ensure, first_admin_login_hint
from fuzzweb.roles import roles_ensure
from triage.labels import labels_ensure_defaults


class Command(BaseCommand):
    help = (
        "Create the first admin account if there is none, and print one line saying which account to log in "
        "with. Credentials come from FUZZWEB_ADMIN_USER / FUZZWEB_ADMIN_PASSWORD; a missing password is "
        "generated and printed once."
    )

    def handle(self, *args, **options):
        roles_ensure()
        labels_ensure_defaults()
        username = os.environ.get("FUZZWEB_ADMIN_USER", "admin")
        password = os.environ.get("FUZZWEB_ADMIN_PASSWORD")
        generated = first_admin_ensure(username=username, password=password)
        # make run prints this line as it is, as the second of its three lines.
        self.stdout.write(first_admin_login_hint(username=username, password=password, generated=generated))
