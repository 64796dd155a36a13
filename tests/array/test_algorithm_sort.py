"""oclpy.algorithm's RadixSort and KeyValueSorter against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cla
from oclpy.algorithm import KeyValueSorter, RadixSort


@pytest.mark.parametrize("bits", [1, 2, 4])
def test_radix_sort_matches_numpy(ctx, queue, bits):
    sort = RadixSort(ctx, "int *ary", key_expr="ary[i]", sort_arg_names=["ary"], bits_at_a_time=bits)
    for n in (1, 7, 3000):
        host = np.random.default_rng(n).integers(0, 2**16, n).astype(np.int32)
        (out,), _ = sort(cla.to_device(queue, host), key_bits=16)
        assert out.get().tolist() == np.sort(host).tolist()


def test_radix_sort_is_stable_and_carries_values(ctx, queue):
    sort = RadixSort(ctx, "uint *k, float *v, uint shift", key_expr="k[i] >> shift",
                     sort_arg_names=["k", "v"])
    keys = np.random.default_rng(1).integers(0, 64, 2000).astype(np.uint32)
    vals = np.arange(2000, dtype=np.float32)
    (sk, sv), _ = sort(cla.to_device(queue, keys), cla.to_device(queue, vals), np.uint32(2), key_bits=4)
    order = np.argsort(keys >> 2, kind="stable")
    assert sk.get().tolist() == keys[order].tolist() and sv.get().tolist() == vals[order].tolist()


def test_radix_sort_full_width_unsigned_keys(ctx, queue):
    sort = RadixSort(ctx, "ulong *ary", key_expr="ary[i]", sort_arg_names=["ary"], key_dtype=np.uint64)
    host = np.random.default_rng(2).integers(0, 2**64, 500, dtype=np.uint64)
    (out,), _ = sort(cla.to_device(queue, host))
    assert out.get().tolist() == np.sort(host).tolist()


def test_radix_sort_errors(ctx, queue):
    with pytest.raises(ValueError, match="bits_at_a_time must be 1 to 4, not 5"):
        RadixSort(ctx, "int *ary", "ary[i]", ["ary"], bits_at_a_time=5)
    with pytest.raises(ValueError, match="sort argument 'n' is not a pointer argument"):
        RadixSort(ctx, "int *ary, int n", "ary[i]", ["n"])
    sort = RadixSort(ctx, "int *ary", "ary[i]", ["ary"])
    with pytest.raises(TypeError, match="expected 1 arguments, got 2"):
        sort(1, 2)
    with pytest.raises(TypeError, match="invalid keyword argument"):
        sort(cla.zeros(queue, 4, np.int32), bits=3)
    with pytest.raises(TypeError, match="must be oclpy.array.Array objects"):
        sort(np.zeros(4, np.int32))


def test_key_value_sorter_groups_values_by_key(ctx, queue):
    rng = np.random.default_rng(7)
    nkeys = 50
    keys = rng.integers(0, nkeys - 5, 3000).astype(np.int32)  # the last keys have no values
    values = rng.integers(0, 10**6, 3000).astype(np.int64)
    starts, lists, _ = KeyValueSorter(ctx)(queue, cla.to_device(queue, keys), cla.to_device(queue, values),
                                           nkeys, starts_dtype=np.int32)
    starts, lists = starts.get(), lists.get()
    assert starts.dtype == np.int32 and len(starts) == nkeys + 1 and starts[-1] == 3000
    for k in range(nkeys):
        assert sorted(lists[starts[k]:starts[k + 1]].tolist()) == sorted(values[keys == k].tolist())


def test_key_value_sorter_errors(ctx, queue):
    kvs = KeyValueSorter(ctx)
    with pytest.raises(ValueError, match="keys and values must be 1-d arrays of one length"):
        kvs(queue, cla.zeros(queue, 4, np.int32), cla.zeros(queue, 5, np.int32), 3, np.int32)
    with pytest.raises(ValueError, match="keys must be integers, not float32"):
        kvs(queue, cla.zeros(queue, 4, np.float32), cla.zeros(queue, 4, np.int32), 3, np.int32)
