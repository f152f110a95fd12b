from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from fuzzweb.roles import ROLES, role_set


class Command(BaseCommand):
    help = "Give an account one of the roles: viewer (reads), triager (changes findings, campaigns), admin."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("role", choices=ROLES)

    def handle(self, *args, username, role, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no account named {username!r}")
        role_set(user=user, role=role)
        self.stdout.write(f"{username} is now {role}.")
