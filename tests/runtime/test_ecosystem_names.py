"""The names and behaviours of PyOpenCL that loopy, reikna, pyFAI and silx use (issue 18),
each with PyOpenCL's semantics."""

from __future__ import annotations

import collections.abc
import re
import struct
from pathlib import Path

import numpy as np
import pytest

import oclpy as cl
import oclpy.array as cla
from oclpy import characterize, cltypes, invoker, tools
from oclpy.compyte import array as compyte_array
from oclpy.compyte import dtypes as compyte_dtypes

ROOT = Path(__file__).resolve().parents[2]


# -- versions ---------------------------------------------------------------------------

def test_version_is_pyopencl_style_and_oclpy_keeps_its_own():
    assert cl.version.VERSION == cl.VERSION == (2026, 1)
    assert cl.version.VERSION_TEXT == cl.VERSION_TEXT == cl.__version__ == "2026.1"
    assert cl.VERSION_STATUS == ""
    assert cl.VERSION >= (2024, 3) and not cl.VERSION < (2021, 2)  # silx's and loopy's checks
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{cl.OCLPY_VERSION_TEXT}"' in pyproject
    assert cl.OCLPY_VERSION == tuple(int(p) for p in cl.OCLPY_VERSION_TEXT.split("."))


# -- the dtype registry ---------------------------------------------------------------

@pytest.mark.parametrize("dtype, name", [
    (np.int8, "char"), (np.uint8, "uchar"), (np.int16, "short"), (np.uint16, "ushort"),
    (np.int32, "int"), (np.uint32, "uint"), (np.int64, "long"), (np.uint64, "ulong"),
    (np.float32, "float"), (np.float64, "double"), (np.float16, "half"),
    (np.complex64, "cfloat_t"), (np.complex128, "cdouble_t"), (cltypes.uint4, "uint4"),
    (cltypes.float2, "float2"), (cltypes.char16, "char16"),
])
def test_dtype_to_ctype_uses_opencl_spellings(dtype, name):
    assert tools.dtype_to_ctype(dtype) == name
    assert " " not in tools.dtype_to_ctype(dtype)  # silx passes it to -DDTYPE=


@pytest.mark.parametrize("name, dtype", [
    ("int2", cltypes.int2), ("float4", cltypes.float4), ("uchar16", cltypes.uchar16),
    ("cfloat_t", np.complex64), ("cdouble_t", np.complex128), ("unsigned char", np.uint8),
    ("unsigned int", np.uint32), ("long unsigned int", np.uint64), ("uint", np.uint32),
])
def test_get_or_register_dtype_knows_vector_complex_and_c_names(name, dtype):
    assert tools.get_or_register_dtype(name) == np.dtype(dtype)


def test_struct_names_register_once_and_conflicts_are_errors():
    dtype = np.dtype([("a", np.int32), ("b", np.float32)])
    got = tools.get_or_register_dtype(["eco_pair_t", "eco_pair_alias"], dtype)
    assert tools.get_or_register_dtype("eco_pair_alias") is got
    assert tools.dtype_to_ctype(dtype) == "eco_pair_t"
    with pytest.raises(RuntimeError, match="name 'eco_pair_t' already registered to different dtype"):
        tools.get_or_register_dtype("eco_pair_t", np.dtype([("x", np.int64)]))
    with pytest.raises(KeyError, match="unknown type name 'eco_not_a_type'"):
        tools.get_or_register_dtype("eco_not_a_type")
    with pytest.raises(ValueError, match="unable to map dtype"):
        tools.dtype_to_ctype(np.dtype([("never_registered", np.int8)]))
    with pytest.raises(ValueError, match="dtype may not be None"):
        tools.dtype_to_ctype(None)


def test_compyte_type_registry_is_the_one_registry():
    reg = compyte_dtypes.TYPE_REGISTRY
    assert isinstance(reg, compyte_dtypes.DTypeRegistry)
    assert reg.dtype_to_ctype(np.uint16) == "ushort"
    assert reg.get_or_register_dtype("float3") == np.dtype(cltypes.float3)
    dtype = np.dtype([("eco_r", np.float64)])
    reg.get_or_register_dtype("eco_reg_t", dtype)
    assert tools.dtype_to_ctype(dtype) == "eco_reg_t"
    assert compyte_dtypes.NAME_TO_DTYPE["eco_reg_t"] == dtype
    with pytest.warns(DeprecationWarning, match="register_dtype is deprecated"):
        with pytest.raises(RuntimeError, match="dtype 'int32' already registered \\(as 'int'"):
            compyte_dtypes.register_dtype(np.int32, "eco_int")


