"""Counting a million findings for a pager costs more than showing a page of them; this counts less.

An unfiltered list takes PostgreSQL's own row estimate (kept by ANALYZE and
autovacuum); a filtered one counts at most CAP matches and says "CAP+".
The pages past the cap are not offered: refine the filter instead.
"""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db import connection
from django.utils.functional import cached_property

CAP = 10_000
ESTIMATE_ABOVE = 100_000


def table_estimate(table: str) -> int:
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE relname = %s", [table])
        row = cursor.fetchone()
    return max(0, int(row[0])) if row else 0


class CappedPaginator(Paginator):
    def __init__(self, object_list, per_page, *, unfiltered: bool):
        super().__init__(object_list, per_page)
        self.unfiltered = unfiltered
        self.approximate = False

    @cached_property
    def count(self) -> int:
        if self.unfiltered:
            estimate = table_estimate(self.object_list.model._meta.db_table)
            if estimate > ESTIMATE_ABOVE:
                self.approximate = True
                return estimate
        counted = self.object_list[: CAP + 1].count()
        if counted > CAP:
            self.approximate = True
            return CAP
        return counted
