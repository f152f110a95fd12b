from django.apps import AppConfig


class FuzzwebConfig(AppConfig):
    name = "fuzzweb"
    verbose_name = "fuzzweb"
