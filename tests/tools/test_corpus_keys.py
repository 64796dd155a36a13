"""The ids of our tests' kernel literals as corpus cases (tools/corpus/intree.py):
a stable key that a line added above the literal leaves alone, the old key by
line still matched (tools/corpus/known.py), and `rekey` turning old keys of
known_differences.toml into stable ones (tools/corpus/rekey.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.corpus.__main__ import main  # noqa: E402
from tools.corpus.intree import line_key, literal_digest, repo_cases, stable_key  # noqa: E402
from tools.corpus.known import Difference, KnownDifferences, matches  # noqa: E402
from tools.corpus.rekey import rekey_text, stable_keys  # noqa: E402

A = "kernel void a(global int *p) { p[0] = 1; }"
B = "kernel void b(global int *p) { p[0] = 2; }"


def _tree(tmp_path: Path, head: str = "") -> Path:
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "test_k.py").write_text(f'{head}A = "{A}"\nB = "{B}"\nA2 = "{A}"\n')
    (tmp_path / "tests" / "k.cl").write_text(B)
    return tmp_path


def test_a_literal_id_has_its_line_and_a_digest_of_its_text_and_std(tmp_path: Path) -> None:
    ids = [c.id for c in repo_cases(_tree(tmp_path))]
    digest = literal_digest(A, "CL1.2")
    assert ids == ["tests:tests/k.cl", f"tests:tests/test_k.py:1#{digest}",
                   f"tests:tests/test_k.py:2#{literal_digest(B, 'CL1.2')}"]  # the repeated A is left out
    assert digest != literal_digest(A, "CL2.0") and len(digest) == 8
    assert stable_key(ids[1]) == f"tests:tests/test_k.py#{digest}"
    assert line_key(ids[1]) == "tests:tests/test_k.py:1"
    assert stable_key(ids[0]) == line_key(ids[0]) == "tests:tests/k.cl"
    assert stable_key("p:src/a.cl") == line_key("p:src/a.cl") == "p:src/a.cl"


def test_a_line_added_above_moves_the_line_not_the_stable_key(tmp_path: Path) -> None:
    before = [c.id for c in repo_cases(_tree(tmp_path))]
    after = [c.id for c in repo_cases(_tree(tmp_path, head="# one more line\n"))]
    assert [line_key(i) for i in after[1:]] == ["tests:tests/test_k.py:2", "tests:tests/test_k.py:3"]
    assert [stable_key(i) for i in after] == [stable_key(i) for i in before]


def test_known_differences_match_the_stable_key_and_the_old_key_by_line() -> None:
    case = f"tests:tests/test_k.py:7#{literal_digest(A, 'CL1.2')}"
    for pattern in (stable_key(case), "tests:tests/test_k.py:7", "tests:tests/test_k.py#*",
                    "tests:tests/test_k.py:*", "*", case):
        assert matches(pattern, case), pattern
    for pattern in ("tests:tests/test_k.py:8", "tests:tests/test_k.py#00000000", "tests:tests/other.py#*"):
        assert not matches(pattern, case), pattern
    known = KnownDifferences([Difference("tests:tests/test_k.py:7", "fail", "an old key by line")],
                             [Difference(stable_key(case), "*", "a finding by its stable key")])
    assert known.find(case, "fail") is not None and known.find_pending(case) is not None


def test_rekey_makes_old_keys_stable_and_leaves_the_rest(tmp_path: Path) -> None:
    keys = stable_keys(_tree(tmp_path))
    new = f"tests:tests/test_k.py#{literal_digest(A, 'CL1.2')}"
    assert keys["tests:tests/test_k.py:1"] == keys["tests:tests/test_k.py:3"] == new
    text = ('match = "tests:tests/test_k.py:1"\ncategory = "fail"\n'
            'match = "tests:tests/test_k.py:*"\n'
            'match = "tests:tests/test_k.py:9"\n'
            'match = "tests:tests/k.cl"\nmatch = "p:src/x.cl"\nmatch = "*"\n'
            f'match = "{new}"\n')
    out, changed, unknown = rekey_text(text, keys)
    assert out == (f'match = "{new}"\ncategory = "fail"\n'
                   'match = "tests:tests/test_k.py#*"\n'
                   'match = "tests:tests/test_k.py:9"\n'
                   'match = "tests:tests/k.cl"\nmatch = "p:src/x.cl"\nmatch = "*"\n'
                   f'match = "{new}"\n')
    assert changed == [f"tests:tests/test_k.py:1 -> {new}", "tests:tests/test_k.py:* -> tests:tests/test_k.py#*"]
    assert unknown == ["tests:tests/test_k.py:9"]


def test_the_rekey_command_rewrites_the_file_and_names_keys_it_cannot_find(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    known = tmp_path / "known.toml"
    known.write_text('[[difference]]\nmatch = "tests:tests/nowhere.py:3"\nreason = "x y z"\n')
    assert main(["rekey", str(known)]) == 1
    assert "no kernel literal is at tests:tests/nowhere.py:3: left as it is" in capsys.readouterr().err
    assert known.read_text().count("tests:tests/nowhere.py:3") == 1


def test_every_key_of_our_tests_in_known_differences_names_a_kernel() -> None:
    """A key that matches nothing is stale: its kernel changed or moved."""
    ids = [c.id for c in repo_cases()]
    known = KnownDifferences.load()
    for entry in known.entries + known.pending:
        if entry.match.startswith("tests:"):
            assert any(matches(entry.match, i) for i in ids), entry.match
