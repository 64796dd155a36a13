"""tools/fuzz/opencl_mutator: mutants of real kernels, the same per seed, and 2,000 of them
give oclpy's compiler a module or a clean diagnostic: 0 internal errors (issue 13)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzz.opencl_mutator import (Mutator, build_one, fuzz, in_tree_seeds, tokenize,  # noqa: E402
                                       untokenize)


@pytest.fixture(scope="module")
def seeds():
    return in_tree_seeds()


def test_tokens_give_back_a_source_that_builds_alike(seeds):
    assert len(seeds) >= 10
    for seed in seeds:
        again = untokenize(tokenize(seed.text))
        assert build_one(again)[0] == build_one(seed.text)[0], seed.name


def test_preprocessing_lines_stay_whole_lines():
    text = "#define N 4\n  #if N > 2\n__kernel void k(__global int *a) { a[0] = N; }\n#endif\n"
    tokens = tokenize(text)
    assert [t.text for t in tokens if t.kind == "pp"] == ["#define N 4", "  #if N > 2", "#endif"]
    assert build_one(untokenize(tokens))[0] == "ok"


def test_mutants_are_deterministic_per_seed(seeds):
    def mutants(seed):
        rng = random.Random(seed)
        mutator = Mutator(rng, [s.text for s in seeds])
        return [mutator.mutate(seeds[k % len(seeds)].text, 2) for k in range(40)]

    first = mutants(5)
    assert first == mutants(5) and first != mutants(6)
    assert sum(m != seeds[k % len(seeds)].text for k, m in enumerate(first)) > 30


@pytest.mark.parametrize("name", ["delete_group", "duplicate_statement", "swap_statements", "transplant",
                                  "array_size", "deep_parens", "literal"])
def test_each_mutation_changes_a_kernel(seeds, name):
    rng = random.Random(1)
    mutator = Mutator(rng, [s.text for s in seeds])
    text = "__kernel void k(__global int *a) { int b[4]; a[0] = 1; a[1] = (2 + 3); b[0] = a[2]; }"
    tokens = tokenize(text)
    getattr(mutator, name)(tokens)
    assert untokenize(tokens) != untokenize(tokenize(text))


def test_2000_mutants_through_the_frontend(seeds):
    report = fuzz(seeds, 2000, seed=21)
    assert report.cases == 2000
    assert report.outcomes["internal"] == 0, list(report.internal)
    assert report.outcomes["ok"] > 100 and report.outcomes["diagnostic"] > 1000


def test_mutants_through_the_whole_compiler(seeds, monkeypatch):
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    report = fuzz(seeds, 150, seed=22, backend=True)
    assert report.outcomes["internal"] == 0, list(report.internal)