def test_compyte_as_strided_is_numpys():
    x = np.arange(6, dtype=np.int32)
    assert compyte_array.as_strided(x) is x
    view = compyte_array.as_strided(x, (2, 3), (12, 4))
    np.testing.assert_array_equal(view, x.reshape(2, 3))
    assert compyte_array.c_contiguous_strides(4, (2, 3)) == (12, 4)
    assert compyte_array.f_contiguous_strides(4, (2, 3)) == (4, 8)
    assert compyte_array.is_c_contiguous_strides((12, 4), 4, (2, 3))
    assert compyte_array.equal_strides((12, 4), (99, 4), (1, 3))


def test_invoker_buf_pack_typechars():
    assert invoker.BUF_PACK_TYPECHARS == ["c", "b", "B", "h", "H", "i", "I", "l", "L", "f", "d"]


# -- arrays -----------------------------------------------------------------------------

def test_array_takes_pyopencl_private_keywords(ctx, queue):
    """As loopy's generated invoker makes its outputs."""
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 24)
    ary = cla.Array(None, (2, 3), np.float32, strides=(12, 4), data=buf, _fast=True, _size=6,
                    _flags=None, _context=ctx, _queue=queue)
    assert ary.queue is queue and ary.context is ctx and ary.size == 6 and ary.base_data is buf
    ary.fill(2)
    np.testing.assert_array_equal(ary.get(), np.full((2, 3), 2, np.float32))
    no_queue = cla.Array(None, (4,), np.int32, _context=ctx)
    assert no_queue.queue is None and no_queue.nbytes == 16


def test_array_is_not_iterable(queue):
    ary = cla.to_device(queue, np.arange(3, dtype=np.int32))
    assert not isinstance(ary, collections.abc.Iterable)
    assert len(ary) == 3


class Tagged(cla.Array):
    """A subclass as reikna's and silx's wrap device arrays."""


def test_copy_views_and_arithmetic_keep_the_subclass(queue):
    ary = Tagged(queue, (4,), np.float32)
    ary.set(np.arange(4, dtype=np.float32))
    for result in (ary.copy(), ary + 1, ary * ary, -ary, ary[1:], ary.reshape(2, 2),
                   cla.empty_like(ary), ary.astype(np.float64)):
        assert type(result) is Tagged, result
    np.testing.assert_array_equal((ary + ary).get(), 2 * np.arange(4))


class ThreadArray(cla.Array):
    """reikna's Array: its own first argument (a thread, None when PyOpenCL makes one),
    no `order`; PyOpenCL makes results and views with `cls(None, ..., _context=, _queue=)`."""

    def __init__(self, thr, shape, dtype, strides=None, offset=0, nbytes=None, allocator=None,
                 data=None, events=None, _fast=False, _context=None, _queue=None, _size=None):
        assert thr is None or thr == "thread"
        super().__init__(_queue, shape, dtype, strides=strides, allocator=allocator, data=data,
                         offset=offset, events=events, _fast=_fast, _context=_context,
                         _queue=_queue, _size=_size)


def test_results_of_a_subclass_with_its_own_constructor(queue):
    ary = ThreadArray("thread", (2, 3), np.float32, _context=queue.context, _queue=queue)
    ary.set(np.arange(6, dtype=np.float32).reshape(2, 3))
    for result in (ary + ary, ary.copy(), ary[:, 1], ary.T, cla.empty_like(ary), ary.astype(np.int32)):
        assert type(result) is ThreadArray and result.queue is queue
    np.testing.assert_array_equal(ary[:, 1].get(), [1, 4])
    np.testing.assert_array_equal(ary.T.copy().get(), np.arange(6).reshape(2, 3).T)


def test_array_as_strided(queue):
    ary = cla.to_device(queue, np.arange(6, dtype=np.int32))
    view = cla.as_strided(ary, (2, 3), (12, 4))
    assert view.base_data is ary.base_data
    np.testing.assert_array_equal(view.get(), np.arange(6).reshape(2, 3))
    same = cla.as_strided(ary[2:])
    assert same.offset == 8 and same.shape == (4,)
    np.testing.assert_array_equal(same.get(), [2, 3, 4, 5])


def test_array_vec_is_cltypes_with_a_warning():
    with pytest.warns(DeprecationWarning, match="pyopencl.array.vec is deprecated"):
        assert cla.vec.float4 is cltypes.float4


# -- programs and kernels -------------------------------------------------------------

SRC = """
kernel void _private_name(global int *out, int a, float b) { out[get_global_id(0)] = a + (int) b; }
kernel void plain(global int *out) { out[get_global_id(0)] = 7; }
"""


