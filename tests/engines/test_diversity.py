"""Diversity mode: each program run is the candidate least like the programs run before it."""

from __future__ import annotations

import math
import random

import pytest

from engines.differential import diversity, engine, kotlingen, pygen


def _mean_nearest_distance(programs) -> float:
    points = [diversity.profile(p.counts) for p in programs]
    return sum(min(math.dist(a, b) for j, b in enumerate(points) if j != i) for i, a in enumerate(points)) / len(points)


@pytest.mark.parametrize("generator", [pygen, kotlingen], ids=["python", "kotlin"])
def test_diversity_mode_spreads_the_programs_over_their_mix_of_constructs(generator):
    rng = random.Random(4)
    plain = [generator.generate(rng) for _ in range(40)]
    picker = diversity.Picker()
    diverse = []
    for _ in range(40):
        candidates = [generator.generate(rng) for _ in range(diversity.CANDIDATES)]
        novelty = [picker.novelty(c.counts) for c in candidates]
        chosen = picker.pick(candidates)
        assert novelty[candidates.index(chosen)] == max(novelty)  # the farthest candidate is the one run
        diverse.append(chosen)
    spread, baseline = _mean_nearest_distance(diverse), _mean_nearest_distance(plain)
    assert spread > 1.3 * baseline, (spread, baseline)


def test_profiles_are_shares_plus_size():
    small = diversity.profile({"if": 1, "for": 1})
    large = diversity.profile({"if": 10, "for": 10})
    assert small[:2] == large[:2] == (0.5, 0.5)  # the same mix...
    assert large[2] > small[2]  # ...at another size
    assert diversity.Picker().novelty({"if": 1}) == math.inf


class _Sink:
    def __init__(self):
        self.programs = []

    def finding(self, finding):
        pass

    def stats(self, stats):
        pass

    def should_stop(self):
        return False

    def checkpoint(self, state):
        pass

    def program(self, record):
        self.programs.append(record)


def test_a_python_campaign_in_diversity_mode_runs_and_c_refuses_it():
    sink = _Sink()
    config = engine.Config(
        language="python", backends=["cpython", "pypy3"], seconds=120, max_programs=3, diversity=True
    )
    summary = engine.run(config, sink)
    assert summary.programs == 3
    assert [r.number for r in sink.programs] == [1, 2, 3]
    assert all(r.outcomes == {"cpython": "ok", "pypy3": "ok"} for r in sink.programs)
    with pytest.raises(engine.SetupError, match="diversity mode needs a generator that counts its constructs"):
        engine.run(engine.Config(language="c", backends=["gcc-O0", "gcc-O2"], diversity=True), _Sink())
