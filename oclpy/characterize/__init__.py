"""Device characteristics host code asks about, as `pyopencl.characterize` answers them.

Every answer comes from the device's info table: double support from its
extensions, SVM support from its SVM capabilities (oclpy devices have none:
shared virtual memory is not implemented), the PoCL version only for a PoCL
platform (None for oclpy's).
"""

from __future__ import annotations

import re
from typing import Any

from oclpy import Error, device_info, device_type

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


__all__ = ["get_pocl_version", "has_amd_double_support", "has_coarse_grain_buffer_svm",
           "has_double_support", "has_fine_grain_buffer_svm", "has_fine_grain_system_svm",
           "has_src_build_cache", "nv_compute_capability", "reasonable_work_group_size_multiple",
           "usable_local_mem_size"]