def test_program_getattr_finds_kernels_starting_with_an_underscore(ctx, queue):
    prg = cl.Program(ctx, SRC).build()
    assert prg._private_name.function_name == "_private_name"
    assert not hasattr(prg, "_no_such_kernel")
    assert getattr(cl.Program(ctx, SRC), "_private_name", None) is None  # not built: not a kernel
    with pytest.raises(AttributeError):
        prg.__deepcopy__  # noqa: B018 - Python's own names are never kernels


def test_kernel_set_arg_multi_forms(ctx, queue):
    """What loopy's generated code calls: index/value pairs, raw bytes, packed scalars."""
    knl = cl.Program(ctx, SRC).build()._private_name
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    knl._set_arg_multi((0, out))
    knl._set_arg_buf_multi((1, struct.pack("i", 40)))
    knl._set_arg_buf_pack_multi((2, b"f", 2.0))
    cl.enqueue_nd_range_kernel(queue, knl, (4,), None)
    host = np.zeros(4, np.int32)
    cl.enqueue_copy(queue, host, out)
    np.testing.assert_array_equal(host, 42)
    knl._set_arg_buf_pack_multi((1, b"i", 1, 2, b"f", 0.0))
    cl.enqueue_nd_range_kernel(queue, knl, (4,), None)
    cl.enqueue_copy(queue, host, out)
    np.testing.assert_array_equal(host, 1)


def test_kernel_set_arg_multi_errors(ctx):
    knl = cl.Program(ctx, SRC).build()._private_name
    with pytest.raises(cl.LogicError, match="INVALID_ARG_INDEX - argument index 9 out of range"):
        knl._set_arg_buf_multi((9, b"\0\0\0\0"))
    with pytest.raises(cl.LogicError, match="INVALID_ARG_SIZE"):
        knl._set_arg_buf_multi((1, b"\0\0"))
    with pytest.raises(cl.LogicError, match="INVALID_ARG_SIZE"):
        knl._set_arg_buf_pack_multi((1, b"d", 1.0))


# -- device questions -------------------------------------------------------------------

def test_characterize_on_the_cpu(ctx):
    dev = ctx.devices[0]
    assert characterize.get_simd_group_size(dev, 4) == 1
    assert characterize.simultaneous_work_items_on_local_access(dev) == 1
    assert characterize.local_memory_access_granularity(dev) == 4
    with pytest.raises(RuntimeError, match="asking for a bank count is meaningless for cache-based lmem"):
        characterize.local_memory_bank_count(dev)
    assert "-cl-fast-relaxed-math" in characterize.get_fast_inaccurate_build_options(dev)


class FakeGPU:
    """oclpy's GPU is NVIDIA's (cuda): 32 banks of 4 bytes, 32 work-items at once."""

    type = cl.device_type.GPU
    local_mem_type = cl.device_local_mem_type.LOCAL


def test_characterize_local_bank_conflicts_on_a_gpu():
    dev = FakeGPU()
    assert characterize.local_memory_bank_count(dev) == 32
    assert characterize.get_simd_group_size(dev, 4) == 32
    assert characterize.why_not_local_access_conflict_free(dev, 4, (32, 33)) == (1, None)
    mult, why = characterize.why_not_local_access_conflict_free(dev, 4, (32, 32))
    assert mult == 32 and why.startswith("32x conflict on axis 1 (from right, 0-based): w.item 0 -> [0, 0]")
    mult, why = characterize.why_not_local_access_conflict_free(dev, 4, (32, 16), (32, 32))
    assert mult == 32 and why.endswith("access bank 0")
    with pytest.warns(characterize.CLCharacterizationWarning, match="itemsize != 4"):
        characterize.why_not_local_access_conflict_free(dev, 8, (32,))


def test_choose_devices(monkeypatch):
    monkeypatch.delenv("OCLPY_DEVICE", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    devices = cl.choose_devices(interactive=False)
    assert len(devices) == 1 and isinstance(devices[0], cl.Device)
    assert cl.choose_devices(answers=["0", "0"]) == [cl.get_platforms()[0].get_devices()[0]]
    monkeypatch.setenv("PYOPENCL_CTX", "0:0")
    assert cl.choose_devices() == [cl.get_platforms()[0].get_devices()[0]]
    with pytest.raises(cl.LogicError, match="device index 7 out of range"):
        cl.choose_devices(answers=["0", "7"])


def test_cpu_lists_64_bit_atomics(ctx):
    extensions = ctx.devices[0].extensions.split()
    assert "cl_khr_int64_base_atomics" in extensions and "cl_khr_int64_extended_atomics" in extensions
