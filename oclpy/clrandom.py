"""Random device arrays: `pyopencl.clrandom`'s PhiloxGenerator, ThreefryGenerator and rand.

The numbers are made on the device by counter-based generators (Salmon et
al., "Parallel random numbers: as easy as 1, 2, 3"): Philox4x32-10 and
Threefry4x32-20 from oclpy's bundled Random123 headers
(`oclpy/include/pyopencl-random123/`, included by `GENERATORS_SOURCE`;
checked against Random123's known-answer vectors in the tests). Block `k` of a
fill is the generator applied to (counter + k, key), giving four 32-bit
words; a generator object advances its 128-bit counter past the blocks
each fill used, so successive fills differ and a seed reproduces a stream.
`key`, `counter` and `seed` are taken as PyOpenCL takes them (key and
counter drawn from Python's `random.Random(seed)`).

- uniform floats lie in [a, b): float32 from 24 bits of a word, float64
  from 53 bits of two words (u in (0, 1), a + (b - a) * u, and a value
  that rounds up to b becomes the float just below b);
- integers are `a + word % (b - a)` (two words for 64-bit types);
- normal numbers are Box-Muller pairs of uniforms, times sigma plus mu.

`rand(queue, shape, dtype, a=0, b=1)` and `fill_rand` use one generator
per context. Vector dtypes (`cltypes.float4`, ...) are filled component by
component.
"""

from __future__ import annotations

import random
import threading
import warnings
import weakref
from typing import Any

import numpy as np

from . import cltypes
from .array.arith import contiguous, copy_strided, ctype
from .array.core import empty
from .kernelgen.launch import launch_size
from .kernelgen.programs import build_kernel

GENERATORS_SOURCE = r"""
#include <pyopencl-random123/philox.cl>
#include <pyopencl-random123/threefry.cl>

uint4 oclpy_philox4x32_10(uint4 c, uint2 k)
{
  philox4x32_ctr_t ctr = {{c.x, c.y, c.z, c.w}};
  philox4x32_key_t key = {{k.x, k.y}};
  ctr = philox4x32_R(10, ctr, key);
  return (uint4)(ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]);
}

uint4 oclpy_threefry4x32_20(uint4 c, uint4 k)
{
  threefry4x32_ctr_t ctr = {{c.x, c.y, c.z, c.w}};
  threefry4x32_key_t key = {{k.x, k.y, k.z, k.w}};
  ctr = threefry4x32_R(20, ctr, key);
  return (uint4)(ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]);
}

uint4 oclpy_counter_add(uint4 c, ulong blk)
{
  ulong a = (ulong) c.x + (blk & 0xffffffffUL);
  ulong b = (ulong) c.y + (blk >> 32) + (a >> 32);
  ulong d = (ulong) c.z + (b >> 32);
  return (uint4)((uint) a, (uint) b, (uint) d, c.w + (uint) (d >> 32));
}
"""

# per (distribution, value kind): values made from one block, and the C code writing them
_EMIT = {
    ("uniform", "f32"): (4, "for (int k = 0; k < 4; ++k) PUT(k, OCLPY_BELOW(shift + scale * "
                            "(((float) (w[k] >> 8) + 0.5f) * (1.0f / 16777216.0f))));"),
    ("uniform", "f64"): (2, "for (int k = 0; k < 2; ++k) PUT(k, OCLPY_BELOW(shift + scale * "
                            "(((double) ((((ulong) w[2*k]) << 21) | (w[2*k+1] >> 11)) + 0.5) "
                            "* (1.0 / 9007199254740992.0))));"),
    ("uniform", "i32"): (4, "for (int k = 0; k < 4; ++k) PUT(k, shift + (T) (w[k] % (uint) scale));"),
    ("uniform", "i64"): (2, "for (int k = 0; k < 2; ++k) PUT(k, shift + (T) (((((ulong) w[2*k]) "
                            "<< 32) | w[2*k+1]) % (ulong) scale));"),
    ("normal", "f32"): (4, "for (int k = 0; k < 4; k += 2) { "
                           "float u1 = ((float) (w[k] >> 8) + 0.5f) * (1.0f / 16777216.0f); "
                           "float u2 = ((float) (w[k+1] >> 8) + 0.5f) * (1.0f / 16777216.0f); "
                           "float r = sqrt(-2.0f * log(u1)); "
                           "PUT(k, shift + scale * r * cos(6.28318530717958647692f * u2)); "
                           "PUT(k + 1, shift + scale * r * sin(6.28318530717958647692f * u2)); }"),
    ("normal", "f64"): (2, "{ double u[2]; for (int k = 0; k < 2; ++k) u[k] = ((double) "
                           "((((ulong) w[2*k]) << 21) | (w[2*k+1] >> 11)) + 0.5) "
                           "* (1.0 / 9007199254740992.0); "
                           "double r = sqrt(-2.0 * log(u[0])); "
                           "PUT(0, shift + scale * r * cos(6.283185307179586476925 * u[1])); "
                           "PUT(1, shift + scale * r * sin(6.283185307179586476925 * u[1])); }"),
}


