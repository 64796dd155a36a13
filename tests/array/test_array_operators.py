"""oclpy.array operators against NumPy: arithmetic, comparisons, bitwise, unary, in-place, promotion."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import oclpy.array as cl_array

ARITH = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]
COMPARE = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


def _host(dtype, n=37, low=1):
    return (np.arange(n) % 11 + low).astype(dtype)


@pytest.mark.parametrize("op", ARITH + COMPARE)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_array_with_array(queue, op, dtype):
    a, b = _host(dtype), _host(dtype, low=2)[::-1].copy()
    if op is operator.pow and dtype == np.int32:
        b = b % 5
    result = op(cl_array.to_device(queue, a), cl_array.to_device(queue, b))
    expected = op(a, b)
    if op in COMPARE:
        assert result.dtype == np.int8  # PyOpenCL's comparison dtype
        np.testing.assert_array_equal(result.get(), expected.astype(np.int8))
    else:
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result.get(), expected, rtol=1e-6)


@pytest.mark.parametrize("op", ARITH)
def test_array_with_scalar_both_sides(queue, op):
    a = _host(np.float32)
    dev = cl_array.to_device(queue, a)
    for scalar in (3, 2.5, np.float64(1.5), np.int16(2)):
        for result, expected in ((op(dev, scalar), op(a, scalar)), (op(scalar, dev), op(scalar, a))):
            assert result.dtype == expected.dtype, (op, scalar)
            np.testing.assert_allclose(result.get(), expected, rtol=1e-6)


@pytest.mark.parametrize(("da", "db"), [(np.int8, np.uint8), (np.int32, np.float32),
                                        (np.uint32, np.int64), (np.int16, np.float64),
                                        (np.uint8, np.uint16)])
def test_promotion_matches_numpy(queue, da, db):
    a, b = _host(da), _host(db)
    for op in (operator.add, operator.mul, operator.truediv, operator.lt):
        result = op(cl_array.to_device(queue, a), cl_array.to_device(queue, b))
        expected = op(a, b)
        assert result.dtype == (np.int8 if op is operator.lt else expected.dtype)
        np.testing.assert_allclose(result.get(), expected, rtol=1e-6)


def test_integer_wraparound_and_negative_pow(queue):
    a = np.array([250, 3, 255], np.uint8)
    dev = cl_array.to_device(queue, a)
    np.testing.assert_array_equal((dev + np.uint8(10)).get(), a + np.uint8(10))
    b = cl_array.to_device(queue, np.array([2, -1, 1, 3], np.int32))
    np.testing.assert_array_equal((b ** 3).get(), np.array([8, -1, 1, 27]))
    np.testing.assert_array_equal((b ** cl_array.to_device(queue, np.array([-1, -1, -2, 0], np.int32))).get(),
                                  [0, -1, 1, 1])


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor, operator.lshift,
                                operator.rshift])
def test_bitwise(queue, op):
    a, b = _host(np.int32, low=5), _host(np.int32, low=0) % 4
    np.testing.assert_array_equal(op(cl_array.to_device(queue, a), cl_array.to_device(queue, b)).get(),
                                  op(a, b))
    np.testing.assert_array_equal(op(cl_array.to_device(queue, a), 3).get(), op(a, 3))
    np.testing.assert_array_equal((~cl_array.to_device(queue, a)).get(), ~a)


def test_bitwise_on_floats_is_an_error(queue):
    with pytest.raises(TypeError, match="unsupported operand dtype float32 for '&': integers only"):
        cl_array.to_device(queue, np.ones(3, np.float32)) & 1
    with pytest.raises(TypeError, match="bitwise not is for integer arrays, not float32"):
        ~cl_array.to_device(queue, np.ones(3, np.float32))


def test_unary(queue):
    a = np.array([-3.5, 0, 2.25], np.float32)
    dev = cl_array.to_device(queue, a)
    np.testing.assert_array_equal((-dev).get(), -a)
    np.testing.assert_array_equal(abs(dev).get(), np.abs(a))
    assert (+dev) is dev
    i = np.array([-128, -5, 7], np.int8)
    np.testing.assert_array_equal(abs(cl_array.to_device(queue, i)).get(), np.abs(i))
    u = np.array([0, 5], np.uint16)
    np.testing.assert_array_equal(abs(cl_array.to_device(queue, u)).get(), u)


def test_inplace_operators(queue):
    a = _host(np.float32)
    dev = cl_array.to_device(queue, a)
    same = dev
    dev += 2
    dev *= cl_array.to_device(queue, a)
    dev -= 1
    dev /= 4
    assert dev is same
    np.testing.assert_allclose(dev.get(), ((a + 2) * a - 1) / 4, rtol=1e-6)
    ints = cl_array.to_device(queue, _host(np.int32))
    with pytest.raises(TypeError, match="Cannot cast ufunc '/' output from float64 to int32 "
                                        "with casting rule 'same_kind'"):
        ints /= 2
    ints <<= 1
    np.testing.assert_array_equal(ints.get(), _host(np.int32) << 1)


def test_inplace_on_a_strided_view_writes_through(queue):
    a = np.arange(20, dtype=np.float32)
    dev = cl_array.to_device(queue, a)
    view = dev[::3]
    view += 100
    a[::3] += 100
    np.testing.assert_array_equal(dev.get(), a)


def test_device_scalar_broadcasts(queue):
    a = _host(np.float32)
    dev = cl_array.to_device(queue, a)
    s = cl_array.to_device(queue, np.array(2.0, np.float32))
    np.testing.assert_allclose((dev * s).get(), a * 2)
    np.testing.assert_allclose((s - dev).get(), 2 - a)


def test_bool_rules(queue):
    assert bool(cl_array.to_device(queue, np.array([3])))
    assert not bool(cl_array.to_device(queue, np.array(0.0)))
    with pytest.raises(ValueError, match="The truth value of an array with more than one element "
                                         "is ambiguous"):
        bool(cl_array.to_device(queue, np.ones(2)))


def test_operand_errors(queue, ctx):
    import oclpy as cl

    a = cl_array.to_device(queue, np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes "
                                         r"\(4,\) and \(2, 2\)"):
        a + cl_array.to_device(queue, np.zeros((2, 2), np.float32))
    other = cl.CommandQueue(cl.Context(dev_type=cl.device_type.CPU))
    with pytest.raises(ValueError, match="the arrays belong to different contexts"):
        a + cl_array.to_device(other, np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="the array has no queue; call .with_queue"):
        a.with_queue(None) + 1
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(OverflowError):
        cl_array.to_device(queue, np.zeros(2, np.uint8)) + 300


def test_comparison_with_scalars_and_nan(queue):
    a = np.array([1.0, np.nan, 3.0], np.float64)
    dev = cl_array.to_device(queue, a)
    np.testing.assert_array_equal((dev == 3).get(), (a == 3).astype(np.int8))
    np.testing.assert_array_equal((dev != dev).get(), (a != a).astype(np.int8))
    np.testing.assert_array_equal((2 < dev).get(), (2 < a).astype(np.int8))
