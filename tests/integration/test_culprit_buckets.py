"""Miscompilations grouped by cause: findings leave their provisional bucket for the bucket of their culprit.

The compiler under test is tests/data/planted/multi_gcc: gcc with four wrong-code bugs, each planted in
one optimisation flag that -O2 and -O3 both enable. Every bug at -O2 shares one provisional bucket
(which backends disagreed, and how); by culprit they split into one bucket per bug, each joining what
-O2 and -O3 saw.
"""

from __future__ import annotations

import re

import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.launch import campaign_launch
from campaigns.targets import target_save
from tests.conftest import BASE_DIR, run_worker_burst
from triage.culprits import _covering_bucket_key, culprit_move_undo
from triage.models import Bucket, BucketMove, CulpritSearch, Finding, Method, Reduction, ReductionState
from triage.rebucket import findings_rebucket
from triage.reduction import reduction_request

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]
PLANTED = BASE_DIR / "tests" / "data" / "planted"
FLAG_OF = {"<< 3": "-ftree-vrp", "% 7": "-fgcse", "* 9": "-fipa-sra", "- 11": "-ftree-pre"}


def _backend(name: str, compiler: str, level: str) -> dict:
    return {"name": name, "compile": f"{compiler} {level} -w -o {{binary}} {{source}}", "run": "{binary}",
            "version": "gcc --version"}  # fmt: skip


def _multi_bug_target(name: str, *planted: dict):
    """A target of gen_multi.py's programs: plain gcc -O0 decides, against the planted compilers."""
    target, _ = target_save(
        description={
            "name": name,
            "language": "c",
            "reference": "gcc-O0",
            "generator": {"kind": "command", "command": f"python3 {PLANTED}/gen_multi.py {{seed}} {{out}}"},
            "backends": [_backend("gcc-O0", "gcc", "-O0"), *planted],
        }
    )
    return target


def test_wrong_code_findings_move_to_one_bucket_per_culprit_and_back(monkeypatch, client, admin_user):
    target = _multi_bug_target(
        "multi-bug gcc",
        _backend("multi-O2", str(PLANTED / "multi_gcc"), "-O2"),
        _backend("multi-O3", str(PLANTED / "multi_gcc"), "-O3"),
    )
    monkeypatch.setenv("FUZZWEB_AUTO_REDUCE", "0")  # the culprit jobs alone on the reduce queue
    with transaction.atomic():
        campaign_launch(target=target, time_budget_seconds=120, max_executions=10, seed=11)
    assert run_worker_burst(queues=["engine-differential"]).returncode == 0
    wrong = list(Finding.objects.filter(kind="miscompilation"))
    provisional = {f.bucket_id for f in wrong}
    assert len(provisional) == 1  # every planted bug is "multi-O2, multi-O3 wrong output"
    result = run_worker_burst(queues=["reduce"], timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]

    by_bucket: dict[int, set[str]] = {}
    for finding in Finding.objects.filter(pk__in=[f.pk for f in wrong]).select_related("bucket"):
        planted = re.search(r"planted: (.+?) \*/", finding.testcase).group(1)
        assert finding.bucket.method == Method.CULPRIT, finding.bucket.title
        assert finding.bucket.title == f"wrong code: gcc:flags:{FLAG_OF[planted]}"  # the planted flag, named
        by_bucket.setdefault(finding.bucket_id, set()).add(planted)
    assert all(len(constructs) == 1 for constructs in by_bucket.values())  # one bug per bucket
    assert len(by_bucket) >= 2  # two bugs at the same levels, apart
    assert not Bucket.objects.get(pk=provisional.pop()).findings.exists()

    # A forced rebucket recomputes every signature: the culprits, found by re-compiling, stay.
    before = dict(Finding.objects.filter(pk__in=[f.pk for f in wrong]).values_list("pk", "bucket_id"))
    assert set(before.values()) == set(by_bucket)
    findings_rebucket(only_outdated=False)
    assert dict(Finding.objects.filter(pk__in=[f.pk for f in wrong]).values_list("pk", "bucket_id")) == before

    # The culprit bucket says where its findings came from, and a triager can send one back.
    move = BucketMove.objects.filter(kind=BucketMove.Kind.CULPRIT).first()
    client.force_login(admin_user)
    page = client.get(reverse("triage:bucket", args=[move.target_id])).content.decode()
    assert 'id="culprit-moves"' in page and f'href="/triage/buckets/{move.source_id}/"' in page
    client.post(reverse("triage:bucket_culprit_undo", args=[move.target_id, move.pk]))
    assert Finding.objects.get(pk=move.finding_ids[0]).bucket_id == move.source_id
    assert culprit_move_undo(move_id=move.pk, user=None) == 0  # once


