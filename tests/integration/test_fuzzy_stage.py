"""The fuzzy stage: a near-identical crash joins the bucket it resembles, recorded, shown and undoable."""

from __future__ import annotations

import pytest
from django.urls import reverse

from triage.ingest import findings_ingest
from triage.merge import bucket_merge_undo
from triage.models import Bucket, BucketMove
from triage.submission import Submission

pytestmark = pytest.mark.django_db

# One .NET crash (tests/traces/dotnet/dafny_boogie_nullref_predicatecmd.txt, dafny-lang/dafny),
# reported twice: once with the full stack, once reaching the same failing frames from another caller.
FRAMES = [
    "Microsoft.Boogie.PredicateCmd.Resolve(ResolutionContext rc)",
    "Microsoft.Boogie.AssumeCmd.Resolve(ResolutionContext rc)",
    "Microsoft.Boogie.StmtList.Resolve(ResolutionContext rc)",
    "Microsoft.Boogie.Implementation.Resolve(ResolutionContext rc)",
    "Microsoft.Boogie.Program.Resolve(ResolutionContext rc)",
]


def _trace(frames: list[str]) -> str:
    body = "\n".join(f"   at {frame}" for frame in frames)
    return f"Unhandled exception. System.NullReferenceException: Object reference not set.\n{body}\n"


def _submit(trace: str, target: str = "dafny") -> Submission:
    return Submission(kind="crash", target=target, engine="external", trace=trace)


def test_near_duplicate_joins_and_can_be_undone(client, admin_user):
    first = findings_ingest(submissions=[_submit(_trace(FRAMES))]).stored[0]
    # The third frame differs: a different exact signature, the same bug.
    other = [*FRAMES[:2], "Microsoft.Boogie.StmtList.ResolveBlocks(ResolutionContext rc)", *FRAMES[3:]]
    second = findings_ingest(submissions=[_submit(_trace(other))]).stored[0]

    assert second.finding.bucket_id == first.finding.bucket_id
    assert not second.new_bucket
    move = BucketMove.objects.get(by_fuzzy_match=True)
    assert move.target_id == first.finding.bucket_id and 0.7 < move.score < 1.0
    assert "Microsoft.Boogie.PredicateCmd.Resolve" in move.matched_frames
    joined = Bucket.objects.get(pk=move.source_id)
    assert joined.status == "duplicate" and joined.duplicate_of_id == first.finding.bucket_id

    client.force_login(admin_user)
    page = client.get(reverse("triage:bucket", args=[joined.pk])).content.decode()
    assert "Joined by the fuzzy stage" in page and f"{move.score:.2f}" in page
    assert "Microsoft.Boogie.PredicateCmd.Resolve" in page and "undo-duplicate-form" in page

    bucket_merge_undo(source_id=joined.pk, user=admin_user)
    joined.refresh_from_db()
    assert joined.status == "new" and joined.findings.count() == 1
    # Undone for good: the same crash again stays in its own bucket.
    again = findings_ingest(submissions=[_submit(_trace(other) + "\n")]).stored[0]
    assert again.finding.bucket_id == joined.pk


def test_other_target_or_crash_type_never_joins():
    findings_ingest(submissions=[_submit(_trace(FRAMES))])
    other = [*FRAMES[:2], "Microsoft.Boogie.StmtList.ResolveBlocks(ResolutionContext rc)", *FRAMES[3:]]
    elsewhere = findings_ingest(submissions=[_submit(_trace(other), target="boogie")]).stored[0]
    assert elsewhere.new_bucket
    cast = _trace(other).replace("NullReferenceException", "InvalidCastException")
    assert findings_ingest(submissions=[_submit(cast)]).stored[0].new_bucket
    assert not BucketMove.objects.filter(by_fuzzy_match=True).exists()


def _bucket(frames: list[str], target: str = "dafny") -> int:
    return findings_ingest(submissions=[_submit(_trace(frames), target)]).stored[0].finding.bucket_id


