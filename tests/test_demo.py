"""`oclpy demo --quick` runs all four kernels and they match NumPy."""

from oclpy.cli.demo import CaseResult, format_table, run_demo


def test_demo_quick_all_ok(capsys):
    assert run_demo(quick=True) == 0
    out = capsys.readouterr().out
    assert "4/4 kernels OK" in out
    for name in ("vector_add", "reduce_sum", "matmul_tiled", "stencil5"):
        assert name in out


def test_table_marks_failures():
    table = format_table([CaseResult("k", "8", 0.1, 0.002, 0.5, False)])
    assert "FAIL" in table.splitlines()[2]
    assert "100 ms" in table and "2.00 ms" in table
