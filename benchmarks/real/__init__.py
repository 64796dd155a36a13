"""The real suite: OpenCL kernels from public projects, timed on every CPU OpenCL found.

The kernels are other people's code, vendored unchanged under `kernels/<project>/`
with their licence and pinned commit (`ORIGIN.toml`); the host code (buffers,
NDRanges, launch sequences) and the NumPy references are ours (`cases_*.py`).
`python -m benchmarks.real` runs them on oclpy's cpu device, PoCL and Intel's
CPU runtime in one process, alternating (`runner.py`).
"""
