"""LLVM passes that huge functions are spared: their time grows with the square of a function's size.

LLVM's SLP vectoriser looks for chains of stores and of operations to pack
into vectors within each basic block, and its search grows with the square of
the block's stores: a kernel of 8,000 lines of `a[i * 4 + c] += b[i + k];` (one
function of 86,000 instructions, one block after optimisation) spent 6.7 of its
13 seconds of LLVM -O3 there, 1.4 s at 4,000 lines and 0.23 s at 1,000
(benchmarks/README.md, issue 13). A function that large is generated code: the
vectoriser's few packed operations do not pay for its time.

`slp_vectorization(text)` says whether the pipeline for LLVM IR `text` keeps
the SLP vectoriser: no when some function has more than `SLP_MAX_INSTRUCTIONS`
instruction lines. It reads the text before optimisation (what the target
emitted), where one line is one instruction; the bound applies to the whole
module, because LLVM's pass builder turns the vectoriser on or off per
pipeline, not per function (its one per-function switch, `noimplicitfloat`,
also turns off the loop vectoriser and vector code for memory copies).
`tests/targets/test_huge_functions.py` checks the count and the pipeline.
"""

from __future__ import annotations

SLP_MAX_INSTRUCTIONS = 20000  # instruction lines in one function, before optimisation


def largest_function(text: str) -> int:
    """The instruction lines (lines indented by two spaces) of the largest function
    defined in LLVM IR `text`."""
    most, start = 0, text.find("define ")
    while start >= 0:
        stop = text.find("\n}", start)
        stop = len(text) if stop < 0 else stop
        most = max(most, text.count("\n  ", start, stop) - text.count("\n   ", start, stop))
        start = text.find("\ndefine ", stop)
    return most


def slp_vectorization(text: str) -> bool:
    """Whether LLVM's SLP vectoriser runs on LLVM IR `text` (see above)."""
    return largest_function(text) <= SLP_MAX_INSTRUCTIONS
