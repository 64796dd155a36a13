"""LLVM IR text -> PTX through LLVM's NVPTX backend (`binding.emit_ptx`), with libdevice.

This module owns the NVPTX code generator's settings: the PTX features (none:
LLVM then writes the oldest PTX ISA the architecture allows, see
`PTX_FEATURES`), the architecture when none is named (`sm_90`), the
float precision options (`Precision`), and finding NVIDIA's libdevice
(`libdevice.10.bc`: from $OCLPY_LIBDEVICE, $CUDA_HOME / $CUDA_PATH,
/usr/local/cuda*, or the `nvidia-cuda-nvcc` wheel), which is linked when the
kernel calls its `__nv_` functions. PTX is cached by the compiler's build
cache (`compiler/cache.py`), not here.

Runs anywhere: no GPU and no CUDA driver are needed to make PTX.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from .. import binding

TRIPLE = binding.NVPTX_TRIPLE
DEFAULT_ARCH = "sm_90"
# No "+ptxNN": LLVM writes the oldest PTX ISA the architecture takes (7.8 for sm_90),
# which also runs on the oldest drivers. PTX 8.0 on sm_90 lets LLVM use packed 16-bit
# integer instructions (`add.s16x2`), and the JIT of NVIDIA's 580 driver drops the
# immediate of the second of two such adds (short3 division got the wrong divisor in
# its third lane, tests/targets/test_nvptx_ptx.py).
PTX_FEATURES = ""
LIBDEVICE_PREFIX = "__nv_"
# CUDA's kernel parameters hold 4 KB at the PTX ISA oclpy writes (7.8; 32 KB needs
# 8.1): the argument blob, 8-aligned, then the 76 bytes of hidden parameters
# (nvvm_intrinsics). The cuda device reports it as CL_DEVICE_MAX_PARAMETER_SIZE.
MAX_ARGUMENT_BYTES = 4096 - 80


@dataclass(frozen=True)
class Precision:
    """How NVPTX lowers float division, sqrt and a*b+c (LLVM's NVPTX options).

    The default meets OpenCL's bounds as NVIDIA's OpenCL does: division
    `div.full.f32` (2 ulp; OpenCL allows 2.5), sqrt `sqrt.approx.f32` (OpenCL
    allows 3 ulp; measured on the H200 over every non-negative float, subnormals
    included: at most 0.944 ulp; NVIDIA's OpenCL emits it too, and the IEEE
    `sqrt.rn.f32` is a long sequence that cost sdk_nbody 6% and the Black-Scholes
    kernels 10%), and contraction of a*b+c into fma (OpenCL C's FP_CONTRACT is on
    by default). -cl-fp32-correctly-rounded-divide-sqrt gives `div.rn.f32` and
    `sqrt.rn.f32`; -cl-fast-relaxed-math (or -cl-unsafe-math-optimizations) the
    approximate `div.approx.f32` too. Double precision is always IEEE."""

    div_f32: int = 1   # 0 approx, 1 full (2 ulp), 2 IEEE
    sqrt_f32: int = 0  # 0 approx (< 1 ulp measured), 1 IEEE
    fma_level: int = 1  # 0 never fuse, 1 fuse a*b+c

    def llvm_options(self) -> list[str]:
        return [f"-nvptx-prec-divf32={self.div_f32}", f"-nvptx-prec-sqrtf32={self.sqrt_f32}",
                f"-nvptx-fma-level={self.fma_level}"]


# Runtime unrolling of the loops whose trip count is known only at run time, as
# NVIDIA's compiler does: a GPU thread needs the loads of several iterations in
# flight (clblast_xdot's grid-stride loop ran at 3.2 times NVIDIA's time rolled).
# LLVM's unroller gives up when the trip count needs a division by a run-time
# stride (i += get_global_size(0)) under its default SCEV expansion budget of 4.
# The remainder iterations run after the unrolled loop (an epilog), not before it:
# measured on the H200 against the prolog LLVM picks by default, xdot 0.98 -> 0.37,
# sdk_reduce 2.23 -> 1.58, fft_passes 2.93 -> 2.16 of NVIDIA's kernel time.
# Loops with a constant trip count are unrolled fully up to four times LLVM's -O3
# size threshold (1200 instead of 300), as NVIDIA's compiler does: clblast_xgemv's
# 64-step inner loop over a __local tile, unrolled, ran at 0.36 of NVIDIA's kernel
# time instead of 1.58 (clblast_transpose, bemap_gaussian and bullet_grid_hash
# also change and stay within 1% of their times).
# LLVM's options are process-wide and sticky: the reset restores the values LLVM
# uses at -O3 for the cpu's compiles that follow in this process (two differences
# remain there: a runtime-unrolled loop's remainder is always a prolog, where LLVM
# would choose, and an -O1 compile gets -O3's full-unroll threshold).
LOOP_OPTIONS = ("-scev-cheap-expansion-budget=32", "-unroll-runtime-epilog=true", "-unroll-threshold=1200")
LOOP_OPTIONS_RESET = ("-scev-cheap-expansion-budget=4", "-unroll-runtime-epilog=false", "-unroll-threshold=300")
# A loop without side effects terminates (C11 6.8.5p6, on which OpenCL C 2.0 and 3.0
# rest; 1.2 kernels are held to it too): so SCEV counts the trips of a loop whose
# stride's sign it cannot tell (i += 128 * get_num_groups(0)), and it unrolls.
FUNCTION_ATTRS = ("mustprogress",)


class LibdeviceMissing(Exception):
    """The kernel calls math that needs libdevice, and none was found."""


def data_layout(arch: str = DEFAULT_ARCH, features: str = PTX_FEATURES) -> str:
    return binding.nvptx_data_layout(arch, features)


def _libdevice_candidates() -> list[str]:
    found = [os.environ.get("OCLPY_LIBDEVICE", "")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            found.append(os.path.join(os.environ[var], "nvvm/libdevice/libdevice.10.bc"))
    found += sorted(glob.glob("/usr/local/cuda*/nvvm/libdevice/libdevice.10.bc"), reverse=True)
    try:
        import nvidia.cuda_nvcc as wheel  # type: ignore[import-not-found]  # optional wheel

        for base in getattr(wheel, "__path__", []):
            found.append(os.path.join(base, "nvvm/libdevice/libdevice.10.bc"))
    except ImportError:
        pass
    try:
        import nvidia.cu13 as cu13  # type: ignore[import-not-found]  # cuda-toolkit 13 wheels

        for base in getattr(cu13, "__path__", []):
            found.append(os.path.join(base, "nvvm/libdevice/libdevice.10.bc"))
    except ImportError:
        pass
    return [p for p in found if p]


def find_libdevice() -> str | None:
    """The path of libdevice.10.bc, or None when it is not installed."""
    for path in _libdevice_candidates():
        if os.path.isfile(path):
            return path
    return None


def _libdevice_for(text: str) -> str | None:
    """libdevice's path when the module calls it, else None; LibdeviceMissing when not found."""
    if LIBDEVICE_PREFIX not in text:
        return None
    path = find_libdevice()
    if path is None:
        raise LibdeviceMissing(
            "the kernel uses math functions that need NVIDIA's libdevice (libdevice.10.bc), "
            "which was not found: install the CUDA toolkit or 'pip install nvidia-cuda-nvcc', "
            "or point OCLPY_LIBDEVICE at the file")
    return path


def compile_ptx(text: str, kernels: set[str], arch: str = DEFAULT_ARCH,
                opt_level: int = 3, precision: Precision = Precision(),
                features: str = PTX_FEATURES) -> tuple[str, str]:
    """(PTX, optimised LLVM IR) for LLVM IR `text` at LLVM's -O`opt_level`."""
    return binding.emit_ptx(text, arch, features, opt_level,
                            precision.llvm_options() + list(LOOP_OPTIONS), _libdevice_for(text),
                            kernels, list(LOOP_OPTIONS_RESET), list(FUNCTION_ATTRS))


def ptx_version(ptx: str) -> str:
    for line in ptx.splitlines():
        if line.startswith(".version"):
            return line.split()[1]
    return ""
