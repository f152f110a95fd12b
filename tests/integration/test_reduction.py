"""Reduction of buckets' testcases, with the real reducers, interpreters, compilers and C-Vise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse

from engines import sandbox
from engines.differential import compare, findings, harness
from engines.differential import python as python_backends
from engines.differential.backends import available
from engines.pyfunc import engine as pyfunc
from engines.reduce.pyinputs import CallRunner
from triage.ingest import findings_ingest
from triage.models import Bucket, Finding, Origin, Reduction, ReductionState
from triage.reduction import case_for, reduction_request, reduction_run
from triage.reproduction import Case, for_reduction, run_program
from triage.submission import submission_from_engine

TARGETS = str(Path(__file__).resolve().parent.parent / "targets")

# Two differences in one program: cpython-O skips the assert (so it prints
# "checked"), and PyPy names itself. With cpython as the reference, the
# bucket is "cpython-O and pypy3 disagree": a reduction must keep both.
TWO_DIFFERENCES = """\
import sys


def helper(a, b):
    total = 0
    for i in range(a):
        total += i * b
    return total + 1


class Box:
    def __init__(self, value):
        self.value = value

    def doubled(self):
        return self.value * 2


values = [helper(i, i + 1) for i in range(6)]
boxes = [Box(v).doubled() for v in values]
print(sum(values), max(boxes))
try:
    assert len(values) > 10, "too few"
    print("checked")
except AssertionError:
    print("assertion active")
names = {"cpython": 1, "pypy": 2}
print("implementation", names.get(sys.implementation.name, 0))
for v in values:
    if v % 3 == 0:
        print("three", v)
    else:
        print("other", v % 7)
print("done", len(boxes))
"""
# Only the first difference: still a finding, but of another bucket.
ONLY_ASSERT = """\
try:
    assert False
    print("checked")
except AssertionError:
    print("assertion active")
