"""The Python implementations target, for differential campaigns on generated programs."""

from django.db import migrations

PYTHONS = {
    "name": "Python implementations (generated programs)",
    "engine": "diff-python",
    "module": "",
    "description": "Generated deterministic Python programs run by CPython, CPython -O, PyPy and Cython; "
    "their printed variables compared.",
}


def add_target(apps, schema_editor):
    Target = apps.get_model("campaigns", "Target")
    Target.objects.get_or_create(name=PYTHONS["name"], defaults=PYTHONS)


def remove_target(apps, schema_editor):
    apps.get_model("campaigns", "Target").objects.filter(name=PYTHONS["name"]).delete()


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0006_c_compilers_target")]
    operations = [migrations.RunPython(add_target, remove_target)]