def test_maintainers_decisions_become_pairs_and_a_target_threshold(admin_user):
    from triage.decisions import decision_pairs, target_threshold, target_threshold_learn
    from triage.merge import bucket_merge, bucket_split
    from triage.models import FuzzyThreshold

    # Crashes sharing their top two frames: the fuzzy stage keeps them apart (score under 0.72).
    tails = [[f"{name}.One()", f"{name}.Two()"] for name in "ABCDE"]
    ids = [_bucket([*FRAMES[:2], *tail]) for tail in tails]
    assert len(set(ids)) == 5 and not BucketMove.objects.exists()
    # The maintainers merge them all: the same bug, every time.
    for source in ids[1:]:
        bucket_merge(source_id=source, target_id=ids[0], user=admin_user)
    assert [(p.same, p.why) for p in decision_pairs(target="dafny")] == [(True, "merged by a maintainer")] * 4
    assert target_threshold("dafny") == pytest.approx(0.72)

    learned = target_threshold_learn(target="dafny")
    assert learned is not None and learned.threshold < 0.72
    assert (learned.decisions, learned.agreed, learned.agreed_by_default) == (4, 4, 0)
    assert target_threshold("dafny") == learned.threshold
    # Another crash like those now joins by itself, at the learned threshold.
    joined = findings_ingest(submissions=[_submit(_trace([*FRAMES[:2], "F.One()", "F.Two()"]))]).stored[0]
    assert joined.finding.bucket_id == ids[0]
    # Reverting is unticking it.
    FuzzyThreshold.objects.filter(target="dafny").update(active=False)
    assert target_threshold("dafny") == pytest.approx(0.72)

    # A split says "different bugs": a pair too.
    moved = Bucket.objects.get(pk=ids[0]).findings.order_by("pk").last()
    split = bucket_split(source_id=ids[0], finding_ids=[moved.pk], user=admin_user)
    assert (split.pk, False, "split") in [(p.second_id, p.same, p.why) for p in decision_pairs()]


def _candidates_queries(count: int) -> int:
    """Queries the fuzzy stage makes for one new bucket with ``count`` look-alike candidates."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from triage.fuzzy import buckets_fuzzy_join

    for index in range(count):
        # The same failing frame, a different caller each: candidates, none close enough to join.
        _bucket([FRAMES[0], f"Other{index}.Caller(X x)", f"Other{index}.Main(Y y)"])
    new = _bucket([FRAMES[0], "Fresh.Caller(X x)", "Fresh.Main(Y y)"])
    with CaptureQueriesContext(connection) as queries:
        buckets_fuzzy_join(bucket_ids=[new])
    return len(queries)


def test_fuzzy_stage_queries_do_not_grow_with_the_candidates():
    # Every field a candidate is scored on is loaded with it: one deferred field was
    # a query per candidate, 1,459 of them in 4,000 findings of the ingest bench.
    few = _candidates_queries(2)
    Bucket.objects.all().delete()
    many = _candidates_queries(12)
    assert many == few


def _batch_queries(fresh: int) -> int:
    """Queries one batch makes that opens ``fresh`` buckets, each with look-alike candidates."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for index in range(3):
        _bucket([FRAMES[0], f"Other{index}.Caller(X x)", f"Other{index}.Main(Y y)"])
    batch = [_submit(_trace([FRAMES[0], f"Fresh{n}.Caller(X x)", f"Fresh{n}.Main(Y y)"])) for n in range(fresh)]
    with CaptureQueriesContext(connection) as queries:
        result = findings_ingest(submissions=batch)
    assert len(result.new_buckets) == fresh
    return len(queries)


def test_a_batch_asks_for_candidates_once_however_many_buckets_it_opens():
    # A query per new bucket was a tenth of the ingest bench's time at 100,000 buckets.
    few = _batch_queries(2)
    Bucket.objects.all().delete()
    assert _batch_queries(9) == few


def test_one_bug_arriving_several_times_in_one_batch_ends_in_one_bucket():
    from triage.selectors import final_bucket_id

    first = _bucket(FRAMES)
    # Three reports of it in one batch, each reaching the failing frames from another caller:
    # each joins an existing bucket, never one merged away earlier in the same batch.
    variants = [
        [*FRAMES[:2], f"Microsoft.Boogie.Caller{n}.Resolve(ResolutionContext rc)", *FRAMES[3:]] for n in range(3)
    ]
    stored = findings_ingest(submissions=[_submit(_trace(frames)) for frames in variants]).stored
    assert len(stored) == 3 and BucketMove.objects.filter(by_fuzzy_match=True).count() == 3
    assert {final_bucket_id(item.finding.bucket_id) for item in stored} == {first}
    assert Bucket.objects.filter(duplicate_of__isnull=True).count() == 1


