"""A finding's one-line fields cannot break out of their code spans nor ping anyone in a filed report.

The report is read with a CommonMark parser (GFM tables on), as GitHub and
GitLab read it: what matters is the parsed document, not the text.
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from tests.integration.test_ingest import make_finding
from triage.ingest import findings_ingest
from triage.models import Bucket, Finding, Tracker
from triage.reports import bucket_report_markdown, render_with_template, report_data
from triage.trackers import issue_text

pytestmark = pytest.mark.django_db

BREAKOUTS = [
    "x\r# Injected heading",
    "x\n\n[click](https://evil.example)",
    "x`` [click](https://evil.example) ``",
    "a | b | c",
    "x\u2028## also a heading",
    "ping @all and @acme/team",
    "see #123 and !45 and ~security and %v1 and $7 and &9",
]
# What GitHub and GitLab turn into a notification or a cross-reference in text.
PING = re.compile(r"(?<![\w\u200b])[@#!~%$&]\w")


def _parse(markdown: str):
    return MarkdownIt("commonmark").enable("table").parse(markdown)


def _text_outside_code(tokens) -> list[str]:
    texts = []
    for token in tokens:
        if token.type == "inline":
            texts += [child.content for child in token.children if child.type == "text"]
    return texts


@pytest.fixture
def hostile_bucket():
    finding = findings_ingest(submissions=[make_finding(function="f", error="ValueError: x", call="f()")]).findings[0]
    hostile = " / ".join(BREAKOUTS)
    Finding.objects.filter(pk=finding.pk).update(
        target=hostile[:255], function=hostile[:255], versions={hostile[:60]: hostile[:200]}
    )
    Bucket.objects.filter(pk=finding.bucket_id).update(title=hostile[:300], crash_type=hostile[:255])
    return Bucket.objects.get(pk=finding.bucket_id)


def _check(markdown: str) -> None:
    tokens = _parse(markdown)
    headings = [t for t in tokens if t.type == "heading_open"]
    assert len(headings) <= 12  # the report's own sections only
    assert all(t.tag in ("h1", "h2", "h3") for t in headings)
    inline_children = [c for t in tokens if t.type == "inline" for c in t.children]
    assert not [c for c in inline_children if c.type in ("link_open", "image", "html_inline")]
    assert not [t for t in tokens if t.type in ("table_open", "html_block")]
    for text in _text_outside_code(tokens):
        assert not PING.search(text), text
    # Every heading's text is the report's own: the injected ones never open a heading.
    heading_texts = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert not [h for h in heading_texts if h.startswith(("Injected", "also a heading"))]


def test_the_built_in_report_keeps_hostile_one_line_fields_inert(hostile_bucket):
    finding = Finding.objects.get(bucket=hostile_bucket)
    markdown = bucket_report_markdown(bucket=hostile_bucket, finding=finding)
    _check(markdown)
    # Nothing was dropped: the words are all still there for the reader.
    assert "Injected heading" in markdown and "evil.example" in markdown


def test_a_trackers_template_has_safe_one_line_fields(hostile_bucket):
    finding = Finding.objects.get(bucket=hostile_bucket)
    data = report_data(bucket=hostile_bucket, finding=finding)
    template = (
        "| Field | Value |\n|---|---|\n| Crash | {{ code.crash_type }} |\n| Target | {{ code.target }} |\n\n"
        "Title: {{ inline.title }}\n\n{{ fenced.trace }}"
    )
    rendered = render_with_template(template, data)
    tokens = _parse(rendered)
    # One table, two rows of two cells: no pipe inside a value split a cell.
    cells = [t for t in tokens if t.type == "td_open"]
    assert len(cells) == 4
    inline_children = [c for t in tokens if t.type == "inline" for c in t.children]
    assert not [c for c in inline_children if c.type in ("link_open", "image", "html_inline")]
    for text in _text_outside_code(tokens):
        assert not PING.search(text), text


def test_a_filed_issues_title_pings_nobody(hostile_bucket):
    tracker = Tracker.objects.create(name="t", kind="github", api_url="https://api.github.com", repository="a/b")
    title, body = issue_text(tracker, hostile_bucket)
    assert "\r" not in title and "\n" not in title
    assert not PING.search(title), title
    _check(body)