def _kind(dtype: np.dtype) -> str:
    if dtype.kind == "f" and dtype.itemsize in (4, 8):
        return f"f{dtype.itemsize * 8}"
    if dtype.kind in "iu" and dtype.itemsize <= 8:
        return "i64" if dtype.itemsize == 8 else "i32"
    raise NotImplementedError(f"oclpy.clrandom: random numbers of dtype {dtype} are not supported")


def _scale_dtype(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else np.dtype(np.int64)


class Random123GeneratorBase:
    """A counter-based generator; `fill_uniform`, `uniform`, `fill_normal`, `normal`."""

    generator_name = ""
    key_length = 0

    def __init__(self, context: Any, key: Any = None, counter: Any = None,
                 seed: Any = None) -> None:
        if key is not None and counter is not None and seed is not None:
            raise TypeError("seed is unused and may not be specified if both counter and key "
                            "are given")
        rng = random.Random(seed)
        info = np.iinfo(np.int32)
        if key is None:
            key = [rng.randrange(int(info.min), int(info.max) + 1)
                   for _ in range(self.key_length - 1)]
        if counter is None:
            counter = [rng.randrange(int(info.min), int(info.max) + 1) for _ in range(4)]
        self.context = context
        self.key = list(key)
        self.counter = list(counter)
        self.counter_max = int(info.max)
        self._lock = threading.Lock()

    def _key_words(self) -> list[np.uint32]:
        words = (list(self.key) + [0] * self.key_length)[:self.key_length]
        return [np.uint32(int(w) & 0xFFFFFFFF) for w in words]

    def _source(self, dtype: np.dtype, distribution: str) -> tuple[str, int]:
        per, emit = _EMIT[(distribution, _kind(dtype))]
        t, st = ctype(dtype), ctype(_scale_dtype(dtype))
        keys = ", ".join(f"uint k{i}" for i in range(self.key_length))
        key = ("(uint2)(k0, k1)" if self.key_length == 2 else "(uint4)(k0, k1, k2, k3)")
        pragma = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if "64" in _kind(dtype) else ""
        body = emit.replace("PUT(", "OCLPY_PUT(").replace("(T)", f"({t})")
        # rounding can carry shift + scale * u up to b itself: keep uniform floats below b
        below = "nextafter(hi, shift)" if dtype.kind == "f" else "hi"
        return (f"{pragma}{GENERATORS_SOURCE}\n#define OCLPY_PUT(k, v) if (base + (k) < n) "
                f"out[base + (k)] = ({t}) (v)\n"
                f"#define OCLPY_BELOW(v) (((v) < hi || scale <= 0) ? (v) : below)\n"
                f"__kernel void oclpy_generate(__global {t} *out, long n, {keys}, uint c0, "
                f"uint c1, uint c2, uint c3, {st} scale, {st} shift)\n{{\n"
                f"  uint4 ctr = (uint4)(c0, c1, c2, c3);\n"
                f"  {st} hi = shift + scale;\n"
                f"  {st} below = {below};\n"
                f"  for (long blk = get_global_id(0); blk * {per} < n; blk += get_global_size(0))\n"
                f"  {{\n    long base = blk * {per};\n"
                f"    uint4 r = oclpy_{self.generator_name}(oclpy_counter_add(ctr, (ulong) blk), {key});\n"
                f"    uint w[4] = {{r.x, r.y, r.z, r.w}};\n    {body}\n  }}\n}}\n"), per

    def _fill(self, distribution: str, ary: Any, scale: Any, shift: Any, queue: Any = None) -> Any:
        queue = queue or ary.queue
        if ary.dtype in cltypes.vec_type_to_scalar_and_count:
            return self._fill_vectors(distribution, ary, scale, shift, queue)
        dtype = ary.dtype
        source, per = self._source(dtype, distribution)
        knl = build_kernel(self.context, source, "oclpy_generate", None)
        target = ary if ary.flags.c_contiguous else empty(queue, ary.shape, dtype)
        blocks = -(-ary.size // per)
        with self._lock:
            counter = [np.uint32(int(c) & 0xFFFFFFFF) for c in self.counter]
            self._advance(blocks)
        if not ary.size:
            return None
        gsize, lsize = launch_size(queue, blocks)
        sd = _scale_dtype(dtype).type
        buf = _offset_buffer(target) if target.offset else target.base_data
        evt = knl(queue, gsize, lsize, buf, np.int64(ary.size), *self._key_words(), *counter, sd(scale), sd(shift),
                  wait_for=target.events or None)
        target.add_event(evt)
        if target is not ary:
            copy_strided(ary, target, queue)
        return evt

    def _fill_vectors(self, distribution: str, ary: Any, scale: Any, shift: Any,
                      queue: Any) -> Any:
        """Vector dtypes (cltypes.float4, ...): every component, padding included, is drawn."""
        base = np.dtype(cltypes.vec_type_to_scalar_and_count[ary.dtype][0])
        target = contiguous(ary)
        flat = target.reshape(target.size).view(base)
        evt = self._fill(distribution, flat, scale, shift, queue)
        if target is not ary:
            copy_strided(ary, target, queue)
        return evt

    def _advance(self, blocks: int) -> None:
        value = sum((int(c) & 0xFFFFFFFF) << (32 * i) for i, c in enumerate(self.counter))
        value = (value + blocks) % (1 << 128)
        self.counter = [int(np.uint32((value >> (32 * i)) & 0xFFFFFFFF).view(np.int32))
                        for i in range(4)]

    def fill_uniform(self, ary: Any, a: Any = 0, b: Any = 1, queue: Any = None) -> Any:
        if ary.dtype.kind in "iu" and b <= a:
            raise ValueError(f"uniform integers need a < b, got a={a}, b={b}")
        return self._fill("uniform", ary, scale=(b - a), shift=a, queue=queue)

    def uniform(self, *args: Any, **kwargs: Any) -> Any:
        a, b = kwargs.pop("a", 0), kwargs.pop("b", 1)
        result = empty(*args, **kwargs)
        self.fill_uniform(result, queue=result.queue, a=a, b=b)
        return result

    def fill_normal(self, ary: Any, mu: Any = 0, sigma: Any = 1, queue: Any = None) -> Any:
        base = cltypes.vec_type_to_scalar_and_count.get(ary.dtype, (ary.dtype, 1))[0]
        if np.dtype(base).kind != "f":
            raise NotImplementedError(f"oclpy.clrandom: normal numbers of dtype {ary.dtype} "
                                      f"are not supported")
        return self._fill("normal", ary, scale=sigma, shift=mu, queue=queue)

    def normal(self, *args: Any, **kwargs: Any) -> Any:
        mu, sigma = kwargs.pop("mu", 0), kwargs.pop("sigma", 1)
        result = empty(*args, **kwargs)
        self.fill_normal(result, queue=result.queue, mu=mu, sigma=sigma)
        return result


def _offset_buffer(ary: Any) -> Any:
    """A sub-buffer starting at the view's offset (the generator kernel takes a plain pointer)."""
    return ary.base_data.get_sub_region(ary.offset, ary.base_data.size - ary.offset)


class PhiloxGenerator(Random123GeneratorBase):
    generator_name = "philox4x32_10"
    key_length = 2


class ThreefryGenerator(Random123GeneratorBase):
    generator_name = "threefry4x32_20"
    key_length = 4


_generators: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_generators_lock = threading.Lock()


def _get_generator(context: Any) -> Random123GeneratorBase:
    with _generators_lock:
        gen = _generators.get(context)
        if gen is None:
            gen = _generators[context] = PhiloxGenerator(context)
        return gen


def fill_rand(result: Any, queue: Any = None, a: Any = 0, b: Any = 1) -> None:
    """Fill `result` with uniform values in [a, b)."""
    queue = queue or result.queue
    _get_generator(queue.context).fill_uniform(result, a=a, b=b, queue=queue)


def rand(queue: Any, shape: Any, dtype: Any, luxury: Any = None, a: Any = 0, b: Any = 1) -> Any:
    """An array of `shape` with uniform values of `dtype` in [a, b)."""
    if luxury is not None:
        warnings.warn("Specifying the 'luxury' argument is deprecated and will stop being supported in "
             "PyOpenCL 2018.x", stacklevel=2)
    result = empty(queue, shape, dtype)
    _get_generator(queue.context).fill_uniform(result, a=a, b=b, queue=queue)
    return result


def uniform(queue: Any, shape: Any, dtype: Any = np.float32, a: Any = 0, b: Any = 1,
            seed: Any = None) -> Any:
    """Uniform values in [a, b) (a fresh generator when `seed` is given, reproducibly)."""
    gen = PhiloxGenerator(queue.context, seed=seed) if seed is not None else \
        _get_generator(queue.context)
    return gen.uniform(queue, shape, dtype, a=a, b=b)


def normal(queue: Any, shape: Any, dtype: Any = np.float32, mu: Any = 0, sigma: Any = 1,
           seed: Any = None) -> Any:
    gen = PhiloxGenerator(queue.context, seed=seed) if seed is not None else \
        _get_generator(queue.context)
    return gen.normal(queue, shape, dtype, mu=mu, sigma=sigma)


__all__ = ["GENERATORS_SOURCE", "PhiloxGenerator", "Random123GeneratorBase",
           "ThreefryGenerator", "fill_rand", "normal", "rand", "uniform"]
