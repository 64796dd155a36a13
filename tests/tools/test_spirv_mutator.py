"""tools/fuzz/spirv_mutator: the mutants are well-formed word streams, the same per seed,
and thousands of them give oclpy's SPIR-V frontend (and, for some, the cpu code
generator) a module or a clean diagnostic: 0 internal errors."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzz.spirv_mutator import Mutator, default_seeds, fuzz, join, split  # noqa: E402


@pytest.fixture(scope="module")
def seeds():
    return default_seeds()


def test_split_and_join_round_trip(seeds):
    for data in seeds:
        assert join(*split(data)) == data


def test_mutants_are_deterministic_per_seed_and_keep_word_counts(seeds):
    def mutants(seed):
        rng = random.Random(seed)
        mutator = Mutator(rng, [split(s)[1] for s in seeds])
        return [mutator.mutate(seeds[k % len(seeds)], 3) for k in range(50)]

    first = mutants(7)
    assert first == mutants(7) and first != mutants(8)
    for data in first:
        assert join(*split(data)) == data  # every instruction's word count is right


def test_2000_mutants_through_the_frontend(seeds):
    report = fuzz(seeds, 2000, seed=13)
    assert report.cases == 2000
    assert report.outcomes["internal"] == 0, list(report.internal)
    assert report.outcomes["ok"] > 100 and report.outcomes["diagnostic"] > 1000


def test_mutants_through_the_cpu_code_generator(seeds, monkeypatch):
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    report = fuzz(seeds, 200, seed=14, backend=True)
    assert report.outcomes["internal"] == 0, list(report.internal)
