"""Default labels, the viewer and triager groups, and the full-text index over traces and programs."""

from django.contrib.auth.management import create_permissions
from django.db import migrations

from triage.labels import DEFAULT_LABELS


# The same expression the search selector queries (triage.search), so PostgreSQL uses the index.
SEARCH_INDEX = (
    "CREATE INDEX IF NOT EXISTS finding_text_search ON triage_finding USING gin "
    "(to_tsvector('simple'::regconfig, COALESCE(trace, '') || ' ' || COALESCE(testcase, '') "
    "|| ' ' || COALESCE(message, '')))"
)


def forwards(apps, schema_editor):
    Label = apps.get_model("triage", "Label")
    for name, description in DEFAULT_LABELS:
        Label.objects.get_or_create(name=name, defaults={"description": description})
    # Permissions are normally made after all migrations; the groups need them now.
    # The migration state's app config has no models module, which create_permissions skips.
    config = apps.get_app_config("triage")
    config.models_module = True
    create_permissions(config, apps=apps, verbosity=0)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    triage = Permission.objects.get(codename="triage_bucket", content_type__app_label="triage")
    Group.objects.get_or_create(name="viewer")
    Group.objects.get_or_create(name="triager")[0].permissions.add(triage)
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SEARCH_INDEX)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS finding_text_search")


class Migration(migrations.Migration):
    dependencies = [
        ("triage", "0003_triage_workflow"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(forwards, backwards)]