def test_python_wrong_code_findings_move_to_one_bucket_per_reduced_shape(monkeypatch, client, admin_user):
    """An interpreter has no pipeline to bisect: each finding is reduced and moves by its difference's shape."""
    target, _ = target_save(
        description={
            "name": "multi-bug python",
            "language": "python",
            "reference": "cpython",
            "generator": {"kind": "command", "command": f"python3 {PLANTED}/gen_multi_py.py {{seed}} {{out}}"},
            "backends": [
                {"name": "cpython", "run": "python3 {source}", "version": "python3 --version"},
                {"name": "planted", "run": f"{PLANTED}/multi_python {{source}}", "version": "python3 --version"},
            ],
        }
    )
    monkeypatch.setenv("FUZZWEB_AUTO_REDUCE", "0")  # the culprit jobs alone on the reduce queue
    monkeypatch.setenv("FUZZWEB_SHAPE_SECONDS", "8")
    with transaction.atomic():
        campaign_launch(target=target, time_budget_seconds=120, max_executions=10, seed=5)
    assert run_worker_burst(queues=["engine-differential"]).returncode == 0
    wrong = list(Finding.objects.filter(kind="miscompilation"))
    assert len({f.bucket_id for f in wrong}) == 1 and len(wrong) >= 4  # all "planted wrong output"
    result = run_worker_burst(queues=["reduce"], timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]

    moved = Finding.objects.filter(pk__in=[f.pk for f in wrong], bucket__method=Method.CULPRIT)
    buckets = Bucket.objects.filter(pk__in=moved.values("bucket_id"))
    titles = sorted(bucket.title for bucket in buckets)
    assert len(titles) >= 3, titles  # different planted bugs, different shapes
    by_bucket: dict[int, set[str]] = {}
    for finding in moved:
        by_bucket.setdefault(finding.bucket_id, set()).add(re.search(r"# planted: (\w+)", finding.testcase).group(1))
    assert all(len(bugs) == 1 for bugs in by_bucket.values()), by_bucket  # one bug per shape bucket
    assert all(title.startswith("wrong code: planted:shape:") for title in titles), titles
    # The aborting closure keeps its nested function and says how it died; no key carries a name or value.
    assert any("signal SIGABRT" in title and "FunctionDef" in title for title in titles), titles
    for bucket in buckets:
        # The shape was read off the finding's reduced program, which the bucket keeps to show it.
        assert bucket.culprit["backends"]["planted"]["method"] == "shape"
        original = Finding.objects.get(pk=bucket.culprit["finding"]).testcase
        assert 0 < bucket.culprit["program_size"] == len(bucket.culprit["reduced"]) < len(original)

    # A finding whose reduced program kept a leftover besides a bucketed shape joins that bucket, and a move
    # is undone to where the finding was.
    finding = moved.first()
    home, key = finding.bucket_id, " | ".join(finding.bucket.key_frames)
    assert _covering_bucket_key(finding, f"{key} call:sum") == key
    assert _covering_bucket_key(finding, "planted:shape:output: Pow") == "planted:shape:output: Pow"
    move = BucketMove.objects.get(kind=BucketMove.Kind.CULPRIT, finding_ids=[finding.pk])
    assert culprit_move_undo(move_id=move.pk, user=None) == 1
    assert Finding.objects.get(pk=finding.pk).bucket_id == move.source_id != home

    # A shape bucket's reduction reproduces its findings (signed as they were, not as the bucket is), and its
    # culprit follows: the shape on its page and in its report, with every installed interpreter's row.
    bucket = buckets.first()
    monkeypatch.setenv("FUZZWEB_REDUCTION_SECONDS", "5")
    with transaction.atomic():
        reduction = reduction_request(bucket=bucket, source=Reduction.Source.AUTO)
    assert run_worker_burst(queues=["reduce"], timeout=600).returncode == 0
    reduction.refresh_from_db()
    assert reduction.state == ReductionState.DONE, reduction.message
    bucket.refresh_from_db()
    found = bucket.culprit
    assert found["backends"]["planted"]["method"] == "shape" and "python3.11" in found["matrix"]["versions"]
    client.force_login(admin_user)
    page = client.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "shape of the difference" in page and 'id="version-matrix"' in page and "<code>pypy3.9</code>" in page
    report = client.get(reverse("triage:bucket_report", args=[bucket.pk])).content.decode()
    assert "the reduced difference's shape" in report and "python releases at plain:" in report


@pytest.mark.django_db(transaction=False)
def test_a_moved_finding_takes_its_reduced_versions_along():
    # As the first real campaign's did (docs/findings.md): the provisional bucket reduced the finding
    # before its culprit was known; the reduced version must follow it, or the culprit bucket is never reduced.
    from django.utils import timezone

    from tests.integration.test_ingest import make_finding
    from triage.culprits import _move
    from triage.ingest import finding_ingest

    original = finding_ingest(submission=make_finding(call="lookup('a long input that reduces')"))
    reduced = finding_ingest(submission=make_finding(call="lookup('')"))
    provisional = original.bucket_id
    assert reduced.bucket_id == provisional
    Finding.objects.filter(pk=reduced.pk).update(verified_at=timezone.now())
    Reduction.objects.create(bucket_id=provisional, finding=original, result=reduced, state=ReductionState.DONE)

    assert _move(original, "gcc:flags:-ftree-ch", {"backends": {}, "reduced": ""}).startswith("moved to")
    moved = Finding.objects.get(pk=original.pk).bucket
    assert Finding.objects.get(pk=reduced.pk).bucket_id == moved.pk != provisional
    assert moved.representative_id == reduced.pk and moved.reductions.count() == 1
    move = BucketMove.objects.get(target=moved)
    assert move.finding_ids == [original.pk, reduced.pk]

    assert culprit_move_undo(move_id=move.pk, user=None) == 2
    assert {f.bucket_id for f in Finding.objects.filter(pk__in=[original.pk, reduced.pk])} == {provisional}
    assert Reduction.objects.get(finding=original).bucket_id == provisional


