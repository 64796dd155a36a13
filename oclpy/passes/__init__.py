"""IR transforms, one per module, registered by name in `passes/manager.py`.

Importing the package imports every pass module, so each pass is registered
before anyone asks the manager for it, and checks the standard pipelines'
ordering constraints once.
"""

from . import (dce, dead_allocas, expand_atomics, form_workgroups, global_dce, infer_address_spaces, inline,  # noqa: F401
               interleave_private_arrays, lockstep_strided_loops, mem2reg, print_uniformity,
               rebase_loop_counters, scalarize_vectors, simplify, split_entry_guard, split_irreducible,
               split_large_switches, step_divergent_loops, widen_work_items)
from .manager import PIPELINES, check_pass_order

for _pipeline in PIPELINES.values():
    check_pass_order(_pipeline)
