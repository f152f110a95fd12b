"""Full-text search over findings' traces, programs and messages.

PostgreSQL: the 'simple' text-search configuration (no stemming: frames and
identifiers are not English) over the same expression the GIN index of
migration 0004 holds, so a search is an index scan. The embedded SQLite
default of ``make run`` falls back to substring matching.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery, SearchVector
from django.db import connection
from django.db.models import Q, QuerySet

from triage.models import Finding

SEARCH_FIELDS = ("trace", "testcase", "message")


def findings_matching(query: str, findings: QuerySet[Finding] | None = None) -> QuerySet[Finding]:
    """Findings whose trace, testcase or message contain every word of ``query``."""
    findings = Finding.objects.all() if findings is None else findings
    query = query.strip()
    if not query:
        return findings
    if connection.vendor == "postgresql":
        vector = SearchVector(*SEARCH_FIELDS, config="simple")
        return findings.annotate(search=vector).filter(search=SearchQuery(query, config="simple", search_type="plain"))
    words = Q()
    for word in query.split():
        words &= Q(trace__icontains=word) | Q(testcase__icontains=word) | Q(message__icontains=word)
    return findings.filter(words)
