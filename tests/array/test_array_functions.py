"""oclpy.array module functions and reductions against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cl_array


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float64, np.int64])
def test_reductions(queue, dtype):
    host = (np.arange(1000) % 97).astype(dtype)
    host[500] = 120
    dev = cl_array.to_device(queue, host)
    assert cl_array.sum(dev).get() == host.sum(dtype=dtype)
    assert dev.sum().dtype == dtype
    assert cl_array.max(dev).get() == host.max() and cl_array.min(dev).get() == host.min()
    assert dev.max().shape == ()
    np.testing.assert_allclose(cl_array.dot(dev, dev).get(), np.dot(host, host), rtol=1e-6)
    np.testing.assert_allclose(dev.vdot(dev).get(), np.vdot(host, host), rtol=1e-6)
    assert cl_array.sum(dev, dtype=np.float64).dtype == np.float64


def test_reductions_on_views_and_with_initial(queue):
    host = np.linspace(-3, 5, 101)
    dev = cl_array.to_device(queue, host)
    assert cl_array.sum(dev[::-3]).get() == pytest.approx(host[::-3].sum())
    assert cl_array.max(dev, initial=7.0).get() == 7.0
    assert cl_array.min(dev, initial=-1.0).get() == -3.0
    assert cl_array.sum(dev, initial=2.0).get() == pytest.approx(host.sum() + 2)
    assert cl_array.sum(dev, slice=slice(10, 20)).get() == pytest.approx(host[10:20].sum())
    nan = cl_array.to_device(queue, np.array([1.0, np.nan, 3.0]))
    assert np.isnan(cl_array.max(nan).get()) and np.isnan(cl_array.min(nan).get())
    empty = cl_array.to_device(queue, np.array([], np.float64))
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which has no identity"):
        cl_array.max(empty)
    assert cl_array.min(empty, initial=4.0) == 4.0
    assert cl_array.sum(empty).get() == 0
    assert cl_array.any(empty) == 0 and cl_array.all(empty) == 1


def test_any_all(queue):
    dev = cl_array.to_device(queue, np.array([0, 0, 3, 0], np.int16))
    assert dev.any().get() == 1 and dev.all().get() == 0
    assert (dev >= 0).all().get() == 1 and cl_array.any(dev == 7).get() == 0


def test_subset_reductions(queue):
    host = np.arange(50, dtype=np.float32) - 20
    dev = cl_array.to_device(queue, host)
    subset = np.array([3, 49, 0, 7], np.int32)
    sub = cl_array.to_device(queue, subset)
    assert cl_array.subset_max(sub, dev).get() == host[subset].max()
    assert cl_array.subset_min(sub, dev).get() == host[subset].min()
    assert cl_array.subset_dot(sub, dev, dev).get() == pytest.approx(np.dot(host[subset], host[subset]))


def test_selection(queue):
    a = np.array([-2, 5, 0, 3, -1], np.int32)
    b = np.array([1.5, 2.5, 3.5, 4.5, 5.5], np.float32)
    da, db = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
    result = cl_array.if_positive(da, db, -db)
    np.testing.assert_array_equal(result.get(), np.where(a > 0, b, -b))
    assert result.dtype == np.float32
    np.testing.assert_array_equal(cl_array.if_positive(da, 1, 0.5).get(), np.where(a > 0, 1, 0.5))
    np.testing.assert_array_equal(cl_array.where(da, db, 0).get(), np.where(a != 0, b, 0))
    assert cl_array.if_positive(3, 1, 2) == 1 and cl_array.where(0, 1, 2) == 2
    np.testing.assert_array_equal(cl_array.maximum(da, db).get(), np.maximum(a, b))
    np.testing.assert_array_equal(cl_array.minimum(da, 1).get(), np.minimum(a, 1))
    assert cl_array.maximum(2.0, 3.0) == 3.0
    nan = cl_array.to_device(queue, np.array([np.nan, 1.0]))
    np.testing.assert_array_equal(cl_array.maximum(nan, 0.0).get(), np.maximum([np.nan, 1.0], 0.0))


def test_logical(queue):
    a, b = np.array([0, 1, 2, 0]), np.array([0.0, 0.0, 3.0, 1.0])
    da, db = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
    np.testing.assert_array_equal(cl_array.logical_and(da, db).get(), np.logical_and(a, b))
    np.testing.assert_array_equal(cl_array.logical_or(da, 0).get(), np.logical_or(a, 0))
    np.testing.assert_array_equal(cl_array.logical_not(db).get(), np.logical_not(b))
    assert cl_array.logical_and(1, 0, queue=queue).get() == 0


def test_stacking_and_diff(queue):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(9, dtype=np.int32).reshape(3, 3)
    da, db = cl_array.to_device(queue, a), cl_array.to_device(queue, b)
    result = cl_array.concatenate([da, db])
    assert result.dtype == np.float64
    np.testing.assert_array_equal(result.get(), np.concatenate([a, b]))
    np.testing.assert_array_equal(cl_array.concatenate([da, da[:, ::-1]], axis=1).get(),
                                  np.concatenate([a, a[:, ::-1]], axis=1))
    np.testing.assert_array_equal(cl_array.stack([da, da + 1], axis=-1).get(), np.stack([a, a + 1], -1))
    np.testing.assert_array_equal(cl_array.hstack([da, da]).get(), np.hstack([a, a]))
    with pytest.raises(ValueError, match="arrays must have the same shape except along the concatenation axis"):
        cl_array.concatenate([da, db], axis=1)
    with pytest.raises(ValueError, match="all input arrays must have the same shape"):
        cl_array.stack([da, db])
    d = np.array([1, 4, 9, 16, 25], np.int64)
    np.testing.assert_array_equal(cl_array.diff(cl_array.to_device(queue, d)).get(), np.diff(d))
    with pytest.raises(ValueError, match="multi-D arrays are not supported"):
        cl_array.diff(da)


def test_arange_astype_cumsum(queue):
    np.testing.assert_array_equal(cl_array.arange(queue, 5, dtype=np.int32).get(), np.arange(5))
    np.testing.assert_allclose(cl_array.arange(queue, 1.0, 3.0, 0.25).get(), np.arange(1.0, 3.0, 0.25))
    np.testing.assert_array_equal(cl_array.arange(queue, 10, step=-3, stop=0, dtype=np.int64).get(),
                                  np.arange(10, 0, -3))
    assert cl_array.arange(queue, 0, dtype=np.int32).size == 0
    with pytest.raises(TypeError, match="arange got multiple values for 'stop'"):
        cl_array.arange(queue, 0, 4, stop=5)
    floats = cl_array.to_device(queue, np.array([1.7, -2.2, 0.0, 3.0]))
    np.testing.assert_array_equal(floats.astype(np.int32).get(), np.array([1.7, -2.2, 0, 3]).astype(np.int32))
    np.testing.assert_array_equal(floats.astype(np.bool_).get(), np.array([1.7, -2.2, 0, 3]).astype(bool))
    host = (np.arange(3000) % 13).astype(np.int32)
    np.testing.assert_array_equal(cl_array.cumsum(cl_array.to_device(queue, host)).get(), np.cumsum(host))
    np.testing.assert_allclose(cl_array.cumsum(floats[::-1], output_dtype=np.float32).get(),
                               np.cumsum(np.array([3.0, 0, -2.2, 1.7])), rtol=1e-6)


def test_like_constructors(queue):
    dev = cl_array.to_device(queue, np.asfortranarray(np.ones((2, 3), np.float32)))
    for made in (cl_array.empty_like(dev), cl_array.zeros_like(dev), cl_array.ones_like(dev)):
        assert made.shape == dev.shape and made.dtype == dev.dtype and made.flags.f_contiguous
    assert not cl_array.zeros_like(dev).get().any() and cl_array.ones_like(dev).get().all()
    assert cl_array.zeros(queue, (3,), np.int8).get().tolist() == [0, 0, 0]


def test_real_dtype_complex_helpers(queue):
    dev = cl_array.to_device(queue, np.array([1.0, -2.0]))
    assert dev.conj() is dev and dev.real is dev
    np.testing.assert_array_equal(dev.imag.get(), [0, 0])


def test_multi_take_put(queue):
    a = cl_array.to_device(queue, np.arange(10, dtype=np.float32))
    b = cl_array.to_device(queue, np.arange(10, dtype=np.int64) * 2)
    idx = cl_array.to_device(queue, np.array([2, 7], np.int32))
    taken = cl_array.multi_take([a, b], idx)
    assert [t.get().tolist() for t in taken] == [[2.0, 7.0], [4, 14]]
    put = cl_array.multi_put(taken, idx, dest_shape=(10,))
    assert put[0].get()[[2, 7]].tolist() == [2.0, 7.0]


def test_function_errors(queue):
    a = cl_array.to_device(queue, np.arange(4, dtype=np.int32))
    with pytest.raises(ValueError, match="need at least one array to concatenate"):
        cl_array.concatenate([])
    with pytest.raises(ValueError, match="need at least one array to hstack"):
        cl_array.hstack([])
    with pytest.raises(ValueError, match="need at least one array to stack"):
        cl_array.stack([])
    with pytest.raises(ValueError, match="axis 3 is out of bounds for the result's 2 dimensions"):
        cl_array.stack([a, a], axis=3)
    with pytest.raises(ValueError, match="if_positive with a scalar criterion needs scalar branches"):
        cl_array.if_positive(1, a, a)
    with pytest.raises(ValueError, match="reverse\\(\\) needs a 1-dimensional array"):
        a.reshape(2, 2).reverse()
    assert a.reverse().get().tolist() == [3, 2, 1, 0]
    idx = cl_array.to_device(queue, np.array([0, 1], np.int32))
    with pytest.raises(TypeError, match="src_indices and dest_indices must have the same dtype"):
        cl_array.multi_take_put([a], idx, idx.astype(np.int64), dest_shape=(4,))
    out = cl_array.multi_take_put([a], idx, cl_array.to_device(queue, np.array([3, 2], np.int32)),
                                  dest_shape=(2,))
    assert out[0].get().tolist() == [3, 2]
    with pytest.raises(ValueError, match="no queue: pass queue= or an array that has one"):
        cl_array.logical_not(1)
