import os

from django.core.management.base import BaseCommand

from fuzzweb.first_admin import first_admin_ensure
from fuzzweb.roles import roles_ensure
from triage.labels import labels_ensure_defaults


class Command(BaseCommand):
    help = (
        "Create the first admin account if there is none. Credentials come from "
        "FUZZWEB_ADMIN_USER / FUZZWEB_ADMIN_PASSWORD; a missing password is generated "
        "and printed once."
    )

    def handle(self, *args, **options):
        roles_ensure()
        labels_ensure_defaults()
        username = os.environ.get("FUZZWEB_ADMIN_USER", "admin")
        password = os.environ.get("FUZZWEB_ADMIN_PASSWORD")
        generated = first_admin_ensure(username=username, password=password)
        if generated:
            self.stdout.write(
                self.style.WARNING(
                    f"Created admin account '{username}' with password: {generated}\n"
                    "(shown only this once; change it in the admin)"
                )
            )
        elif password is not None:
            self.stdout.write(f"Admin account ready ('{username}').")
