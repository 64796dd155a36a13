"""FFT: ViennaCL's radix-2 kernels, in local memory (one launch) and in passes.

Complex data is float2, FFT along axis 0 of a (size, batch) array (ViennaCL's
column-major layout: element p of batch b at p*stride + b). sign -1 is the
forward transform NumPy's `fft` computes.
"""

from __future__ import annotations

import numpy as np

from . import sources as src
from .case import Launch, Local, RealCase

F32, U32, I32 = np.float32, np.uint32, np.int32


def _signal(size: int, batch: int) -> np.ndarray:
    r = np.random.default_rng(7)
    z = (r.standard_normal((size, batch)) + 1j * r.standard_normal((size, batch))).astype(np.complex64)
    return z


def _as_float2(z: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(z).view(F32).reshape(*z.shape, 2)


def _fft_ref(v: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    z = v["data"].view(np.complex64)[..., 0]
    return {"data": _as_float2(np.fft.fft(z.astype(np.complex128), axis=0).astype(np.complex64))}


def make_fft_local(small: bool) -> RealCase:
    bits, batch = (6, 16) if small else (10, 2048)
    # one batch per work-group: the kernel has no barrier between copying one batch back and
    # loading the next, so a group looping over batches races on its local array
    size, local, groups = 1 << bits, 128, batch
    data = _as_float2(_signal(size, batch))
    # ViennaCL's host gives 2*size float2 of local memory (its loop touches the upper half)
    launch = Launch("fft_radix2_local", ("data", Local(size * 16), U32(bits), U32(size), U32(batch), U32(batch),
                                         F32(-1.0)), (local * groups,), (local,))
    tol = 2e-3 * np.sqrt(size)
    return RealCase("viennacl_fft_local", "viennacl", "FFT",
                    src.read("viennacl", "auxiliary/matrix_col/align1/fft_radix2_local.cl"), "",
                    {"data": data}, ("data",), (launch,), f"{batch} x {size}-point", _fft_ref,
                    rtol=1e-3, atol=tol, restore=("data",))


def make_fft_passes(small: bool) -> RealCase:
    bits = 10 if small else 20
    size, batch, local = 1 << bits, 1, 128
    data = _as_float2(_signal(size, batch))
    source = src.assemble("viennacl", "auxiliary/matrix_col/align1/fft_reorder.cl",
                          "auxiliary/matrix_col/align1/fft_radix2.cl")
    threads = min(size // 2, 1 << 16)
    launches = [Launch("fft_reorder", ("data", U32(bits), U32(size), U32(batch), I32(batch)), (threads,), (local,))]
    launches += [Launch("fft_radix2", ("data", U32(s), U32(bits), U32(size), U32(batch), U32(batch), F32(-1.0)),
                        (threads,), (local,)) for s in range(bits)]
    return RealCase("viennacl_fft_passes", "viennacl", "FFT", source, "", {"data": data}, ("data",),
                    tuple(launches), f"{size}-point, {bits + 1} launches", _fft_ref,
                    rtol=1e-3, atol=2e-3 * np.sqrt(size), restore=("data",))
