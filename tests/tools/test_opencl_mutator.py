"""tools/fuzz/opencl_mutator: mutants of real kernels, the same per seed, and 2,000 of them
through the frontend and 400 through the whole compiler give a module or a clean
diagnostic: 0 internal errors (issue 13). The seeds are the test tree's kernels (the
corpus is not fetched under CI); tools/fuzz/opencl_seeds: which seeds, what each costs."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzz.opencl_build import build_one  # noqa: E402
from tools.fuzz.opencl_mutator import Mutator, fuzz, main, tokenize, untokenize  # noqa: E402
from tools.fuzz.opencl_seeds import Seed, corpus_seeds, fast_seeds, in_tree_seeds, load_costs, tree_seeds  # noqa: E402


@pytest.fixture(scope="module")
def seeds():
    return tree_seeds()


def test_the_test_trees_kernels_are_seeds(seeds):
    files = in_tree_seeds()
    assert len(files) >= 20 and len(seeds) >= len(files) + 300
    assert len({s.text for s in seeds}) == len(seeds)
    strings = [s for s in seeds if ".py:" in s.name]
    assert all("kernel" in s.text and "{" in s.text for s in strings)
    assert all(s.text.count("{") == s.text.count("}") and "@" not in s.text for s in strings)  # no pieces


def test_the_seed_digest_keys_on_text_and_options():
    a, b = Seed("x", "__kernel void k() {}"), Seed("y", "__kernel void k() {}")
    assert a.digest == b.digest != Seed("x", "__kernel void k() {}", "-DN=1").digest
    assert len(Seed("z", "\udcff kernel").digest) == 16  # lone surrogates (a test's seed) hash too


def fake_corpus(root: Path) -> Path:
    """One project of the manifest fetched to `root`, with one kernel."""
    kernels = root / "openwall+john" / "run" / "opencl"
    kernels.mkdir(parents=True)
    (root / "openwall+john" / ".commit").write_text("0" * 40)
    (kernels / "k_kernel.cl").write_text("__kernel void k(__global int *a) { a[0] = 1; }\n")
    return root


def test_corpus_seeds_have_the_same_digest_wherever_the_corpus_lies(tmp_path, monkeypatch):
    here, there = (corpus_seeds(root=fake_corpus(tmp_path / d)) for d in ("here", "there"))
    assert [s.name for s in here] == [s.name for s in there] == ["john:run/opencl/k_kernel.cl"]
    assert str(tmp_path / "here") in here[0].options and str(tmp_path / "there") in there[0].options
    assert here[0].digest == there[0].digest
    costs = {s.digest: 9.0 for s in tree_seeds()} | {here[0].digest: 0.1}
    monkeypatch.setenv("OCLPY_CORPUS_DIR", str(tmp_path / "there"))  # the lead's run: a corpus elsewhere
    assert fast_seeds(0.5, costs=costs) == there


def test_fast_seeds_keep_those_within_the_cost(tmp_path):
    assert load_costs(tmp_path / "none.json") == {}
    bad = tmp_path / "bad.json"
    bad.write_text('{"costs": [1, 2]}')
    assert load_costs(bad) == {}
    tree = tree_seeds()
    costs = {s.digest: (0.01 if k % 2 else 5.0) for k, s in enumerate(tree)}
    kept = fast_seeds(0.5, corpus=False, costs=costs)
    assert [s.name for s in kept] == [s.name for k, s in enumerate(tree) if k % 2]


def test_the_seed_cost_table_knows_the_test_trees_seeds():
    table = load_costs()
    assert table, "tools/fuzz/seed_costs.json: python -m tools.fuzz.opencl_seeds --measure"
    known = [s for s in tree_seeds() if s.digest in table]
    assert len(known) > 0.8 * len(tree_seeds())


def test_the_fast_tier_from_the_command_line(capsys):
    assert main(["--fast", "0.5", "--no-corpus", "--cases", "30", "--jobs", "2", "--seed", "5", "--timeout", "60"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("30 cases in ") and "internal" not in out[-2]


def test_tokens_give_back_a_source_that_builds_alike():
    seeds = in_tree_seeds()
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


def test_400_mutants_through_the_whole_compiler(seeds, monkeypatch):
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    report = fuzz(seeds, 400, seed=22, backend=True)
    assert report.outcomes["internal"] == 0, list(report.internal)
    assert report.outcomes["ok"] > 40
