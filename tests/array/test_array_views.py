"""oclpy.array views and transfers: indexing, reshape, view, transpose, setitem, strided get/set."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cl_array


@pytest.fixture()
def pair(queue):
    host = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    return host, cl_array.to_device(queue, host)


@pytest.mark.parametrize("index", [1, -1, (1, 2), (slice(None), 1), (slice(None, None, 2),),
                                   (slice(None, None, -1), slice(1, 4, 2)), (Ellipsis, 3),
                                   (None, 1), (slice(2, 0, -1), None, Ellipsis, slice(None, None, -2)),
                                   (slice(5, 10),), (1, 2, 3)])
def test_basic_indexing_matches_numpy(pair, index):
    host, dev = pair
    view = dev[index]
    expected = host[index]
    assert view.shape == expected.shape
    assert view.strides == expected.strides
    np.testing.assert_array_equal(view.get(), expected)
    assert view.base_data is dev.base_data


def test_attributes(pair):
    host, dev = pair
    assert (dev.shape, dev.strides, dev.size, dev.nbytes, dev.ndim, dev.itemsize) == \
        (host.shape, host.strides, host.size, host.nbytes, host.ndim, host.itemsize)
    assert dev.flags.c_contiguous and not dev.flags.f_contiguous and dev.flags.forc
    assert dev.offset == 0 and dev.data is dev.base_data
    view = dev[1]
    assert view.offset == 80
    with pytest.raises(cl_array.ArrayHasOffsetError):
        view.data
    assert len(dev) == 3 and [v.shape for v in dev] == [(4, 5)] * 3
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(dev[0, 0, 0])


def test_index_errors(pair):
    _, dev = pair
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        dev[3]
    with pytest.raises(IndexError, match="too many indices for array: array is 3-dimensional, but 4 were indexed"):
        dev[0, 0, 0, 0]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        dev[..., 0, ...]
    with pytest.raises(IndexError, match="only integers, slices, ellipsis, None and integer arrays are valid indices, not float"):
        dev[1.5]


def test_reshape_ravel_squeeze_transpose(pair):
    host, dev = pair
    np.testing.assert_array_equal(dev.reshape(12, 5).get(), host.reshape(12, 5))
    np.testing.assert_array_equal(dev.reshape((-1, 3)).get(), host.reshape(-1, 3))
    np.testing.assert_array_equal(dev.ravel().get(), host.ravel())
    np.testing.assert_array_equal(dev.T.get(), host.T)
    np.testing.assert_array_equal(dev.transpose((1, 0, 2)).get(), host.transpose(1, 0, 2))
    np.testing.assert_array_equal(dev[:, None, 1:2].squeeze().get(), host[:, None, 1:2].squeeze())
    np.testing.assert_array_equal(cl_array.reshape(dev, (5, 12), order="F").get(),
                                  host.reshape((5, 12), order="F"))
    # a non-contiguous view that splits an axis needs no copy (as in NumPy)
    part = dev[..., 1:5].reshape(3, 4, 2, 2)
    np.testing.assert_array_equal(part.get(), host[..., 1:5].reshape(3, 4, 2, 2))
    with pytest.raises(ValueError, match="cannot reshape array of size 60 into shape \\(7, 9\\)"):
        dev.reshape(7, 9)
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        dev.reshape(-1, -1)
    np.testing.assert_array_equal(dev.T.reshape(60).get(), host.T.reshape(60))  # a copy
    np.testing.assert_array_equal(dev[:, ::2].reshape(-1, order="F").get(),
                                  host[:, ::2].reshape(-1, order="F"))
    with pytest.raises(ValueError, match="axes don't match array"):
        dev.transpose((0, 0, 1))


def test_view_dtype(pair):
    host, dev = pair
    np.testing.assert_array_equal(dev.view(np.int32).get(), host.view(np.int32))
    np.testing.assert_array_equal(dev.view(np.int16).get(), host.view(np.int16))
    with pytest.raises(ValueError, match="its size must be a divisor"):
        dev.view(np.float64)
    with pytest.raises(ValueError, match="the array must be C-contiguous"):
        dev.T.view(np.int16)


def test_setitem(queue):
    host = np.zeros((4, 6), np.int32)
    dev = cl_array.to_device(queue, host)
    dev[1] = 7
    host[1] = 7
    dev[:, ::2] = np.arange(12, dtype=np.int32).reshape(4, 3)
    host[:, ::2] = np.arange(12).reshape(4, 3)
    dev[2:, 1] = cl_array.to_device(queue, np.array([-1, -2], np.int32))
    host[2:, 1] = [-1, -2]
    dev[3, 5] = cl_array.to_device(queue, np.array(99, np.int64))
    host[3, 5] = 99
    dev[0, 1:3] = [5, 6]
    host[0, 1:3] = [5, 6]
    np.testing.assert_array_equal(dev.get(), host)
    with pytest.raises(ValueError, match="cannot assign an array of shape \\(3,\\) to a view of shape \\(2,\\)"):
        dev[0, :2] = cl_array.to_device(queue, np.ones(3, np.int32))


def test_fancy_index_take_and_put(queue):
    host = np.arange(10, dtype=np.float64) * 1.5
    dev = cl_array.to_device(queue, host)
    idx = cl_array.to_device(queue, np.array([9, 0, 3, 3], np.int32))
    np.testing.assert_array_equal(dev[idx].get(), host[[9, 0, 3, 3]])
    dev[cl_array.to_device(queue, np.array([1, 2], np.int64))] = cl_array.to_device(queue, np.array([-1.0, -2.0]))
    host[[1, 2]] = [-1, -2]
    dev[cl_array.to_device(queue, np.array([4], np.int32))] = 0.5
    host[4] = 0.5
    np.testing.assert_array_equal(dev.get(), host)
    with pytest.raises(TypeError, match="index arrays must be of integer dtype, not float32"):
        cl_array.take(dev, cl_array.to_device(queue, np.zeros(2, np.float32)))


def test_strided_transfers_and_fortran_order(queue):
    host = np.arange(24, dtype=np.int16).reshape(4, 6)
    dev = cl_array.to_device(queue, host)
    view = dev[1:, ::-2]
    np.testing.assert_array_equal(view.get(), host[1:, ::-2])
    view.set(np.full((3, 3), -4, np.int16))
    host[1:, ::-2] = -4
    np.testing.assert_array_equal(dev.get(), host)
    copied = view.copy()
    assert copied.flags.c_contiguous and copied.base_data is not dev.base_data
    f_host = np.asfortranarray(host)
    f_dev = cl_array.to_device(queue, f_host)
    assert f_dev.flags.f_contiguous and f_dev.strides == f_host.strides
    np.testing.assert_array_equal(f_dev.get(), f_host)
    np.testing.assert_array_equal((f_dev + 1).get(), host + 1)
    view.fill(3)
    host[1:, ::-2] = 3
    np.testing.assert_array_equal(dev.get(), host)


def test_set_get_errors(queue):
    dev = cl_array.empty(queue, (2, 3), np.float32)
    with pytest.raises(ValueError, match="ary and self must be the same shape: \\(3,\\) vs \\(2, 3\\)"):
        dev.set(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="ary and self must have the same dtype: float64 vs float32"):
        dev.set(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="'ary' has non-matching type or shape"):
        dev.get(ary=np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        cl_array.empty(queue, (2, -1), np.float32)
    with pytest.raises(ValueError, match="shape must be an int or a sequence of ints"):
        cl_array.empty(queue, (2.5,), np.float32)
    with pytest.raises(TypeError, match="oclpy arrays do not convert to numpy implicitly"):
        np.asarray(dev)


def test_queue_association_and_async(queue, ctx):
    import oclpy as cl

    dev = cl_array.zeros(queue, 5, np.int32)
    assert dev.copy().queue is queue and dev.copy(queue=None).queue is None
    q2 = cl.CommandQueue(ctx)
    assert dev.with_queue(q2).queue is q2
    other = cl.CommandQueue(cl.Context(dev_type=cl.device_type.CPU))
    with pytest.raises(ValueError, match="the queue belongs to another context than the array"):
        dev.with_queue(other)
    host, evt = (dev + 2).get_async()
    evt.wait()
    np.testing.assert_array_equal(host, np.full(5, 2))
    assert "no queue" in repr(dev.with_queue(None))
    assert str(dev) == str(np.zeros(5, np.int32))


def test_empty_arrays(queue):
    empty = cl_array.empty(queue, (0, 3), np.float32)
    assert empty.base_data is None and empty.get().shape == (0, 3)
    assert (empty + 1).shape == (0, 3)
    assert empty.fill(2) is empty


def test_array_on_a_context_has_no_queue(ctx):
    dev = cl_array.Array(ctx, (3,), np.float32)
    assert dev.queue is None and dev.context is ctx
    with pytest.raises(ValueError, match="the array has no queue; call .with_queue"):
        dev.fill(1)
    with pytest.raises(ValueError, match="an Array needs a queue or a context"):
        cl_array.Array(None, (3,), np.float32)
    with pytest.raises(ValueError, match="order must be 'C' or 'F', not 'K'"):
        cl_array.Array(ctx, (3,), np.float32, order="K")


def test_complex_arrays(queue):
    host = (np.arange(8) - 3 + 1j * np.arange(8)[::-1]).astype(np.complex64)
    real = np.linspace(1, 2, 8).astype(np.float32)
    dev, dreal = cl_array.to_device(queue, host), cl_array.to_device(queue, real)
    for result, expected in [(dev * dreal, host * real), (dev / dev[::-1].copy(), host / host[::-1]),
                             (2j * dreal, 2j * real), (dev ** 2, host ** 2), (-dev, -host),
                             (abs(dev), np.abs(host)), (dev.conj(), host.conj()),
                             (dev.real, host.real), (dev.imag, host.imag),
                             (dev.astype(np.complex128), host.astype(np.complex128))]:
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result.get(), expected, rtol=1e-6)
    assert cl_array.sum(dev).get() == pytest.approx(host.sum(), rel=1e-6)
    assert cl_array.vdot(dev, dev).get() == pytest.approx(np.vdot(host, host), rel=1e-6)
    assert (dev == dev).all().get() == 1
    with pytest.raises(TypeError, match="'<' is not supported for complex arrays"):
        dev < dev
    with pytest.raises(TypeError, match="unsupported dtype for max: complex64"):
        cl_array.max(dev)
