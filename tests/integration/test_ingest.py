"""Ingest against PostgreSQL: bucketing, hit counts, hostile text."""

from __future__ import annotations

import pytest

from triage import text
from triage.ingest import finding_ingest, findings_ingest
from triage.models import Bucket, Finding
from triage.submission import Submission

pytestmark = pytest.mark.django_db


def make_finding(function="lookup", error="KeyError: 'ms'", path="/src/app/units.py", call=None, **extra):
    """A submission of a Python crash, as an engine or the API would make it."""
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "{path}", line 42, in {function}\n'
        "    return TABLE[unit]\n"
        f"{error}\n"
    )
    fields = dict(
        kind="crash",
        target="app.units",
        engine="pyfunc",
        function=function,
        crash_type=error.split(":")[0],
        message=error.partition(": ")[2],
        trace=trace,
        testcase=call or f"{function}('x')",
        testcase_language="python",
        reproducer=f'python3 -c "from app.units import {function}; {call or function + "()"}"',
        versions={"python": "3.11.7"},
    )
    fields.update(extra)
    return Submission(**fields)


def test_many_findings_of_two_bugs_make_two_buckets():
    batch = [make_finding(call=f"lookup('{i}')") for i in range(300)]
    batch += [make_finding(function="mean", error="ZeroDivisionError: division by zero", call="mean([])")] * 20
    result = findings_ingest(submissions=batch)
    assert len(result.stored) == 320
    assert len(result.new_buckets) == 2
    assert Bucket.objects.count() == 2
    hits = dict(Bucket.objects.values_list("crash_type", "hit_count"))
    assert hits == {"KeyError": 300, "ZeroDivisionError": 20}
    # The same testcase twenty times is one stored finding with twenty hits.
    assert Finding.objects.count() == 301
    assert Finding.objects.get(testcase="mean([])").hit_count == 20


def test_a_testcase_reported_again_is_counted_not_stored_again():
    first = finding_ingest(submission=make_finding(call="lookup('ms')"))
    result = findings_ingest(submissions=[make_finding(call="lookup('ms')", path="/other/app/units.py")] * 2)
    assert [item.duplicate for item in result.stored] == [True, True]
    assert Finding.objects.count() == 1
    finding = Finding.objects.get()
    assert finding.pk == first.pk
    assert finding.hit_count == 3
    assert finding.last_seen > first.created_at
    assert Bucket.objects.get().hit_count == 3


def test_later_batches_join_existing_buckets():
    findings_ingest(submissions=[make_finding()])
    result = findings_ingest(
        submissions=[make_finding(path="/elsewhere/app/units.py", error="KeyError: 'y'", call="lookup('y')")]
    )
    assert result.new_buckets == []
    bucket = Bucket.objects.get()
    assert bucket.hit_count == 2
    assert bucket.findings.count() == 2
    assert bucket.title == "KeyError in lookup"
    assert bucket.key_frames == ["units.py:lookup"]


def test_representative_is_the_smallest_input():
    findings_ingest(submissions=[make_finding(call="lookup('a much longer input string')")])
    findings_ingest(submissions=[make_finding(call="lookup('x')"), make_finding(call="lookup('medium one')")])
    findings_ingest(submissions=[make_finding(call="lookup('longer again than x')")])
    bucket = Bucket.objects.get()
    assert bucket.representative.testcase == "lookup('x')"


def test_nul_bytes_surrogates_and_huge_traces_are_stored_safely():
    huge = "x" * (text.TRACE_LIMIT + 5000)
    finding = finding_ingest(
        submission=make_finding(call="lookup('\x00\udcff')", message="bad \x00 byte", trace=huge + "\nKeyError: 'a'")
    )
    stored = Finding.objects.get(pk=finding.pk)
    assert "\x00" not in stored.testcase and "\ufffd" in stored.testcase
    assert "\x00" not in stored.message
    assert len(stored.trace) < text.TRACE_LIMIT + 200
    assert "[truncated: " in stored.trace


def test_binary_trace_is_decoded_not_rejected():
    assert text.clean(b"\xff\xfe Traceback \x80", 100) == "\ufffd\ufffd Traceback \ufffd"


def test_bucket_lookup_uses_the_signature_index(django_assert_max_num_queries):
    findings_ingest(submissions=[make_finding(function=f"f{i}") for i in range(50)])
    # A batch costs the same few queries however many buckets already exist:
    # bucketing is an index lookup, never a scan over buckets.
    with django_assert_max_num_queries(12):
        findings_ingest(submissions=[make_finding(function="f3"), make_finding(function="f7")])


@pytest.mark.django_db(transaction=True)
def test_concurrent_ingest_of_the_same_testcases_loses_nothing():
    import threading

    from django.db import connection

    batch = [make_finding(call=f"lookup('{i}')") for i in range(50)]
    errors = []

    def ingest():
        try:
            findings_ingest(submissions=batch)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ingest) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Finding.objects.count() == 50
    assert sum(Finding.objects.values_list("hit_count", flat=True)) == 200
    assert Bucket.objects.get().hit_count == 200


def test_copy_stores_every_kind_of_value_as_the_orm_would():
    # COPY writes plain values as they are and the rest (JSON, choices) through their fields.
    binary = bytes(range(256))
    stored = findings_ingest(
        submissions=[
            make_finding(versions={"python": "3.11.7", "build": "é\u2003"}, metadata={"seed": 7, "tags": ["a"]}),
            make_finding(function="other", testcase="", testcase_bytes=binary, testcase_language="binary"),
        ]
    ).findings
    first, second = (Finding.objects.get(pk=finding.pk) for finding in stored)
    assert first.versions == {"python": "3.11.7", "build": "é\u2003"}
    assert first.metadata == {"seed": 7, "tags": ["a"]} and first.backends == []
    assert first.origin == "fuzzer" and first.replay_allowed is True and first.testcase_bytes is None
    assert first.created_at == stored[0].created_at and first.created_at.tzinfo is not None
    assert bytes(second.testcase_bytes) == binary and second.testcase_size == 256
    assert second.signature == stored[1].signature and second.hit_count == 1
