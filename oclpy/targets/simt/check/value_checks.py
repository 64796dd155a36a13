"""Checks on values: integer division by zero, and generic-to-named casts into the wrong space.

Instruction selection leaves a check instruction where the source makes the
promise (`isa.py`'s `check` family; the machine ignores them):
`v_check_nonzero` before each integer division or remainder, on the divisor
as written (the frontend's guard that keeps the machine from trapping looked
through), and `v_check_space_b64` before each generic-to-named cast (not
`to_global()` and friends, whose answer for another space is NULL). These
functions get the operand's lane values and report the lanes (under exec)
that break the promise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..memory_model import LOCAL_APERTURE_HI, PRIVATE_APERTURE_HI
from .check_session import Checker

SPACE_OF_APERTURE = {LOCAL_APERTURE_HI: "__local", PRIVATE_APERTURE_HI: "__private", 0: "__global"}


def division(chk: Checker, s: Any, pc: int, value: np.ndarray, active: np.ndarray) -> None:
    zero = active & (np.broadcast_to(value, active.shape) == 0)
    if zero.any():
        w, lane = np.nonzero(zero)
        chk.report("division-by-zero", s, pc, "integer division by zero", w, lane)


def cast(chk: Checker, s: Any, pc: int, address: np.ndarray, aperture: int, active: np.ndarray) -> None:
    address = np.broadcast_to(address, active.shape).astype(np.uint64)
    hi = (address >> np.uint64(32)).astype(np.int64)
    if aperture:
        wrong = hi != aperture
    else:
        wrong = (hi == LOCAL_APERTURE_HI) | (hi == PRIVATE_APERTURE_HI)
    wrong &= active & (address != 0)
    if not wrong.any():
        return
    w, lane = np.nonzero(wrong)
    first = int(hi[w[0], lane[0]])
    found = SPACE_OF_APERTURE.get(first if first in (LOCAL_APERTURE_HI, PRIVATE_APERTURE_HI) else 0)
    message = (f"invalid cast of a generic pointer to {SPACE_OF_APERTURE[aperture]}: it points into "
               f"{found} memory")
    chk.report("invalid-cast", s, pc, message, w, lane)
