"""tools/ir_identity.py: a saved record of outputs, checked against the compiler as it is:
the same outputs pass, a changed output fails and names the kernel and the line."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.compile_stages import Kernel  # noqa: E402
from tools import ir_identity  # noqa: E402

KERNELS = [
    Kernel("small", "add", "__kernel void add(__global int *a) { a[get_global_id(0)] += 1; }", ""),
    Kernel("small", "bad", "__kernel void bad(__global int *a) { a[0] = b; }", ""),
]


@pytest.fixture
def small_sets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ir_identity, "kernels", lambda names, every, sets: KERNELS)


def test_outputs_hold_the_ir_the_llvm_ir_and_the_log() -> None:
    ok, bad = (ir_identity.outputs(k) for k in KERNELS)
    assert ok["status"] == "ok"
    assert "define internal void @\"add\"(" in ok["llvm"] and "@add" in ok["ir"]
    assert bad["status"] == "error" and "use of undeclared identifier 'b'" in bad["log"]


def test_check_passes_on_the_same_compiler(small_sets: None, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "out.json.gz"
    ir_identity.save(record, ["small"], 6)
    assert ir_identity.check(record) == 0
    assert "2 of 2 kernels give the same output" in capsys.readouterr().out


def test_check_names_the_kernel_and_line_that_differ(small_sets: None, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "out.json.gz"
    ir_identity.save(record, ["small"], 6)
    with gzip.open(record, "rt", encoding="utf-8") as f:
        data = json.load(f)
    data["kernels"]["add"]["ir"] = data["kernels"]["add"]["ir"].replace("add", "sub", 1)
    with gzip.open(record, "wt", encoding="utf-8") as f:
        json.dump(data, f)
    assert ir_identity.check(record) == 1
    out = capsys.readouterr()
    assert "1 of 2 kernels give the same output" in out.out
    assert "add: differs" in out.err and "ir: line" in out.err and "was:" in out.err


def test_first_difference_reports_a_shorter_text() -> None:
    assert ir_identity.first_difference("a\nb\n", "a\n") == "line 2: 2 lines before, 1 now"
    assert "was: b" in ir_identity.first_difference("a\nb", "a\nc")