"""


def _program_finding(program: str, backends: list[str], reference: str, language: str = "python", suffix=".py"):
    """Store what a real differential run of ``program`` finds, as a campaign would."""
    table = {b.name: b for b in available(python_backends.backends() if language == "python" else _c_backends())}
    results = harness.process(program, suffix, [table[name] for name in backends], sandbox.Limits())
    verdict = compare.classify(results, reference)
    found = findings.findings(
        target=f"{language} compilers",
        language=language,
        program=program,
        reproducer="",
        verdict=verdict,
        results=results,
        metadata={},
    )
    assert found, [(r.backend, r.outcome, r.stdout) for r in results]
    return findings_ingest(submissions=[submission_from_engine(found[0], f"diff-{language}")]).findings[0]


def _c_backends():
    from engines.differential import c

    return c.backends()


def _call_finding(module: str, function: str, values: list, calls: int = 1) -> Finding:
    """Store a real failing call of ``function``, as the function engine reports it (the first failure of ``calls``)."""
    runner = CallRunner(module, function, [TARGETS])
    try:
        for _ in range(calls):
            outcome = runner.call(values)
            if outcome.status == "exception":
                break
    finally:
        runner.stop()
    assert outcome.status == "exception", outcome
    config = pyfunc.Config(target=module, search_path=[TARGETS])
    finding = pyfunc.call_finding(config, function, runner.source(values), outcome, {}, values=tuple(values))
    return findings_ingest(submissions=[submission_from_engine(finding, "pyfunc")]).findings[0]


def _reduce(bucket: Bucket, **request) -> Reduction:
    reduction = reduction_request(bucket=bucket, source=request.pop("source", Reduction.Source.AUTO), **request)
    reduction_run(reduction_id=reduction.pk)
    reduction.refresh_from_db()
    return reduction


@pytest.fixture
def three_pythons():
    names = {b.name for b in available(python_backends.backends())}
    missing = {"cpython", "cpython-O", "pypy3"} - names
    assert not missing, f"make test installs these: {missing}"


@pytest.fixture
def short_budget(settings):
    settings.FUZZWEB_REDUCTION_SECONDS = 90


@pytest.mark.django_db
def test_python_program_is_reduced_to_both_differences_and_becomes_the_verified_representative(
    three_pythons, short_budget
):
    original = _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython")
    bucket = original.bucket
    reduction = _reduce(bucket)

    assert reduction.state == ReductionState.DONE, reduction.message
    assert reduction.reducer == "fuzzweb-pyreduce"
    assert reduction.original_runs == 3 and reduction.original_passes == 3
    assert reduction.verify_runs == 5 and reduction.verify_passes == 5
    assert reduction.reduced_size * 4 < reduction.original_size, reduction.reduced_text
    # Both differences are the bucket: neither may be reduced away.
    assert "assert" in reduction.reduced_text and "implementation" in reduction.reduced_text
    result = reduction.result
    assert result.origin == Origin.REDUCED and result.verified_at is not None
    assert result.bucket_id == bucket.pk and result.signature == bucket.signature
    assert result.hit_count == 0  # no fuzzer hit it
    bucket.refresh_from_db()
    assert bucket.representative_id == result.pk and bucket.representative_verified
    assert bucket.hit_count == 1
    original.refresh_from_db()
    assert original.verified_at is not None


@pytest.mark.django_db
def test_a_candidate_of_another_bucket_is_not_interesting_and_an_upload_of_it_is_refused(three_pythons):
    original = _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython")
    case = case_for(original, original.bucket)
    assert run_program(case, TWO_DIFFERENCES).reproduces(case)
    other = run_program(case, ONLY_ASSERT)
    # Still a disagreement, so still a finding; but cpython-O alone is another bucket.
    assert other.signatures and not other.reproduces(case)

    refused = _reduce(original.bucket, source=Reduction.Source.UPLOAD, text=ONLY_ASSERT)
    assert refused.state == ReductionState.REFUSED
    assert "refused: it lands in another bucket (a new one, not seen before)" in refused.message
    # Once that bucket exists, the message names it.
    other_bucket = _program_finding(ONLY_ASSERT, ["cpython", "cpython-O", "pypy3"], "cpython").bucket
    named = _reduce(original.bucket, source=Reduction.Source.UPLOAD, text=ONLY_ASSERT)
    assert f"lands in another bucket (#{other_bucket.pk} " in named.message
    original.bucket.refresh_from_db()
    assert original.bucket.representative_id == original.pk  # nothing replaced


@pytest.mark.django_db
def test_a_reductions_candidates_run_no_longer_than_a_few_times_the_original(three_pythons):
    original = _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython")
    case = case_for(original, original.bucket)
    assert case.run_timeout is None  # verification and uploads keep the backends' own limit
    bounded = for_reduction(case, TWO_DIFFERENCES)
    assert harness.CANDIDATE_MIN_TIMEOUT <= bounded.run_timeout < 10.0  # the backends' run_timeout
    assert run_program(bounded, TWO_DIFFERENCES).reproduces(bounded)
    # A candidate that runs 3 s (under the backends' own 10 s it would finish) is cut off at the bound.
    slow = run_program(bounded, "import time\ntime.sleep(3)\nprint('late')\n")
    assert not slow.reproduces(bounded) and "cpython timeout" in slow.summary
    assert "cpython timeout" not in run_program(case, "import time\ntime.sleep(3)\nprint('late')\n").summary
    # The bound travels with the case to the external reducers' check.
    assert Case.from_json(bounded.to_json()).run_timeout == bounded.run_timeout


@pytest.mark.django_db
def test_an_upload_that_does_not_reproduce_is_refused_with_what_it_did(three_pythons, logged_in):
    original = _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython")
    bucket = original.bucket
    url = reverse("triage:bucket_upload", args=[bucket.pk])
    response = logged_in.post(url, {"text": 'print("same everywhere")\n'})
    assert response.status_code == 302
    upload = bucket.reductions.get(source=Reduction.Source.UPLOAD)
    assert upload.state == ReductionState.QUEUED and upload.user.username == "maintainer"
    reduction_run(reduction_id=upload.pk)
    upload.refresh_from_db()
    assert upload.state == ReductionState.REFUSED
    assert upload.message.startswith("refused: it does not reproduce: no finding (cpython ok, cpython-O ok, pypy3 ok)")
    page = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "Refused" in page and "refused: it does not reproduce" in page
    bucket.refresh_from_db()
    assert bucket.representative_id == original.pk

    # A good upload replaces the representative once verified.
    smaller = "import sys\ntry:\n    assert 0\n    print(1)\nexcept AssertionError:\n    print(2)\n"
    smaller += "print(sys.implementation.name)\n"
    logged_in.post(url, {"text": smaller})
    accepted = bucket.reductions.filter(source=Reduction.Source.UPLOAD).first()
    reduction_run(reduction_id=accepted.pk)
    accepted.refresh_from_db()
    assert accepted.state == ReductionState.DONE, accepted.message
    bucket.refresh_from_db()
    assert bucket.representative.testcase.strip() == smaller.strip()
    assert bucket.representative.origin == Origin.UPLOADED
    page = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert 'id="reduction-reduced"' in page and "5 of 5 runs" in page

    # A later upload that reproduces but is larger is verified, and the smaller one stays on show.
    logged_in.post(url, {"text": smaller + "print('padding')  # " + "x" * 200 + "\n"})
    larger = bucket.reductions.filter(source=Reduction.Source.UPLOAD).first()
    reduction_run(reduction_id=larger.pk)
    larger.refresh_from_db()
    assert larger.state == ReductionState.DONE and "is smaller and stays" in larger.message
    bucket.refresh_from_db()
    assert bucket.representative.testcase.strip() == smaller.strip()
    page = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert "padding" not in page.split('id="reduction-reduced"')[1].split("</pre>")[0]


@pytest.mark.django_db
def test_bad_uploads_get_a_clear_error(three_pythons, logged_in):
    bucket = _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython").bucket
    url = reverse("triage:bucket_upload", args=[bucket.pk])
    empty = logged_in.post(url, {"text": "   "})
    assert empty.status_code == 400 and "Paste the smaller version or choose a file." in empty.content.decode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    binary = logged_in.post(url, {"file": SimpleUploadedFile("x.py", b"\xff\xfe\x00bad")})
    assert binary.status_code == 400 and "not UTF-8 text" in binary.content.decode()
    assert not bucket.reductions.filter(source=Reduction.Source.UPLOAD).exists()


@pytest.mark.django_db
def test_a_failing_call_is_shrunk_by_the_engines_typed_shrinking(short_budget):
    original = _call_finding("engines.demo.textkit", "parse_duration", ["12xq 99s 7x 5h 3d"])
    reduction = _reduce(original.bucket)
    assert reduction.state == ReductionState.DONE, reduction.message
    assert reduction.reducer == "fuzzweb-pyinputs"
    assert reduction.original_text == "parse_duration('12xq 99s 7x 5h 3d')"
    assert reduction.reduced_size < 22, reduction.reduced_text
    assert reduction.reduced_text.startswith("parse_duration('")
    result = reduction.result
    assert result.signature == original.signature and result.metadata["values"] != original.metadata["values"]
    assert 'python3 -c "from engines.demo.textkit import parse_duration; parse_duration(' in result.reproducer


@pytest.mark.django_db
def test_a_flaky_testcase_is_flagged_and_not_reduced(logged_in):
    original = _call_finding("flaky", "lookup", [{"alpha": 1, "beta": 2}, "missing key"], calls=30)
    # The target fails on a coin toss; each try verifies the original 3 times, and
    # 3 equal tosses (1 in 4) make it look steady, so the reduction goes on (and
    # may be found flaky later, on its result): 12 tries leave that at 1 in 16
    # million.
    for _ in range(12):
        reduction = _reduce(original.bucket)
        if reduction.state == ReductionState.FLAKY and 0 < reduction.original_passes < reduction.original_runs:
            break
    assert reduction.state == ReductionState.FLAKY
    passes = reduction.original_passes
    assert reduction.original_runs == 3 and 0 < passes < 3
    assert reduction.message.startswith(
        f"the original reproduced in only {passes} of 3 runs (otherwise: returned normally)"
    )
    assert not reduction.reduced_text and reduction.result is None
    original.refresh_from_db()
    assert original.verified_at is None
    assert not Bucket.objects.get(pk=original.bucket_id).representative_verified
    page = logged_in.get(reverse("triage:bucket", args=[original.bucket_id])).content.decode()
    assert 'id="reduction-latest-state">Flaky<' in page and f"only {passes} of 3 runs" in page
    # An upload calling some other function is refused, saying which.
    logged_in.post(reverse("triage:bucket_upload", args=[original.bucket_id]), {"text": "other({}, 'x')"})
    upload = Reduction.objects.get(bucket_id=original.bucket_id, source=Reduction.Source.UPLOAD)
    reduction_run(reduction_id=upload.pk)
    upload.refresh_from_db()
    assert upload.state == ReductionState.REFUSED and "it calls other, but this bucket's function is" in upload.message


@pytest.mark.django_db
def test_findings_nothing_here_can_rerun_are_explained_not_reduced():
    from triage.submission import Submission

    stored = findings_ingest(
        submissions=[Submission(kind="crash", target="libpng", engine="afl++", crash_type="SIGSEGV", testcase="x")]
    ).findings[0]
    reduction = _reduce(stored.bucket)
    assert reduction.state == ReductionState.UNSUPPORTED
    assert "findings of afl++ fuzzers carry no recipe to re-run them here" in reduction.message


# tcc takes the other branch: a real, deterministic disagreement between real compilers.
TCC_DIFFERS = r"""#include <stdio.h>

