"""Fuzzing from CI: a target file imported, campaign_run on real workers, its exit status and bucket list."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from campaigns.models import Campaign, Target
from tests.conftest import BASE_DIR, _worker_env
from triage.models import Bucket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

PLANTED = BASE_DIR / "tests" / "data" / "planted"
TARGETS = f"""
# A command generator and two user backends: gcc, and a gcc with a planted miscompilation.
[[target]]
name = "planted shift"
description = "gcc against a wrapper that compiles << 3 as << 2"
language = "c"
reference = "gcc-O1"
generator = {{ kind = "command", command = "python3 {PLANTED}/gen_c.py {{seed}} {{out}}" }}

[[target.backends]]
name = "gcc-O1"
compile = "gcc -O1 -w -o {{binary}} {{source}}"
run = "{{binary}}"
version = "gcc --version"

[[target.backends]]
name = "buggy-O1"
compile = "python3 {PLANTED}/buggy_cc.py -O1 -w -o {{binary}} {{source}}"
run = "{{binary}}"

# The same generator on two levels of a compiler that agree on these programs.
[[target]]
name = "fixed pair"
language = "c"
generator = {{ kind = "command", command = "python3 {PLANTED}/gen_c.py {{seed}} {{out}}" }}
backends = [
  {{ name = "gcc-O0", compile = "gcc -O0 -w -o {{binary}} {{source}}", run = "{{binary}}" }},
  {{ name = "gcc-O2", compile = "gcc -O2 -w -o {{binary}} {{source}}", run = "{{binary}}" }},
]
"""


def campaign_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), "campaign_run", *args, "--poll", "0.5"],
        env=_worker_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_planted_bug_fails_the_run_and_a_fixed_pair_passes(tmp_path: Path, rq_workers):
    path = tmp_path / "targets.toml"
    path.write_text(TARGETS)
    call_command("target_import", str(path))
    planted = Target.objects.get(name="planted shift")
    assert planted.engine == "differential"
    assert [b["name"] for b in planted.differential["backends"]] == ["gcc-O1", "buggy-O1"]
    rq_workers(1, queues=["engine-differential"])

    found = campaign_run("--target", "planted shift", "--seconds", "8", "--seed", "3", "--url", "http://ci.test")
    assert found.returncode == 1, found.stdout + found.stderr
    campaign = Campaign.objects.get(target=planted)
    bucket = Bucket.objects.filter(findings__campaign=campaign).distinct().get()
    assert bucket.kind == "miscompilation"
    # The bucket list, marked new, with a link to each bucket.
    assert f"NEW #{bucket.pk} [miscompilation]" in found.stdout
    assert f"http://ci.test/triage/buckets/{bucket.pk}/" in found.stdout
    assert f"campaign #{campaign.pk} on planted shift: http://ci.test/campaigns/{campaign.pk}/" in found.stdout
    assert "1 new" in found.stdout.splitlines()[-1]

    again = campaign_run("--target", "planted shift", "--seconds", "4", "--seed", "4")
    assert again.returncode == 0, again.stdout + again.stderr  # the bucket exists: nothing new

    fixed = campaign_run("--target", "fixed pair", "--seconds", "4")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert fixed.stdout.splitlines()[-1].startswith("finished: 0 findings in 0 buckets")


def test_an_unknown_target_and_a_wrong_file_say_why(tmp_path: Path):
    with pytest.raises(CommandError, match="no target 'nope'"):
        call_command("campaign_run", "--target", "nope", "--seconds", "5")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"name": "w", "generator": {"kind": "command", "command": "gen"}, "backends": [{"name": "a"}]}')
    with pytest.raises(CommandError) as raised:
        call_command("target_import", str(wrong))
    message = str(raised.value)
    assert "generator.command: it must use {seed}" in message
    assert "language:" in message and "backend a: run: a command is needed" in message
    assert "differential testing needs at least two" in message
    assert not Target.objects.filter(name="w").exists()
