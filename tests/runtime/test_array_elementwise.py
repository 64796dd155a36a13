"""oclpy.array.Array's elementwise +, - and * (array with array, array with scalar)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cl_array


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64])
def test_elementwise_matches_numpy(queue, dtype):
    a_host = np.arange(1, 40, dtype=dtype)
    b_host = (np.arange(39, dtype=dtype) % 7).astype(dtype)
    a, b = cl_array.to_device(queue, a_host), cl_array.to_device(queue, b_host)
    np.testing.assert_array_equal((a + b).get(), a_host + b_host)
    np.testing.assert_array_equal((a - b).get(), a_host - b_host)
    np.testing.assert_array_equal((a * b).get(), a_host * b_host)
    np.testing.assert_array_equal((a + 2).get(), a_host + dtype(2))
    np.testing.assert_array_equal((100 - a).get(), dtype(100) - a_host)
    np.testing.assert_array_equal((3 * a).get(), dtype(3) * a_host)


def test_elementwise_errors(queue):
    a = cl_array.to_device(queue, np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes "
                                         r"\(4,\) and \(5,\)"):
        a + cl_array.to_device(queue, np.zeros(5, np.float32))
    mixed = a - cl_array.to_device(queue, np.zeros(4, np.int32))
    assert mixed.dtype == np.float64  # NumPy's promotion, as PyOpenCL does it
    with pytest.raises(TypeError, match="integers only"):
        cl_array.to_device(queue, np.zeros(4, np.float32)) & 1
    with pytest.raises(TypeError):
        a + [1, 2, 3, 4]
    assert (cl_array.empty(queue, 0, np.float32) + 1).shape == (0,)