static int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

static int mix(int a, int b) {
    return (a * 31) ^ (b + 7);
}

static int sum(void) {
    int s = 0, i;
    for (i = 0; i < 8; i++)
        s += mix(table[i], i);
    return s;
}

static int bias(void) {
#ifdef __TINYC__
    return 1;
#else
    return 0;
#endif
}

int main(void) {
    int i;
    printf("sum %d\n", sum());
    for (i = 0; i < 4; i++)
        printf("row %d %d\n", i, mix(i, table[i]));
    printf("bias %d\n", bias());
    return 0;
}
"""


@pytest.mark.django_db
def test_a_c_miscompilation_is_reduced_by_cvise_through_the_buckets_own_check(settings):
    # C-Vise needs about 2,000 tests (over five minutes here) to reach its fixpoint
    # on this program; how far half a minute gets depends on the machine's load,
    # so the test asks for progress, not for a size (bench/reduce.py measures that).
    settings.FUZZWEB_REDUCTION_SECONDS = 30
    original = _program_finding(TCC_DIFFERS, ["gcc-O0", "gcc-O2", "tcc"], None, language="c", suffix=".c")
    assert original.kind == "miscompilation" and original.function == "tcc"
    reduction = _reduce(original.bucket)
    assert reduction.state == ReductionState.DONE, reduction.message
    assert reduction.reducer == "cvise"
    assert reduction.tests > 0 and reduction.verify_passes == reduction.verify_runs == 5
    assert reduction.reduced_size < reduction.original_size, reduction.reduced_text
    assert "__TINYC__" in reduction.reduced_text
    assert reduction.result.signature == original.bucket.signature


@pytest.mark.django_db(transaction=True)
def test_a_bucket_made_through_the_api_is_reduced_by_a_real_worker(
    three_pythons, client, admin_user, settings, monkeypatch
):
    import django_rq

    from fuzzweb.models import ApiToken
    from fuzzweb.tokens import api_token_create
    from tests.conftest import run_worker_burst

    django_rq.get_queue("reduce").empty()  # what earlier tests queued and nobody ran
    # An admin gave this cluster's token the replay right: its findings may be re-run here.
    row, token = api_token_create(user=admin_user, name="cluster")
    ApiToken.objects.filter(pk=row.pk).update(replay=True)
    body = {
        "kind": "miscompilation",
        "target": "python compilers",
        "engine": "pygen-cluster",
        "testcase": TWO_DIFFERENCES,
        "testcase_language": "python",
        "reference": "cpython",
        "backends": [
            {"name": "cpython", "outcome": "ok"},
            {"name": "cpython-O", "outcome": "wrong_output"},
            {"name": "pypy3", "outcome": "wrong_output"},
        ],
    }
    response = client.post(
        "/api/v1/findings", data=json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert response.status_code == 201, response.content
    bucket = Bucket.objects.get()
    queued = bucket.reductions.get()
    assert queued.source == Reduction.Source.AUTO and queued.state == ReductionState.QUEUED

    # This test is the reduction's: the finding's culprit search would move it, with its reduced
    # version, to its shape's bucket (tests/integration/test_culprit_buckets.py follows that path).
    culprit_jobs = [job for job in django_rq.get_queue("reduce").jobs if job.func_name.endswith("finding_culprit_job")]
    assert len(culprit_jobs) == 1  # queued for the new wrong-code finding
    for job in culprit_jobs:
        job.cancel()
    # The worker takes its budget from its own environment: 10 s, well short of the default 300 s.
    monkeypatch.setenv("FUZZWEB_REDUCTION_SECONDS", "10")
    result = run_worker_burst(timeout=600, queues=["reduce"])
    assert result.returncode == 0, result.stderr[-3000:]
    queued.refresh_from_db()
    assert queued.state == ReductionState.DONE, queued.message
    # Smaller and verified; how much smaller in 10 s depends on the machine's load (bench/reduce.py measures that).
    assert queued.reduced_size < queued.original_size
    bucket.refresh_from_db()
    assert bucket.representative_id == queued.result_id and bucket.representative_verified
    hits = bucket.hit_count
    # Another hit with a bigger testcase does not displace the verified representative.
    response = client.post(
        "/api/v1/findings",
        data=json.dumps({**body, "testcase": TWO_DIFFERENCES + "print('more')\n" * 3}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    smaller_unverified = {**body, "testcase": "print(1)\n"}
    client.post(
        "/api/v1/findings",
        data=json.dumps(smaller_unverified),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    bucket.refresh_from_db()
    assert bucket.hit_count == hits + 2 and bucket.representative_id == queued.result_id


@pytest.mark.django_db
def test_a_reduction_its_budget_stopped_keeps_going_from_its_smallest_version(three_pythons, settings):
    # A budget of tests, not seconds: a busy machine's round is then an idle one's (4 s, under load, had
    # accepted too little to earn a round).
    settings.FUZZWEB_REDUCTION_SECONDS = 600
    settings.FUZZWEB_REDUCTION_TESTS = 20  # of the 80 that take 702 characters to 97
    settings.FUZZWEB_REDUCTION_ROUNDS = 2
    original = _program_finding(TWO_DIFFERENCES, ["cpython", "cpython-O", "pypy3"], "cpython")
    bucket = original.bucket
    first = _reduce(bucket)
    assert first.state == ReductionState.DONE and first.reduced_size < len(TWO_DIFFERENCES), first.message
    assert first.tests == 20

    # Stopped by its tests, still shrinking: another round from what it accepted, behind the queue.
    more = bucket.reductions.get(source=Reduction.Source.MORE)
    assert more.state == ReductionState.QUEUED and more.finding_id == first.result_id
    assert more.original_text == TWO_DIFFERENCES  # the page still compares with the fuzzer's program
    reduction_run(reduction_id=more.pk)
    more.refresh_from_db()
    assert more.state == ReductionState.DONE, more.message
    bucket.refresh_from_db()
    smallest = bucket.findings.filter(verified_at__isnull=False).order_by("testcase_size").first()
    assert bucket.representative_id == smallest.pk and smallest.testcase_size <= first.reduced_size
    # Two rounds kept going at most, and never from a version that is not the representative.
    assert bucket.reductions.filter(source=Reduction.Source.MORE).count() <= 2


def test_only_a_round_its_budget_stopped_while_shrinking_earns_another():
    from triage.reduction import keep_going

    assert keep_going(1000, 600, elapsed=299, budget=300)
    assert keep_going(1000, 600, elapsed=40, budget=300, tests=20, max_tests=20)  # its tests spent
    assert not keep_going(1000, 600, elapsed=40, budget=300, tests=19, max_tests=20)
    assert not keep_going(1000, 600, elapsed=40, budget=300)  # the reducer ran out of candidates
    assert not keep_going(1000, 990, elapsed=300, budget=300)  # creeping: 1% is not worth a round
