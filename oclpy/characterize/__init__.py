"""Device characteristics host code asks about, as `pyopencl.characterize` answers them.

Every answer comes from the device's info table: double support from its
extensions, SVM support from its SVM capabilities (oclpy devices have none:
shared virtual memory is not implemented), the PoCL version only for a PoCL
platform (None for oclpy's). The local-memory bank model (`local_memory_bank_count`,
`why_not_local_access_conflict_free`) and `get_simd_group_size` follow PyOpenCL's
rules by device type: a cpu runs one work-item at a time on local memory that is
ordinary cached memory (no banks: asking for a bank count is a RuntimeError, as
in PyOpenCL), a GPU is taken to have 32 banks of 4 bytes and 32-wide SIMD groups.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

from oclpy import Error, device_info, device_local_mem_type, device_type

_POCL_VERSION = re.compile(r"^OpenCL [0-9.]+ [Pp]o[Cc][Ll] ([0-9]+)\.([0-9]+)")


def has_double_support(dev: Any) -> bool:
    return "cl_khr_fp64" in dev.extensions.split()


def has_struct_arg_count_bug(dev: Any, ctx: Any = None) -> bool | str:
    """PyOpenCL's check for drivers that miscount struct kernel arguments: never oclpy's."""
    return False


def has_amd_double_support(dev: Any) -> bool:
    return "cl_amd_fp64" in dev.extensions.split()


def _svm_capabilities(dev: Any) -> int:
    try:
        return int(dev.get_info(device_info.SVM_CAPABILITIES))
    except (Error, AttributeError):
        return 0


def has_coarse_grain_buffer_svm(dev: Any) -> bool:
    return bool(_svm_capabilities(dev) & 1)


def has_fine_grain_buffer_svm(dev: Any) -> bool:
    return bool(_svm_capabilities(dev) & 2)


def has_fine_grain_system_svm(dev: Any) -> bool:
    return bool(_svm_capabilities(dev) & 4)


def has_src_build_cache(dev: Any) -> bool:
    return True


def get_pocl_version(platform: Any, fallback_value: tuple[int, int] | None = None
                     ) -> tuple[int, int] | None:
    if platform.name != "Portable Computing Language":
        return None
    match = _POCL_VERSION.match(platform.version)
    return (int(match.group(1)), int(match.group(2))) if match else fallback_value


def reasonable_work_group_size_multiple(dev: Any, ctx: Any = None) -> int:
    """The work-group size multiple a kernel on `dev` runs best at (cpu: 1, GPUs: 32)."""
    return 1 if dev.type & device_type.CPU else 32


def usable_local_mem_size(dev: Any, nargs: int | None = None) -> int:
    return int(dev.local_mem_size)


def nv_compute_capability(dev: Any) -> tuple[int, int] | None:
    return None


class CLCharacterizationWarning(UserWarning):
    """An answer that is a guess for this kind of device."""


def simultaneous_work_items_on_local_access(dev: Any) -> int:
    """How many work-items access local memory at once (and so may conflict)."""
    return 1 if dev.type & device_type.CPU else 32


def local_memory_access_granularity(dev: Any) -> int:
    """Bytes per local memory bank."""
    return 4


def local_memory_bank_count(dev: Any) -> int:
    """Local memory banks: 32 on a GPU; RuntimeError where local memory is cached global memory."""
    if dev.type & device_type.GPU:
        return 32
    if dev.type & device_type.CPU and dev.local_mem_type == device_local_mem_type.GLOBAL:
        raise RuntimeError("asking for a bank count is meaningless for cache-based lmem")
    warnings.warn(f"Wildly guessing conflicting local access size on '{dev}'",
                  CLCharacterizationWarning, stacklevel=2)
    return 16


def _bank_accesses(itemsize: int, shape: tuple[int, ...], stored: tuple[int, ...], axis_from: int,
                   sim_wi: int, gran: int, banks: int) -> dict[int, list[str]]:
    """Which work-items of one simultaneous group hit which bank, the work-items laid
    along the axes from `axis_from` on (shapes fastest-moving first)."""
    accesses: dict[int, list[str]] = {}
    for item in range(sim_wi):
        addr, mult, left, idx = 0, itemsize, item, []
        for axis, (size, stored_size) in enumerate(zip(shape, stored)):
            if axis >= axis_from:
                left, ax_idx = divmod(left, size)
                addr += mult * ax_idx
                idx.append(ax_idx)
            else:
                idx.append(0)
            mult *= stored_size
        if not left:  # an out-of-bounds work-item does not access
            accesses.setdefault((addr // gran) % banks, []).append(f"w.item {item} -> {idx[::-1]}")
    return accesses


def why_not_local_access_conflict_free(dev: Any, itemsize: int, array_shape: Any,
                                       array_stored_shape: Any = None) -> tuple[int, str | None]:
    """(work-items that conflict on one bank, explanation or None) for a local array of
    `array_shape` (C order; `array_stored_shape` if padded) accessed one element per work-item."""
    stored = tuple(array_stored_shape if array_stored_shape is not None else array_shape)[::-1]
    shape = tuple(array_shape)[::-1]
    gran = local_memory_access_granularity(dev)
    if itemsize != gran:
        warnings.warn(f"Local conflict info might be inaccurate for itemsize != {gran}",
                      CLCharacterizationWarning, stacklevel=2)
    sim_wi, banks = simultaneous_work_items_on_local_access(dev), local_memory_bank_count(dev)
    conflicts = []
    for axis in range(len(shape)):
        accesses = _bank_accesses(itemsize, shape, stored, axis, sim_wi, gran, banks)
        worst = max(len(a) for a in accesses.values())
        if worst > 1:
            conflicts += [(worst, f"{worst}x conflict on axis {axis} (from right, 0-based): "
                                  f"{', '.join(acc)} access bank {bank}")
                          for bank, acc in accesses.items() if len(acc) == worst]
    return max(conflicts) if conflicts else (1, None)


def get_simd_group_size(dev: Any, type_size: int) -> int | None:
    """How many work-items run across SIMD lanes together: 1 on a cpu (each work-item
    loop is vectorised by the compiler, not by the launch), 32 on a GPU, else None."""
    if dev.type & device_type.CPU:
        return 1
    if dev.type & device_type.GPU:
        return 32
    return None


def get_fast_inaccurate_build_options(dev: Any) -> list[str]:
    """Build options that trade accuracy for speed."""
    return ["-cl-mad-enable", "-cl-fast-relaxed-math", "-cl-no-signed-zeros"]


__all__ = ["CLCharacterizationWarning", "get_fast_inaccurate_build_options", "get_simd_group_size",
           "local_memory_access_granularity", "local_memory_bank_count",
           "simultaneous_work_items_on_local_access", "why_not_local_access_conflict_free",
           "get_pocl_version", "has_amd_double_support", "has_coarse_grain_buffer_svm",
           "has_double_support", "has_fine_grain_buffer_svm", "has_fine_grain_system_svm",
           "has_src_build_cache", "nv_compute_capability", "reasonable_work_group_size_multiple",
           "usable_local_mem_size"]
