"""Running a maintainer's upload or "Reduce again" is for triagers only, and the bucket's history says who did it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.integration.test_ingest import make_finding
from triage.ingest import finding_ingest
from triage.models import BucketEvent, Reduction

pytestmark = pytest.mark.django_db


@pytest.fixture
def bucket():
    return finding_ingest(submission=make_finding()).bucket


def test_a_viewer_can_neither_upload_nor_reduce_again(client, viewer, bucket):
    client.force_login(viewer)
    upload = client.post(reverse("triage:bucket_upload", args=[bucket.pk]), {"text": "lookup('x')"})
    again = client.post(reverse("triage:bucket_reduce", args=[bucket.pk]))
    assert (upload.status_code, again.status_code) == (403, 403)
    assert not Reduction.objects.exists()
    assert not BucketEvent.objects.filter(field="reduction").exists()


def test_a_triagers_upload_and_reduce_again_are_audited(client, triager, bucket):
    client.force_login(triager)
    client.post(reverse("triage:bucket_upload", args=[bucket.pk]), {"text": "lookup('x')"})
    Reduction.objects.update(state="done")  # let the second request queue its own
    client.post(reverse("triage:bucket_reduce", args=[bucket.pk]))
    events = list(BucketEvent.objects.filter(bucket=bucket, field="reduction").order_by("pk"))
    assert [(e.user, e.new_value) for e in events] == [(triager, "Uploaded"), (triager, "Reduce again")]
    assert "uploaded 11 characters" in events[0].note
    assert list(Reduction.objects.values_list("user", flat=True)) == [triager.pk, triager.pk]
