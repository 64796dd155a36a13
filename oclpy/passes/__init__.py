"""IR transforms, one per module, registered by name in `passes/manager.py`.

Importing the package imports every pass module, so each pass is registered
before anyone asks the manager for it, and checks the standard pipelines'
ordering constraints once.
"""

from . import (dce, form_workgroups, infer_address_spaces, inline, mem2reg, print_uniformity,  # noqa: F401
               scalarize_vectors, simplify, step_divergent_loops)
from .manager import PIPELINES, check_pass_order

for _pipeline in PIPELINES.values():
    check_pass_order(_pipeline)
