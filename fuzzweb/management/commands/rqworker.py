from django.conf import settings
from django_rq.management.commands.rqworker import Command as RQWorkerCommand


class Command(RQWorkerCommand):
    """RQ's worker, reading jobs as JSON (settings.RQ_SERIALIZER) unless told otherwise.

    django-rq's own command defaults to pickle whatever the queues say; a
    worker reading pickle would run code planted in Redis.
    """

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(serializer=settings.RQ_SERIALIZER)
