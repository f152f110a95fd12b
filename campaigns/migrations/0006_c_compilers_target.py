"""The C compilers target, so a C differential campaign can be launched at once."""

from django.db import migrations

C_COMPILERS = {
    "name": "C compilers (Csmith)",
    "engine": "diff-c",
    "module": "",
    "description": "Csmith programs compiled by gcc and clang at each optimisation level and by tcc; "
    "their printed checksums compared.",
}


def add_target(apps, schema_editor):
    Target = apps.get_model("campaigns", "Target")
    Target.objects.get_or_create(name=C_COMPILERS["name"], defaults=C_COMPILERS)


def remove_target(apps, schema_editor):
    apps.get_model("campaigns", "Target").objects.filter(name=C_COMPILERS["name"]).delete()


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0005_campaign_options")]
    operations = [migrations.RunPython(add_target, remove_target)]
