from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_targets(sender, **kwargs):
    from campaigns.engines import targets_ensure

    targets_ensure()


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"

    def ready(self):
        # After every migrate (a fresh database, the test database): the engines' default targets.
        post_migrate.connect(_ensure_targets, sender=self)