@pytest.mark.django_db(transaction=False)
def test_a_reduction_that_ends_after_its_finding_moved_ends_in_the_culprits_bucket():
    # Two reduce workers: the culprit search moved the finding while its provisional bucket was reducing it.
    from tests.integration.test_ingest import make_finding
    from triage.culprits import _move
    from triage.ingest import finding_ingest
    from triage.reduction import _follow_culprit_move

    original = finding_ingest(submission=make_finding(call="lookup('a long input that reduces')"))
    provisional = original.bucket_id
    reduction = Reduction.objects.create(bucket_id=provisional, finding=original, state=ReductionState.REDUCING)
    assert _follow_culprit_move(reduction, original.pk) is None  # not moved: stays
    _move(original, "gcc:flags:-ftree-ch", {"backends": {}, "reduced": ""})
    moved_to = Finding.objects.get(pk=original.pk).bucket_id
    move = _follow_culprit_move(reduction, original.pk)
    assert move is not None and move.target_id == moved_to
    assert reduction.bucket_id == moved_to == Reduction.objects.get(pk=reduction.pk).bucket_id


# Alone: a 15-second C-Vise reduction (two jobs) beside the other half of the parallel suite tests its
# candidates in another order. Cut short under load, it kept a harmless `a2 * 5` statement beside a `<< 3`
# finding's bug, whose shape then covered the `*` bug's bucket (CI, and twice in full runs before):
# shape.c_canonical now takes such lines away before the shape is read, an operation's lines together (a
# later CI run kept two `* 5` lines, neither of which alone takes the `*` away; budgets of 1-4 s, beside two
# busy cores, pass since).
@pytest.mark.serial
def test_c_wrong_code_no_flag_explains_moves_by_the_shape_of_its_reduced_program(monkeypatch, client, admin_user):
    """A compiler whose bugs no -f flag switches off (tests/data/planted/multi_level): keyed by what C-Vise keeps."""
    target = _multi_bug_target(
        "multi-bug gcc below its flags", _backend("level-O2", str(PLANTED / "multi_level"), "-O2")
    )
    monkeypatch.setenv("FUZZWEB_AUTO_REDUCE", "0")  # the culprit jobs alone on the reduce queue
    monkeypatch.setenv("FUZZWEB_SHAPE_SECONDS", "15")
    with transaction.atomic():
        campaign_launch(target=target, time_budget_seconds=120, max_executions=8, seed=3)
    assert run_worker_burst(queues=["engine-differential"]).returncode == 0
    wrong = list(Finding.objects.filter(kind="miscompilation"))
    planted = {f.pk: re.search(r"planted: (.+?) \*/", f.testcase).group(1) for f in wrong}
    assert len({f.bucket_id for f in wrong}) == 1 and len(set(planted.values())) >= 2, planted  # one provisional
    result = run_worker_burst(queues=["reduce"], timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]

    by_bucket: dict[int, set[str]] = {}
    searched = dict(CulpritSearch.objects.values_list("subject_id", "outcome"))
    for finding in Finding.objects.filter(pk__in=planted).select_related("bucket"):
        assert finding.bucket.method == Method.CULPRIT, (finding.bucket.title, searched.get(finding.pk))
        # The planted operator (with what a 15-second reduction may leave), no value, nor the printf that shows it.
        assert finding.bucket.title.startswith("wrong code: gcc:shape:output: "), finding.bucket.title
        shown = finding.bucket.title.rsplit(": ", 1)[1].split()
        reduced = finding.bucket.culprit.get("reduced", "")
        assert planted[finding.pk].split()[0] in shown and not {"call:printf", "3", "7", "9"} & set(shown), (
            shown,
            reduced,
        )
        answer = finding.bucket.culprit["backends"]["level-O2"]
        assert answer["method"] == "shape" and "every -f flag of its level off" in answer["searched"]
        by_bucket.setdefault(finding.bucket_id, set()).add(planted[finding.pk])
    assert len(by_bucket) >= 2 and all(len(bugs) == 1 for bugs in by_bucket.values()), by_bucket

    client.force_login(admin_user)
    page = client.get(reverse("triage:bucket", args=[next(iter(by_bucket))])).content.decode()
    assert "shape of the difference" in page and "every -f flag of its level off" in page
    # The emptied provisional bucket says where its findings went.
    provisional = BucketMove.objects.filter(kind=BucketMove.Kind.CULPRIT).first().source_id
    page = client.get(reverse("triage:bucket", args=[provisional])).content.decode()
    assert 'id="culprit-moves-out"' in page and all(f'href="/triage/buckets/{pk}/"' in page for pk in by_bucket)
