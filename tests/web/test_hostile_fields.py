"""XSS payloads through every field a fuzzer controls: every page and export shows them as inert text."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from fuzzweb.tokens import api_token_create
from triage.models import Bucket, Finding

pytestmark = pytest.mark.django_db

# Each would run script, load a resource or inject markup if it reached a page unescaped.
PAYLOADS = [
    "<script>alert('xss-1')</script>",
    '"><img src=x onerror=alert("xss-2")>',
    "'><svg/onload=alert('xss-3')>",
    "</textarea><iframe srcdoc='<script>alert(4)</script>'>",
    "javascript:alert('xss-5')",
    "<a href=\"javascript:alert('xss-6')\">click</a>",
    "```\n</pre><script>alert('xss-7')</script>\n```",
    "{{ request.user }}{% debug %}",
    "<b onmouseover=alert('xss-8')>bold</b>",
]
# What must never appear in HTML as live markup.
LIVE = re.compile(r"<script>alert|<img src=x|<svg/onload|<iframe|<a href=\"javascript:|<b onmouseover", re.I)


def _hostile_submissions() -> list[dict]:
    findings = []
    for index, payload in enumerate(PAYLOADS):
        findings.append(
            {
                "kind": "miscompilation" if index % 2 else "crash",
                "target": f"t{index}{payload}"[:200],
                "engine": f"e{payload}"[:60],
                "function": payload[:200],
                "stage": payload[:200],
                "crash_type": payload[:200],
                "message": payload,
                "trace": f'Traceback (most recent call last):\n  File "{payload}", line 1, in {payload}\n{payload}\n',
                "testcase": payload,
                "reproducer": payload,
                "reference": "ref",
                "versions": {payload[:50]: payload},
                "metadata": {"generator": payload, "seed": payload},
                "backends": [
                    {"name": "ref", "outcome": "ok", "output": "1\n"},
                    {"name": payload[:60], "outcome": "wrong_output", "output": payload},
                ]
                if index % 2
                else [],
            }
        )
    return findings


@pytest.fixture
def hostile(client, admin_user):
    token = api_token_create(user=admin_user, name="hostile", scope="ingest")[1]
    response = client.post(
        "/api/v1/findings/bulk",
        json.dumps({"findings": _hostile_submissions()}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code in (200, 201), response.content
    assert Finding.objects.count() == len(PAYLOADS)
    client.force_login(admin_user)
    return client


def _pages(bucket: Bucket, finding: Finding) -> list[str]:
    return [
        reverse("triage:buckets"),
        reverse("triage:buckets") + "?q=alert",
        reverse("triage:findings"),
        reverse("triage:overview"),
        reverse("triage:bucket", args=[bucket.pk]),
        reverse("triage:bucket_reduction", args=[bucket.pk]),
        reverse("admin:triage_bucket_change", args=[bucket.pk]),
        reverse("admin:triage_finding_change", args=[finding.pk]),
        reverse("admin:triage_finding_changelist"),
        reverse("admin:triage_bucket_changelist"),
    ]


def test_every_page_shows_hostile_fields_as_text(hostile):
    for bucket in Bucket.objects.all():
        finding = bucket.findings.first()
        for url in _pages(bucket, finding):
            response = hostile.get(url)
            assert response.status_code == 200, url
            html = response.content.decode()
            live = LIVE.search(html)
            assert live is None, (url, html[max(0, live.start() - 200) : live.end() + 200])
    # Templates never evaluate fuzzer text: the template-looking payload is shown as written.
    templated = Finding.objects.get(message__startswith="{{")
    page = hostile.get(reverse("triage:bucket", args=[templated.bucket_id])).content.decode()
    assert "{{ request.user }}{% debug %}" in page


def test_exports_keep_hostile_fields_inert(hostile):
    for bucket in Bucket.objects.all():
        markdown = hostile.get(reverse("triage:bucket_report_as", args=[bucket.pk, "md"])).content.decode()
        outside = _outside_code(markdown)
        assert LIVE.search(outside) is None, outside
        text = hostile.get(reverse("triage:bucket_report_as", args=[bucket.pk, "txt"]))
        assert text["Content-Type"].startswith("text/plain")
        data = hostile.get(reverse("triage:bucket_report_as", args=[bucket.pk, "json"]))
        assert data["Content-Type"] == "application/json"
        # JSON carries the text exactly, for a program to read; nothing renders it.
        assert json.loads(data.content)["message"] in PAYLOADS


def _outside_code(markdown: str) -> str:
    """What a Markdown renderer would treat as markup: fences, code spans and escaped characters removed."""
    without_fences = re.sub(r"^(`{3,})[^\n]*\n.*?^\1\s*$", "", markdown, flags=re.S | re.M)
    without_spans = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", without_fences, flags=re.S)
    return re.sub(r"\\[^\s]", "", without_spans)
