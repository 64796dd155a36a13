"""oclpy.bitonic_sort.BitonicSort against NumPy's sort, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cla
from oclpy.bitonic_sort import BitonicSort


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sorts_along_any_axis(ctx, queue, dtype, axis):
    host = (np.random.default_rng(5).normal(size=(4, 64, 2)) * 50).astype(dtype)
    dev = cla.to_device(queue, host)
    out, _ = BitonicSort(ctx)(dev, axis=axis)
    assert out is dev
    assert np.array_equal(out.get(), np.sort(host, axis=axis))


def test_argsort_permutes_the_index_array(ctx, queue):
    host = np.random.default_rng(6).permutation(1024).astype(np.float32)
    keys = cla.to_device(queue, host)
    idx = cla.arange(queue, 0, 1024, 1, dtype=np.int32)
    BitonicSort(ctx)(keys, idx=idx)
    assert np.array_equal(idx.get(), np.argsort(host))


def test_empty_and_length_one(ctx, queue):
    for n in (0, 1):
        dev = cla.to_device(queue, np.arange(n, dtype=np.int32))
        out, evt = BitonicSort(ctx)(dev)
        evt.wait()
        assert out.get().tolist() == list(range(n))


@pytest.mark.parametrize("make, kwargs, message", [
    (lambda q: cla.zeros(q, (6,), np.int32), {}, r"length along the axis \(6\) must be a power of two"),
    (lambda q: cla.zeros(q, (4,), np.int32), {"axis": 2}, "axis 2 out of range"),
    (lambda q: cla.zeros(q, (4,), np.complex64), {}, "cannot sort dtype complex64"),
    (lambda q: cla.zeros(q, (8,), np.int32)[2:6], {}, "must be C-contiguous and start"),
])
def test_errors(ctx, queue, make, kwargs, message):
    with pytest.raises(ValueError, match=message):
        BitonicSort(ctx)(make(queue), **kwargs)


def test_index_of_another_shape_is_an_error(ctx, queue):
    with pytest.raises(ValueError, match="idx must be a C-contiguous array of the keys' shape"):
        BitonicSort(ctx)(cla.zeros(queue, (4,), np.int32), idx=cla.zeros(queue, (8,), np.int32))
