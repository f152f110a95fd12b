"""Differential campaigns: generated programs through real compilers, on a real worker, into triage."""

from __future__ import annotations

import dataclasses

import django_rq
import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.launch import campaign_launch
from campaigns.models import Campaign, CampaignStatus, ProgramRun, Shard, Target
from campaigns.sink import ShardSink
from engines import sandbox
from engines.differential import compare, findings, harness
from engines.differential.backends import Backend
from tests.conftest import run_worker_burst
from triage.models import Bucket, Finding

pytestmark = pytest.mark.django_db(transaction=True)

XSS = "<script>alert(1)</script>"
PROGRAM = f'#include <stdio.h>\n/* {XSS} */\nint main(void) {{ printf("checksum = 1234\\nbye\\n"); return 0; }}\n'


def c_target() -> Target:
    return Target.objects.get_or_create(name="C compilers (Csmith)", defaults={"engine": "diff-c"})[0]


def run_to_the_end(**launch) -> Campaign:
    """Launch a campaign and let a worker run it until its queue is empty; the campaign as it ended."""
    with transaction.atomic():
        campaign = campaign_launch(**launch)
    result = run_worker_burst()
    assert result.returncode == 0, result.stderr[-3000:]
    campaign.refresh_from_db()
    return campaign


@pytest.mark.worker
def test_a_c_campaign_runs_on_a_worker_and_counts_its_programs():
    campaign = run_to_the_end(
        target=c_target(),
        time_budget_seconds=120,
        max_executions=3,
        seed=9,
        options={"backends": ["gcc-O0", "clang-O2", "tcc"], "reference": ""},
    )
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    assert campaign.executions == 3  # programs, each through the three compilers
    shard = campaign.shards.get()
    assert shard.checkpoint["programs"] == 3


@pytest.mark.worker
def test_a_campaign_with_a_missing_backend_fails_with_the_reason():
    with transaction.atomic():
        campaign = campaign_launch(
            target=c_target(), time_budget_seconds=30, options={"backends": ["gcc-O0", "gcc-O9"], "reference": ""}
        )
    run_worker_burst()
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.FAILED
    assert "not installed on this worker: gcc-O9" in campaign.error


def miscompile_into(campaign: Campaign) -> None:
    """A real harness run with a backend that corrupts the output, stored through a shard's sink."""
    corrupt = Backend(
        name="gcc-corrupt",
        compile=("gcc", "-O0", "-o", "{binary}", "{source}"),
        run=("sh", "-c", "{binary} | sed 's/1234/1235/'"),
    )
    plain = [
        Backend(name=n, compile=("gcc", n[-3:], "-o", "{binary}", "{source}"), run=("{binary}",))
        for n in ("gcc-O0", "gcc-O2")
    ]
    results = harness.process(PROGRAM, ".c", [*plain, corrupt], sandbox.Limits())
    verdict = compare.classify(results)
    shard, _ = Shard.objects.get_or_create(campaign=campaign, index=0, defaults={"seed": 1})
    sink = ShardSink(shard)
    for finding in findings.findings(
        target="c compilers",
        language="c",
        program=PROGRAM,
        reproducer="csmith --seed 77 --no-pointers",
        verdict=verdict,
        results=results,
        metadata={"seed": 77, "options": ["--no-pointers"], "generator": "csmith --seed 77 --no-pointers"},
    ):
        sink.finding(finding)
    sink.drain()


def test_a_miscompilation_is_bucketed_and_shown_with_its_grid_and_diverging_line(logged_in):
    campaign = Campaign.objects.create(target=c_target(), engine="diff-c", time_budget_seconds=10)
    miscompile_into(campaign)
    miscompile_into(campaign)  # the same bug again: the same bucket
    bucket = Bucket.objects.get()
    assert bucket.kind == "miscompilation" and bucket.method == "differential"
    assert bucket.key_frames == ["gcc-corrupt=wrong_output"]
    finding = Finding.objects.get()
    assert finding.testcase_language == "c" and finding.reference == "gcc-O0"
    assert finding.metadata["seed"] == 77

    page = logged_in.get(reverse("triage:bucket", args=[bucket.pk])).content.decode()
    assert 'id="outcome-grid"' in page
    assert page.count('<span class="outcome">ok</span>') == 2
    assert '<span class="outcome">wrong_output</span>' in page
    assert '<li value="1" class="diverges"><code>checksum = 1235</code></li>' in page
    assert '<li value="2"><code>bye</code></li>' in page
    assert "csmith --seed 77 --no-pointers" in page
    assert XSS not in page and "&lt;script&gt;" in page  # the program, highlighted as C and escaped


def test_the_launch_form_offers_installed_backends_and_stores_the_choice(logged_in):
    target = c_target()
    form = logged_in.get(reverse("campaigns:new")).content.decode()
    for name in ("gcc-O0", "gcc-O3", "clang-Os", "tcc"):
        assert f'value="{name}"' in form
    refused = logged_in.post(
        reverse("campaigns:new"),
        {"target": target.pk, "time_budget_seconds": 60, "shard_count": 1, "backends": ["gcc-O0"]},
    )
    assert refused.status_code == 200 and b"at least two backends" in refused.content
    logged_in.post(
        reverse("campaigns:new"),
        {
            "target": target.pk,
            "time_budget_seconds": 60,
            "shard_count": 1,
            "backends": ["gcc-O0", "tcc"],
            "reference": "tcc",
        },
    )
    campaign = Campaign.objects.get()
    assert campaign.engine == "diff-c"
    assert campaign.options == {"backends": ["gcc-O0", "tcc"], "reference": "tcc"}
    django_rq.get_queue("engine-diff-c").empty()


