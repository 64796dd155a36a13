"""tools/clsmith: CLSmith's random OpenCL C kernels on oclpy and on PoCL.

CLSmith (Lidbury et al., PLDI 2015; github.com/ChrisLidbury/CLSmith) is built
outside the repository (see `generate.py`); this package generates its
kernels per mode and seed (`generate.py`), runs each on oclpy's cpu device
and on PoCL as its host program cl_launcher would (`execute.py`, in worker
processes with time limits: `workers.py`), names what happened
(`verdict.py`), tabulates (`report.py`) and reduces a failing kernel
(`reduce.py`). It sits next to tools/progen, our own generator, and reuses
its Result and its line reducer. `python -m tools.clsmith --help`; findings
in tools/clsmith/FINDINGS.md.
"""
