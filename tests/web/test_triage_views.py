"""Bucket pages: highlighted, escaped, status changes, Markdown export."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.integration.test_ingest import make_finding
from triage.ingest import finding_ingest
from triage.models import BucketEvent

pytestmark = pytest.mark.django_db

XSS = "<script>alert(1)</script>"


def test_bucket_list_shows_counts(logged_in):
    finding_ingest(submission=make_finding())
    finding_ingest(submission=make_finding(call="lookup('y')"))
    response = logged_in.get(reverse("triage:buckets"))
    assert response.status_code == 200
    assert b"KeyError in lookup" in response.content
    assert response.context["page"].object_list[0].hit_count == 2


def test_bucket_page_highlights_reproducer_input_and_trace(logged_in):
    bucket = finding_ingest(submission=make_finding()).bucket
    response = logged_in.get(reverse("triage:bucket", args=[bucket.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    # Pygments markup: the function name in the input and the exception name in the trace.
    assert '<div class="highlight">' in html
    assert '<span class="n">lookup</span>' in html
    assert '<span class="gr">KeyError</span>' in html
    assert "units.py:lookup" in html


def test_fuzzer_text_renders_as_text_everywhere(logged_in):
    finding = finding_ingest(
        submission=make_finding(
            function=XSS,
            error=f"KeyError: {XSS}",
            call=f"lookup('{XSS}')",
            reproducer=f"python3 -c '{XSS}'",
            versions={"python": XSS},
        )
    )
    bucket = finding.bucket
    pages = [
        reverse("triage:bucket", args=[bucket.pk]),
        reverse("triage:buckets"),
    ]
    for url in pages:
        html = logged_in.get(url).content.decode()
        assert "<script>alert" not in html, url
        assert "&lt;script&gt;" in html or "&lt;</span><span" in html, url

    report = logged_in.get(reverse("triage:bucket_report", args=[bucket.pk])).content.decode()
    assert XSS in report  # kept for the reader, but only where Markdown shows it as code
    assert "<script" not in _outside_code(report)


def _outside_code(markdown: str) -> str:
    """What a renderer would treat as markup: fences, code spans and escaped characters removed."""
    without_fences = re.sub(r"^(`{3,})[^\n]*\n.*?^\1\s*$", "", markdown, flags=re.S | re.M)
    without_spans = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", without_fences)
    return re.sub(r"\\[^\s]", "", without_spans)


def test_status_change_is_saved_and_audited(logged_in, admin_user):
    bucket = finding_ingest(submission=make_finding()).bucket
    response = logged_in.post(reverse("triage:bucket_edit", args=[bucket.pk]), {"status": "confirmed", "priority": "0"})
    assert response.status_code == 302
    bucket.refresh_from_db()
    assert bucket.status == "confirmed"
    event = BucketEvent.objects.get(bucket=bucket)
    assert (event.old_value, event.new_value, event.user) == ("new", "confirmed", admin_user)


def test_unknown_status_is_refused(logged_in):
    bucket = finding_ingest(submission=make_finding()).bucket
    logged_in.post(reverse("triage:bucket_edit", args=[bucket.pk]), {"status": "pwned", "priority": "0"})
    bucket.refresh_from_db()
    assert bucket.status == "new"
    assert not BucketEvent.objects.exists()


def test_markdown_report_downloads_as_a_file(logged_in):
    bucket = finding_ingest(
        submission=make_finding(function="mean", error="ZeroDivisionError: division by zero")
    ).bucket
    response = logged_in.get(reverse("triage:bucket_report", args=[bucket.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/markdown")
    assert response["Content-Disposition"] == f'attachment; filename="fuzzweb-bucket-{bucket.pk}.md"'
    report = response.content.decode()
    assert report.startswith("# ZeroDivisionError in mean\n")
    for section in ("## Summary", "## Reproduce", "## Traceback", "## Versions"):
        assert section in report
    assert "```sh\npython3 -c" in report
    assert "- python: `3.11.7`" in report


def test_report_fences_cannot_be_closed_by_the_trace(logged_in):
    bucket = finding_ingest(submission=make_finding(error="KeyError: ```\n# injected heading")).bucket
    report = logged_in.get(reverse("triage:bucket_report", args=[bucket.pk])).content.decode()
    assert "\n````text\n" in report  # a fence longer than the backticks inside


def test_bucket_page_explains_the_grouping(logged_in):
    bucket = finding_ingest(submission=make_finding()).bucket
    html = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "Why these findings are grouped" in html
    assert "same top frames of the target" in html
    assert "<code>units.py:lookup</code>" in html


def test_unparsed_crashes_are_listed_as_such(logged_in):
    finding_ingest(
        submission=make_finding(error="", trace="$ git gc\nfatal: bad object 0x7ffd0000 in pack index\n", crash_type="")
    )
    finding_ingest(submission=make_finding())
    listing = logged_in.get(reverse("triage:buckets")).content.decode()
    assert "1 bucket with unparsed traces" in listing
    unparsed = logged_in.get(reverse("triage:buckets") + "?method=message")
    assert [b.method for b in unparsed.context["page"].object_list] == ["message"]
    bucket = unparsed.context["page"].object_list[0]
    html = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "No stack identified this crash" in html
    # What was hashed, as it was hashed: the most specific line (not the prompt), its address masked and its
    # severity word ("fatal: ") left out.
    assert '<code id="grouped-message">bad object 0x? in pack index</code>' in html


def test_testcase_is_highlighted_in_its_own_language(logged_in):
    bucket = finding_ingest(
        submission=make_finding(testcase_language="c", call="int main(void) { return *(int *)0; }")
    ).bucket
    html = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert '<span class="kt">int</span>' in html  # a C keyword type, per Pygments' C lexer


def test_bucket_page_marks_explicitly_raised_errors_as_expected(logged_in):
    bucket = finding_ingest(submission=make_finding(metadata={"expected": True})).bucket
    html = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert 'id="expected"' in html
    other = finding_ingest(submission=make_finding(function="other")).bucket
    assert 'id="expected"' not in logged_in.get(reverse("triage:bucket", args=[other.pk])).content.decode()


def test_a_culprit_bucket_says_it_groups_by_cause(logged_in):
    from django.utils import timezone

    from triage.models import Bucket, Method

    bucket = Bucket.objects.create(
        signature="c" * 64,
        signature_version=2,
        first_seen=timezone.now(),
        last_seen=timezone.now(),
        kind="miscompilation",
        crash_type="wrong code",
        title="wrong code: gcc:flags:-ftree-ch",
        key_frames=["gcc:flags:-ftree-ch"],
        method=Method.CULPRIT,
        culprit={
            "backends": {"gcc-11-O1": {"method": "flags", "name": "-ftree-ch", "detail": "removing it alone"}},
            "program_size": 152,
        },
    )
    html = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "Same cause: the findings' reduced programs are broken by the same optimisation" in html
    assert "No stack identified this crash" not in html
