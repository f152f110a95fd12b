"""The Kotlin compiler target: generated files compiled with the K1 and the K2 frontend."""

from django.db import migrations

KOTLIN = {
    "name": "Kotlin compiler (K1 against K2)",
    "engine": "diff-kotlin",
    "module": "",
    "description": "Generated Kotlin files compiled by kotlinc with the K1 frontend (-language-version 1.9) and "
    "with K2, then run on the JVM: a file one frontend accepts and the other rejects, a compiler crash, or "
    "different output is a finding.",
}


def add_target(apps, schema_editor):
    Target = apps.get_model("campaigns", "Target")
    Target.objects.get_or_create(name=KOTLIN["name"], defaults=KOTLIN)


def remove_target(apps, schema_editor):
    apps.get_model("campaigns", "Target").objects.filter(name=KOTLIN["name"]).delete()


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0007_python_implementations_target")]
    operations = [migrations.RunPython(add_target, remove_target)]
