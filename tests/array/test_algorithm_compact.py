"""oclpy.algorithm's copy_if, remove_if, partition and unique against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cla
from oclpy.algorithm import compaction, copy_if, partition, remove_if, unique


@pytest.fixture()
def data(queue):
    host = np.random.default_rng(3).integers(0, 100, 5000).astype(np.int32)
    return host, cla.to_device(queue, host)


def test_copy_if_keeps_matching_elements_in_order(data):
    host, dev = data
    out, count, _ = copy_if(dev, "ary[i] < 42")
    n = int(count.get())
    assert count.dtype == np.uint32 and count.shape == ()
    assert out.shape == dev.shape and n == (host < 42).sum()
    assert out.get()[:n].tolist() == host[host < 42].tolist()


def test_remove_if_with_scalar_and_array_extra_args(data, queue):
    host, dev = data
    weights = np.arange(len(host), dtype=np.int32)
    out, count, _ = remove_if(dev, "ary[i] < lim || w[i] % 2", preamble="/* mine */",
                              extra_args=[("lim", np.int32(30)), ("w", cla.to_device(queue, weights))])
    keep = ~((host < 30) | (weights % 2 == 1))
    assert out.get()[:int(count.get())].tolist() == host[keep].tolist()


def test_partition_splits_stably(data):
    host, dev = data
    yes, no, count, _ = partition(dev, "ary[i] % 3 == 0")
    n = int(count.get())
    assert yes.get()[:n].tolist() == host[host % 3 == 0].tolist()
    assert no.get()[:len(host) - n].tolist() == host[host % 3 != 0].tolist()


def test_unique_of_sorted_and_custom_equality(queue):
    host = np.sort(np.random.default_rng(4).normal(size=3000).round(1)).astype(np.float64)
    out, count, _ = unique(cla.to_device(queue, host))
    assert out.get()[:int(count.get())].tolist() == np.unique(host).tolist()
    ints = np.array([1, 2, 3, 11, 12, 25, 5, 7], np.int32)
    out, count, _ = unique(cla.to_device(queue, ints), is_equal_expr="a / 10 == b / 10")
    assert out.get()[:int(count.get())].tolist() == [1, 11, 25, 5]


def test_single_element_arrays(queue):
    one = cla.to_device(queue, np.array([7], np.int32))
    out, count, _ = copy_if(one, "ary[i] == 7")
    assert int(count.get()) == 1 and out.get().tolist() == [7]
    out, count, _ = unique(one)
    assert int(count.get()) == 1


def test_extra_arg_of_unknown_kind_is_an_error(data):
    _, dev = data
    with pytest.raises(RuntimeError, match="argument 'lim' not understood"):
        copy_if(dev, "ary[i] < lim", extra_args=[("lim", 42)])


def test_kernels_are_kept_per_expression(data):
    _, dev = data
    copy_if(dev, "ary[i] > 5")
    before = compaction.scan_kernels.count(dev.context)
    copy_if(dev, "ary[i] > 5")
    assert compaction.scan_kernels.count(dev.context) == before