@pytest.mark.worker
def test_a_python_campaign_runs_generated_programs_on_cpython_and_pypy():
    target = Target.objects.get_or_create(
        name="Python implementations (generated programs)", defaults={"engine": "diff-python"}
    )[0]
    campaign = run_to_the_end(
        target=target,
        time_budget_seconds=120,
        max_executions=4,
        seed=3,
        options={"backends": ["cpython", "cpython-O", "pypy3"], "reference": "cpython"},
    )
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    assert campaign.executions == 4
    # Generated programs agree across the three: nothing to report.
    assert campaign.findings_count == 0


@pytest.mark.worker
def test_a_kotlin_campaign_stores_the_k1_k2_outcome_pair_of_every_file(logged_in):
    target = Target.objects.get_or_create(name="Kotlin compiler (K1 against K2)", defaults={"engine": "diff-kotlin"})[0]
    campaign = run_to_the_end(target=target, time_budget_seconds=600, max_executions=2, seed=4)
    assert campaign.status == CampaignStatus.FINISHED, campaign.error
    runs = list(ProgramRun.objects.filter(campaign=campaign).order_by("number"))
    assert [run.number for run in runs] == [1, 2]
    for run in runs:
        assert set(run.outcomes) == {"kotlin-k1", "kotlin-k2"}
        assert set(run.outcomes.values()) <= {"ok", "rejected", "compiler_crash", "wrong_output", "timeout", "oom"}
        assert run.generator.startswith(f"kotlingen --seed {run.seed} ")
        assert run.seconds["kotlin-k1"] > 1.0  # kotlinc and the run; the run alone is a fraction of that
    page = logged_in.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert "Program outcomes <small>2 programs</small>" in page
    assert '<th>kotlin-k1</th><th>kotlin-k2</th><th class="num">Programs</th>' in page


def test_the_launch_form_refuses_backends_of_another_language(logged_in):
    target = Target.objects.get_or_create(name="Kotlin compiler (K1 against K2)", defaults={"engine": "diff-kotlin"})[0]
    form = logged_in.get(reverse("campaigns:new")).content.decode()
    assert 'data-language="kotlin"' in form and 'value="kotlin-k1"' in form
    refused = logged_in.post(
        reverse("campaigns:new"),
        {"target": target.pk, "time_budget_seconds": 60, "shard_count": 1, "backends": ["kotlin-k1", "gcc-O0"]},
    )
    assert refused.status_code == 200
    assert b"Not backends of kotlin: gcc-O0." in refused.content
    assert not Campaign.objects.exists()


def test_diversity_mode_is_stored_for_python_and_refused_for_csmith(logged_in):
    python = Target.objects.get_or_create(
        name="Python implementations (generated programs)", defaults={"engine": "diff-python"}
    )[0]
    form = logged_in.get(reverse("campaigns:new")).content.decode()
    assert f'value="{python.pk}" data-language="python" data-diversity="1"' in form
    refused = logged_in.post(
        reverse("campaigns:new"),
        {"target": c_target().pk, "time_budget_seconds": 60, "shard_count": 1, "diversity": "on"},
    )
    assert b"The c generator does not count its constructs" in refused.content
    logged_in.post(
        reverse("campaigns:new"),
        {"target": python.pk, "time_budget_seconds": 60, "shard_count": 1, "diversity": "on"},
    )
    campaign = Campaign.objects.get()
    assert campaign.options["diversity"] is True
    django_rq.get_queue("engine-diff-python").empty()


def test_a_kotlin_compiler_crash_is_bucketed_by_its_jvm_stack_trace():
    from tests.engines.test_kotlin import ICE

    target = Target.objects.get_or_create(name="Kotlin compiler (K1 against K2)", defaults={"engine": "diff-kotlin"})[0]
    campaign = Campaign.objects.create(target=target, engine="diff-kotlin", time_budget_seconds=10)
    trace = ICE.replace("\\n", "\n").replace("\\t", "\t")
    crashing = Backend(name="kotlin-k1", compile=("sh", "-c", f"printf '%s\\n' '{trace}' >&2; exit 2"), run=("true",))
    crashing = dataclasses.replace(crashing, crash_exit_codes=(2,))
    accepting = Backend(name="kotlin-k2", compile=("true",), run=("echo", "f1: 3"))
    results = harness.process("fun main() {}\n", ".kt", [crashing, accepting], sandbox.Limits())
    verdict = compare.classify(results)
    shard = Shard.objects.create(campaign=campaign, index=0, seed=1)
    sink = ShardSink(shard)
    for finding in findings.findings(
        target="kotlin compilers",
        language="kotlin",
        program="fun main() {}\n",
        reproducer="kotlingen --seed 1",
        verdict=verdict,
        results=results,
        metadata={},
    ):
        sink.finding(finding)
    sink.drain()
    bucket = Bucket.objects.get()
    assert bucket.method == "stack"
    assert bucket.crash_type == "java.lang.IllegalStateException"
    assert bucket.key_frames[0] == "org.jetbrains.kotlin.fir.resolve.Planted.resolve"
