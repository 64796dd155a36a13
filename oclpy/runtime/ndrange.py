"""Checking a launch's sizes and choosing a local size, as clEnqueueNDRangeKernel does.

`make_ndrange(...)` turns PyOpenCL's (global_size, local_size, global_offset)
into an `NDRange` of 3-tuples or raises the OpenCL error: INVALID_WORK_DIMENSION,
INVALID_GLOBAL_WORK_SIZE, INVALID_WORK_GROUP_SIZE (local size not dividing the
global size, over the device or kernel maximum, or against
reqd_work_group_size), INVALID_WORK_ITEM_SIZE, INVALID_VALUE (dimensions
that differ), INVALID_GLOBAL_OFFSET. A global size with a zero entry is an
empty range, as OpenCL 2.1 made it and PoCL runs it: the launch does nothing.
With `g_times_l` (the global size counts groups) the product decides: a zero
local entry is an empty range too, as PyOpenCL makes it (loopy launches a
local-size loop over an empty domain so).

With `local_size=None` the runtime picks one: the kernel's
reqd_work_group_size when it has one (as PoCL does; OpenCL 1.2 would refuse),
else per dimension the largest divisor of the global size that fits what is
left of the work-group limit, the limit first lowered so that every compute
unit gets work-groups, and to the driver's `auto_group` where it has one (GPUs
run stencils faster in groups of 256 shaped 64 x 4 than in the largest).
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from .drivers.base import NDRange
from .errors import raise_cl, status_code

ROUTINE = "clEnqueueNDRangeKernel"
SIZE_LIMIT = 1 << 64  # sizes and work-item counts are size_t


def _sizes(value: Any, what: str) -> list[int]:
    if isinstance(value, (int,)) or hasattr(value, "__index__"):
        value = (value,)
    try:
        sizes = [operator.index(v) for v in value]
    except TypeError:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"{what} must be a tuple of integers, got {value!r}")
    if not 1 <= len(sizes) <= 3:
        raise_cl(ROUTINE, status_code.INVALID_WORK_DIMENSION,
                 f"{what} has {len(sizes)} dimensions; 1 to 3 are supported")
    if any(s < 0 for s in sizes):
        raise_cl(ROUTINE, status_code.INVALID_VALUE, f"{what} {tuple(sizes)} has a negative entry")
    return sizes


def _pad(sizes: Sequence[int], fill: int) -> tuple[int, int, int]:
    padded = list(sizes) + [fill] * (3 - len(sizes))
    return (padded[0], padded[1], padded[2])


def largest_divisor_at_most(n: int, limit: int) -> int:
    for d in range(min(n, max(limit, 1)), 0, -1):
        if n % d == 0:
            return d
    return 1


def choose_local_size(global_size: Sequence[int], max_group: int, max_items: Sequence[int],
                      units: int, auto: tuple[int, int] | None = None) -> list[int]:
    """A local size dividing `global_size`, within the limits, leaving work for every unit;
    with `auto` (the driver's `auto_group`), at most auto[0] work-items, and at most
    auto[1] along the first dimension when there are more."""
    total = 1
    for g in global_size:
        total *= g
    if auto is not None:
        max_group = min(max_group, auto[0])
    budget = max(1, min(max_group, total // max(units, 1)))
    local = []
    for dim, (g, item_max) in enumerate(zip(global_size, max_items)):
        if auto is not None and dim == 0 and len(global_size) > 1:
            item_max = min(item_max, auto[1])
        d = largest_divisor_at_most(g, min(budget, item_max))
        local.append(d)
        budget = max(1, budget // d)
    return local


def _check_global(gsize: list[int]) -> None:
    """INVALID_GLOBAL_WORK_SIZE when a size, or the count of work-items, does not fit a size_t."""
    items = 1
    for g in gsize:
        items *= g
    if items >= SIZE_LIMIT or any(g >= SIZE_LIMIT for g in gsize):
        raise_cl(ROUTINE, status_code.INVALID_GLOBAL_WORK_SIZE,
                 f"global size {tuple(gsize)} has {items} work-items: more than a size_t "
                 f"(64 bits) can count")


def _check_local(local: list[int], gsize: list[int], max_group: int, max_items: Sequence[int],
                 reqd: tuple[int, int, int] | None) -> None:
    if any(l == 0 for l in local):
        raise_cl(ROUTINE, status_code.INVALID_WORK_GROUP_SIZE,
                 f"local size {tuple(local)} has a zero entry")
    for i, (g, l) in enumerate(zip(gsize, local)):
        if l > max_items[i]:
            raise_cl(ROUTINE, status_code.INVALID_WORK_ITEM_SIZE,
                     f"local size {l} in dimension {i} exceeds the device maximum {max_items[i]}")
        if g % l:
            raise_cl(ROUTINE, status_code.INVALID_WORK_GROUP_SIZE,
                     f"global size {tuple(gsize)} is not divisible by local size {tuple(local)} "
                     f"(dimension {i}: {g} % {l} = {g % l})")
    items = 1
    for l in local:
        items *= l
    if items > max_group:
        raise_cl(ROUTINE, status_code.INVALID_WORK_GROUP_SIZE,
                 f"local size {tuple(local)} has {items} work-items; the maximum is {max_group}")
    if reqd is not None and _pad(local, 1) != tuple(reqd):
        raise_cl(ROUTINE, status_code.INVALID_WORK_GROUP_SIZE,
                 f"local size {tuple(local)} does not match the kernel's "
                 f"reqd_work_group_size{tuple(reqd)}")


def make_ndrange(global_size: Any, local_size: Any, global_offset: Any, *, max_group: int,
                 max_items: Sequence[int], units: int, reqd: tuple[int, int, int] | None = None,
                 g_times_l: bool = False, auto: tuple[int, int] | None = None) -> NDRange:
    """A checked NDRange; see the module docstring for the errors. A global size with a
    zero is an empty range (OpenCL 2.1 on: the launch runs nothing), whatever the local size."""
    gsize = _sizes(global_size, "global size")
    local = _sizes(local_size, "local size") if local_size is not None else None
    if local is not None and g_times_l:
        # group counts times the local size: a zero local entry makes an empty range too
        dims = max(len(gsize), len(local))
        gsize, local = list(_pad(gsize, 1)[:dims]), list(_pad(local, 1)[:dims])
        gsize = [g * l for g, l in zip(gsize, local)]
    if 0 in gsize:
        return NDRange(len(gsize), _pad(gsize, 1), (1, 1, 1), (0, 0, 0))
    if local is not None:
        if not g_times_l and len(local) != len(gsize):
            raise_cl(ROUTINE, status_code.INVALID_VALUE,
                     "global/local work sizes have differing dimensions")
        _check_global(gsize)
        _check_local(local, gsize, max_group, max_items, reqd)
    elif reqd is not None:
        _check_global(gsize)
        local = list(reqd[:len(gsize)])
        _check_local(local, gsize, max_group, max_items, reqd)
    else:
        _check_global(gsize)
        local = choose_local_size(gsize, max_group, max_items, units, auto)
    offset = [0] * len(gsize)
    if global_offset is not None:
        offset = _sizes(global_offset, "global offset")
        if len(offset) != len(gsize):
            raise_cl(ROUTINE, status_code.INVALID_VALUE,
                     "global work offset has a different number of dimensions than the global size")
        if any(o + g >= SIZE_LIMIT for o, g in zip(offset, gsize)):
            raise_cl(ROUTINE, status_code.INVALID_GLOBAL_OFFSET, "global offset + size overflows")
    return NDRange(len(gsize), _pad(gsize, 1), _pad(local, 1), _pad(offset, 0))


def plain_sizes(sizes: Any) -> bool:
    """None or a tuple of Python ints: sizes that cannot change after the call (a
    cached shape may be keyed by them, or by their identity) and that no other
    value equals (1.0 == 1, so a float size must never hit an int size's shape)."""
    if sizes is None:
        return True
    if type(sizes) is not tuple:
        return False
    for s in sizes:
        if type(s) is not int:
            return False
    return True
