"""A GIN index on the buckets' key frames: lookalikes are found by frame containment (PostgreSQL only)."""

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS bucket_key_frames ON triage_bucket USING gin (key_frames jsonb_path_ops)"
        )


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS bucket_key_frames")


class Migration(migrations.Migration):
    dependencies = [("triage", "0005_page_indexes")]
    operations = [migrations.RunPython(forwards, backwards)]