def test_the_per_bucket_query_finds_what_the_batched_one_finds():
    # make run's SQLite asks _candidates once per bucket; PostgreSQL asks one lateral query for
    # the batch. The two state one rule twice: they must find the same buckets, in the same order.
    from django.contrib.auth.models import Group

    from triage.fuzzy import _candidates, buckets_fuzzy_candidates

    for index in range(4):
        _bucket([FRAMES[0], f"Other{index}.Caller(X x)", f"Other{index}.Main(Y y)"])
    _bucket([FRAMES[0], "Elsewhere.Caller(X x)"], target="another target")
    merged_away = Bucket.objects.get(pk=_bucket([FRAMES[0], "Merged.Caller(X x)", "Merged.Main(Y y)"]))
    hidden = Bucket.objects.get(pk=_bucket([FRAMES[0], "Hidden.Caller(X x)", "Hidden.Main(Y y)"]))
    Bucket.objects.filter(pk=merged_away.pk).update(duplicate_of=Bucket.objects.order_by("pk").first())
    embargo = Group.objects.create(name="embargoed reporters")
    Bucket.objects.filter(pk=hidden.pk).update(restricted_to=embargo)
    # A message-only report is compared across formats; the rest within theirs.
    message_only = _bucket([], target="dafny")
    fresh = [_bucket([FRAMES[0], f"Fresh{n}.Caller(X x)", f"Fresh{n}.Main(Y y)"]) for n in range(2)]
    buckets = list(Bucket.objects.filter(pk__in=[*fresh, message_only]))

    batched = buckets_fuzzy_candidates(buckets)
    assert batched, "no bucket had lookup keys: the comparison below would be empty"
    for bucket in buckets:
        if bucket.pk in batched:
            assert [b.pk for b in batched[bucket.pk]] == [b.pk for b in _candidates(bucket)[:50]], bucket.pk
    found = {pk for candidates in batched.values() for pk in (b.pk for b in candidates)}
    assert merged_away.pk not in found and hidden.pk not in found
    assert not Bucket.objects.filter(pk__in=found, target="another target").exists()
    assert len(batched[fresh[0]]) >= 4


def _corpus(record_id: str) -> dict:
    from tests.data.record_digests import dedup_records

    return dedup_records()[record_id]


def test_a_bucket_a_batch_opens_is_its_first_findings_as_if_posted_one_by_one():
    from crashes import signatures, similarity

    # hashicorp/terraform#29104 and #27682: one digest (cty's assertUnmarked under LengthInt), the first with
    # a deeper stack. The bucket compares as the first, whichever else its batch brought.
    first, second = _corpus("hashicorp/terraform#29104"), _corpus("hashicorp/terraform#27682")
    shapes = [
        similarity.shape_of(signatures.compute(kind="crash", trace_text=r["trace"], target=r["project"]))
        for r in (first, second)
    ]
    assert shapes[0].frames != shapes[1].frames
    stored = findings_ingest(submissions=[_submit(r["trace"], r["project"]) for r in (first, second)]).stored
    bucket = Bucket.objects.get(pk=stored[0].finding.bucket_id)
    assert stored[1].finding.bucket_id == bucket.pk and tuple(bucket.fuzzy_frames) == shapes[0].frames


def test_a_stored_bucket_compares_as_its_signature_says():
    from crashes import signatures, similarity
    from triage.fuzzy import bucket_shape

    # swiftlang/swift#78328, keyed on a line: its parser's "SEGV" is its bucket's crash type, but the
    # fuzzy stage compares it by its message, with no type (the signature's fuzzy_crash_type).
    record = _corpus("swiftlang/swift#78328")
    signature = signatures.compute(kind="crash", trace_text=record["trace"], target=record["project"])
    assert signature.method == "message" and signature.crash_type == "SEGV"
    stored = findings_ingest(submissions=[_submit(record["trace"], record["project"])]).stored[0]
    bucket = Bucket.objects.get(pk=stored.finding.bucket_id)
    assert bucket.fuzzy_crash_type == "" and bucket_shape(bucket) == similarity.shape_of(signature)
    # A bucket made before the field was kept falls back on its crash type.
    Bucket.objects.filter(pk=bucket.pk).update(fuzzy_crash_type=None)
    assert bucket_shape(Bucket.objects.get(pk=bucket.pk)).crash_type == "SEGV"


def test_of_equally_close_buckets_a_crash_joins_the_most_recently_hit_as_the_bench_models_it():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from dedup_quality import FuzzwebBuckets

    # One message raised under two different stacks (two buckets), then the message pasted alone: as close
    # to either bucket (0.8). Ingest asks for candidates most recently hit first, and so does the bench.
    message = "System.InvalidOperationException: Cyclic reference found while evaluating the Style property.\n"
    panel = message + "   at Acme.Views.Panel.Load()\n   at Acme.Views.Panel.Init()\n   at Acme.App.Main()\n"
    layout = message + "   at Acme.Render.Layout.Measure()\n   at Acme.Render.Layout.Run()\n   at Acme.Host.Start()\n"
    order = [panel, layout, message]
    model = FuzzwebBuckets()
    modelled = [model.bucket(trace, "wpf app") for trace in order]
    stored = [findings_ingest(submissions=[_submit(trace, "wpf app")]).stored[0].finding for trace in order]
    assert modelled[2] == modelled[1] != modelled[0]
    assert stored[2].bucket_id == stored[1].bucket_id != stored[0].bucket_id
