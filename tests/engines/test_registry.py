"""The engine registry: a new engine is its module plus one entry, and everything else follows."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engines import registry
from tests.conftest import BASE_DIR, _worker_env, start_process, stop_process

PLUGIN = {"FUZZWEB_ENGINE_PLUGINS": "tests.toy_engine:ENGINE"}


def test_every_built_in_engine_has_a_runner_and_its_own_queue():
    engines = registry.engines()
    assert {"pyfunc", "diff-c", "diff-python", "diff-kotlin", "differential"} <= set(engines)
    assert len({e.queue for e in engines.values()}) == len(engines)
    for engine in engines.values():
        assert callable(engine.runner())
        assert all(issubclass(error, Exception) for error in engine.setup_error_types())


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_a_toy_engine_runs_from_its_module_and_one_registry_entry():
    env = {**_worker_env(), **PLUGIN}
    queues = subprocess.run(
        [sys.executable, "-m", "engines.registry", "queues"], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert queues[-1] == "engine-toy"  # what make worker and make run serve
    worker = start_process("rqworker", "engine-toy", env=PLUGIN)
    try:
        # campaign_run ensures the engine's default target, launches on its queue, and the worker runs it.
        ran = subprocess.run(
            [sys.executable, str(BASE_DIR / "manage.py"), "campaign_run", "--target", "toy target", "--seconds", "3",
             "--poll", "0.3"],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        stop_process(worker)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "NEW" in ran.stdout and "ZeroDivisionError" in ran.stdout
    from campaigns.models import Campaign, Target

    assert Target.objects.get(name="toy target").engine == "toy"
    assert Campaign.objects.get(target__name="toy target").status == "finished"
