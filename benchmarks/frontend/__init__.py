"""Frontend speed benchmark: OpenCL C source -> verified IR for a 1,000-line file.

`python -m benchmarks.frontend` times `frontend.driver.compile_to_ir` plus the
IR verifier on `kernels_1000.cl` (made by `generate.py` from the real-kernel
corpus in tests/frontend/kernels/), reports the median of several runs and
the time per stage, and writes JSON to benchmarks/results/frontend-<date>.json.
Not a test: nothing here is collected by pytest.
"""
