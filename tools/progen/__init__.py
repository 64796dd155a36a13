"""progen: random OpenCL C programs for differential testing (CLsmith's way).

`generate(seed, mode)` returns one UB-free kernel (see `program.py`);
`python -m tools.progen --seed N` prints it; `python -m tools.progen.check`
runs many on oclpy (-O0 and the default level) and PoCL and reports where
they disagree (see `check.py`).
"""

from .program import KERNEL, MODES, generate

__all__ = ["KERNEL", "MODES", "generate"]
