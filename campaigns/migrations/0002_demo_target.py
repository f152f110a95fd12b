"""The demo target, so a fresh installation can launch a campaign at once."""

from django.db import migrations

DEMO = {
    "name": "textkit (demo)",
    "engine": "pyfunc",
    "module": "engines.demo.textkit",
    "description": "fuzzweb's demo target: text and number helpers with five planted bugs.",
}


def add_demo(apps, schema_editor):
    Target = apps.get_model("campaigns", "Target")
    Target.objects.get_or_create(name=DEMO["name"], defaults=DEMO)


def remove_demo(apps, schema_editor):
    apps.get_model("campaigns", "Target").objects.filter(name=DEMO["name"]).delete()


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0001_initial")]
    operations = [migrations.RunPython(add_demo, remove_demo)]
