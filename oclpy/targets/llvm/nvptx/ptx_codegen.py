"""LLVM IR text -> PTX through llvmlite's NVPTX backend, with libdevice and a disk cache.

This module owns the NVPTX target machine (triple `nvptx64-nvidia-cuda`, the
GPU architecture `sm_XY`, PTX ISA 8.0), finding and linking NVIDIA's libdevice
(`libdevice.10.bc`: from $OCLPY_LIBDEVICE, $CUDA_HOME / $CUDA_PATH,
/usr/local/cuda*, or the `nvidia-cuda-nvcc` wheel), optimisation at O3 and PTX
emission. PTX is cached on disk (`cache_dir()`), keyed by the LLVM IR text,
the architecture and the LLVM version, so a rebuild in a new process skips LLVM.

Runs anywhere: no GPU and no CUDA driver are needed to make PTX.
"""

from __future__ import annotations

import glob
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from ..cpu import jit

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCH = "sm_90"
PTX_FEATURES = "+ptx80"
LIBDEVICE_PREFIX = "__nv_"


@dataclass(frozen=True)
class Precision:
    """How NVPTX lowers float division, sqrt and a*b+c (LLVM's NVPTX options).

    The default meets OpenCL's bounds as NVIDIA's OpenCL does: division
    `div.full.f32` (2 ulp; OpenCL allows 2.5), sqrt `sqrt.rn.f32` (exact), and
    contraction of a*b+c into fma (OpenCL C's FP_CONTRACT is on by default).
    -cl-fp32-correctly-rounded-divide-sqrt gives `div.rn.f32`;
    -cl-fast-relaxed-math (or -cl-unsafe-math-optimizations) the approximate
    `div.approx.f32` and `sqrt.approx.f32`."""

    div_f32: int = 1   # 0 approx, 1 full (2 ulp), 2 IEEE
    sqrt_f32: int = 1  # 0 approx, 1 IEEE
    fma_level: int = 1  # 0 never fuse, 1 fuse a*b+c

    def llvm_options(self) -> list[str]:
        return [f"-nvptx-prec-divf32={self.div_f32}", f"-nvptx-prec-sqrtf32={self.sqrt_f32}",
                f"-nvptx-fma-level={self.fma_level}"]


def _set_options(precision: Precision) -> None:
    """LLVM's NVPTX options are process-wide: set before each emission, lock held."""
    for option in precision.llvm_options():
        llvm.set_option("oclpy", option)


_arch = {"default": DEFAULT_ARCH}


def set_default_arch(arch: str) -> None:
    """The architecture builds target when none is named (the cuda driver sets its GPU's)."""
    _arch["default"] = arch


def default_arch() -> str:
    return _arch["default"]


class LibdeviceMissing(Exception):
    """The kernel calls math that needs libdevice, and none was found."""


def _init() -> None:
    with jit._lock:
        if not jit._state.get("nvptx"):
            llvm.initialize_all_targets()
            llvm.initialize_all_asmprinters()
            jit._state["nvptx"] = True


def target_machine(arch: str = DEFAULT_ARCH, opt: int = 3) -> llvm.TargetMachine:
    _init()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=arch, features=PTX_FEATURES, opt=opt)


def data_layout(arch: str = DEFAULT_ARCH) -> str:
    return str(target_machine(arch).target_data)


def _libdevice_candidates() -> list[str]:
    found = [os.environ.get("OCLPY_LIBDEVICE", "")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            found.append(os.path.join(os.environ[var], "nvvm/libdevice/libdevice.10.bc"))
    found += sorted(glob.glob("/usr/local/cuda*/nvvm/libdevice/libdevice.10.bc"), reverse=True)
    try:
        import nvidia.cuda_nvcc as wheel  # type: ignore[import-not-found]

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


_libdevice_cache: dict[str, bytes] = {}


def _libdevice_bitcode(path: str) -> bytes:
    """libdevice with every function `linkonce_odr`, so linking brings in only what
    the kernel calls (parsed and rewritten once per process)."""
    data = _libdevice_cache.get(path)
    if data is None:
        lib = llvm.parse_bitcode(Path(path).read_bytes())
        for fn in lib.functions:
            if not fn.is_declaration:
                fn.linkage = llvm.Linkage.linkonce_odr
        data = _libdevice_cache[path] = lib.as_bitcode()
    return data


def _link_libdevice(mod: llvm.ModuleRef, keep: set[str]) -> None:
    """Link the libdevice functions `mod` calls and make everything but `keep` internal."""
    path = find_libdevice()
    if path is None:
        raise LibdeviceMissing(
            "the kernel uses math functions that need NVIDIA's libdevice (libdevice.10.bc), "
            "which was not found: install the CUDA toolkit or 'pip install nvidia-cuda-nvcc', "
            "or point OCLPY_LIBDEVICE at the file")
    lib = llvm.parse_bitcode(_libdevice_bitcode(path))
    lib.triple = mod.triple
    lib.data_layout = mod.data_layout
    mod.link_in(lib)
    for fn in mod.functions:
        if not fn.is_declaration and fn.name not in keep:
            fn.linkage = llvm.Linkage.internal


def _needs_libdevice(text: str) -> bool:
    return LIBDEVICE_PREFIX in text


def _optimize(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int) -> None:
    if level <= 0:
        return
    pto = llvm.create_pipeline_tuning_options(speed_level=min(level, 3))
    pto.loop_vectorization = False  # the GPU's parallelism is its threads
    pto.slp_vectorization = True
    pto.loop_unrolling = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def cache_dir() -> Path:
    base = os.environ.get("OCLPY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "oclpy")
    return Path(base) / "cuda"


def cache_key(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:32]


def cache_get(key: str, suffix: str) -> bytes | None:
    try:
        return (cache_dir() / f"{key}.{suffix}").read_bytes()
    except OSError:
        return None


def cache_put(key: str, suffix: str, data: bytes) -> None:
    """Write atomically (rename); a cache that cannot be written is skipped silently."""
    try:
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{key}.{suffix}.{os.getpid()}"
        tmp.write_bytes(data)
        os.replace(tmp, d / f"{key}.{suffix}")
    except OSError:
        pass


def compile_ptx(text: str, kernels: set[str], arch: str = DEFAULT_ARCH,
                opt_level: int = 3, precision: Precision = Precision()) -> tuple[str, str]:
    """(PTX, optimised LLVM IR) for LLVM IR `text`; the PTX comes from the disk
    cache when this IR was compiled before (the optimised IR is then "")."""
    key = cache_key("ptx", text, arch, str(opt_level), llvmlite.__version__,
                    ",".join(sorted(kernels)), " ".join(precision.llvm_options()))
    hit = cache_get(key, "ptx")
    if hit is not None:
        return hit.decode(), ""
    with jit._lock:
        mod = jit.parse_and_verify(text)
        tm = target_machine(arch, opt=min(opt_level, 3))
        mod.triple = TRIPLE
        mod.data_layout = str(tm.target_data)
        if _needs_libdevice(text):
            _link_libdevice(mod, kernels)
        _optimize(mod, tm, opt_level)
        _set_options(precision)
        ptx = tm.emit_assembly(mod)
        optimized = str(mod)
    cache_put(key, "ptx", ptx.encode())
    return ptx, optimized


def ptx_version(ptx: str) -> str:
    for line in ptx.splitlines():
        if line.startswith(".version"):
            return line.split()[1]
    return ""
