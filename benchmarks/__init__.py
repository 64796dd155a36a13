"""oclpy's benchmark suite: our own kernels timed on oclpy's cpu device and on PoCL.

`python -m benchmarks` runs every case in `cases.py` (see `runner.py`); the
results go to `benchmarks/results/` as JSON. Not a test suite: nothing here is
collected by pytest.
"""
