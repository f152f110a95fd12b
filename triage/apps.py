from django.apps import AppConfig


class TriageConfig(AppConfig):
    name = "triage"
    verbose_name = "Triage"
