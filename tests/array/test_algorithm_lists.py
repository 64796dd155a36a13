"""oclpy.algorithm.ListOfListsBuilder: counts, starts, list contents, shared counts,
omitted and compressed lists, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy.array as cla
from oclpy.algorithm import ListOfListsBuilder

GENERATE = """
void generate(LIST_ARG_DECL USER_ARG_DECL index_type i)
{
  for (int j = 0; j < i % 3; ++j) { APPEND_vals(scale * i + j); APPEND_ids(i); }
}
"""


def _expected(n: int, scale: float) -> tuple[list[float], list[int], list[int]]:
    vals, ids, starts = [], [], [0]
    for i in range(n):
        vals += [scale * i + j for j in range(i % 3)]
        ids += [i] * (i % 3)
        starts.append(len(vals))
    return vals, ids, starts


def test_lists_starts_and_counts(ctx, queue):
    builder = ListOfListsBuilder(ctx, [("vals", np.float32), ("ids", np.int32)], GENERATE, "float scale")
    result, _ = builder(queue, 100, np.float32(2))
    vals, ids, starts = _expected(100, 2.0)
    assert result["vals"].count == result["ids"].count == len(vals)
    assert result["vals"].lists.get().tolist() == vals
    assert result["ids"].lists.get().tolist() == ids
    assert result["vals"].starts.get().tolist() == starts


def test_count_sharing_and_omitted_lists(ctx, queue):
    builder = ListOfListsBuilder(ctx, [("vals", np.float32), ("ids", np.int32)], GENERATE, "float scale",
                                 count_sharing={"ids": "vals"})
    result, _ = builder(queue, 50, np.float32(1))
    vals, ids, starts = _expected(50, 1.0)
    assert result["ids"].lists.get().tolist() == ids and result["ids"].count == len(ids)
    assert result["ids"].starts.get().tolist() == starts
    only, _ = ListOfListsBuilder(ctx, [("vals", np.float32), ("ids", np.int32)], GENERATE, "float scale")(
        queue, 50, np.float32(1), omit_lists=["vals"])
    assert set(only) == {"ids"} and only["ids"].lists.get().tolist() == ids


def test_eliminated_empty_lists(ctx, queue):
    builder = ListOfListsBuilder(ctx, [("vals", np.float32), ("ids", np.int32)], GENERATE, "float scale",
                                 eliminate_empty_output_lists=True)
    result, _ = builder(queue, 10, np.float32(1))
    ids = result["ids"]
    assert ids.nonempty_indices.get().tolist() == [1, 2, 4, 5, 7, 8]
    assert int(ids.num_nonempty_lists.get()) == 6
    assert ids.starts.get().tolist() == [0, 1, 3, 4, 6, 7, 9]
    assert ids.compressed_indices.get().tolist() == [0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 6]
    assert ids.lists.get().tolist() == [1, 2, 2, 4, 5, 5, 7, 8, 8]


def test_array_arguments_with_offset(ctx, queue):
    from oclpy.tools import VectorArg

    src = "void generate(LIST_ARG_DECL USER_ARG_DECL index_type i) { if (x[i] > 0) APPEND_pos(x[i]); }"
    host = np.array([0, 0, 3, -1, 5, 0, 7], np.int32)
    dev = cla.to_device(queue, host)
    builder = ListOfListsBuilder(ctx, [("pos", np.int32)], src, [VectorArg(np.int32, "x", with_offset=True)])
    result, _ = builder(queue, 5, dev[2:])
    assert result["pos"].lists.get().tolist() == [3, 5, 7]


def test_zero_objects(ctx, queue):
    builder = ListOfListsBuilder(ctx, [("vals", np.float32), ("ids", np.int32)], GENERATE, "float scale")
    result, _ = builder(queue, 0, np.float32(1))
    assert result["vals"].count == 0 and result["vals"].starts.get().tolist() == [0]


def test_errors(ctx, queue):
    lists = [("vals", np.float32), ("ids", np.int32)]
    with pytest.raises(ValueError, match="invalid list name 'nope' in eliminate_empty_output_lists"):
        ListOfListsBuilder(ctx, lists, GENERATE, "float scale", eliminate_empty_output_lists=["nope"])
    with pytest.raises(ValueError, match="invalid count_sharing entry 'ids': 'other'"):
        ListOfListsBuilder(ctx, lists, GENERATE, "float scale", count_sharing={"ids": "other"})
    builder = ListOfListsBuilder(ctx, lists, GENERATE, "float scale")
    with pytest.raises(ValueError, match="invalid list name 'nope' in omit_lists"):
        builder(queue, 4, np.float32(1), omit_lists=["nope"])
    with pytest.raises(TypeError, match="expected 1 arguments, got 0"):
        builder(queue, 4)
    with pytest.raises(TypeError, match="invalid keyword arguments: bogus"):
        builder(queue, 4, np.float32(1), bogus=1)
    arr = ListOfListsBuilder(ctx, [("v", np.int32)], "void generate(LIST_ARG_DECL USER_ARG_DECL index_type i) {}",
                             "int *x")
    with pytest.raises(ValueError, match="argument 0 is a multidimensional array"):
        arr(queue, 4, cla.zeros(queue, (2, 2), np.int32))


def test_offset_argument_given_a_buffer_is_an_error(ctx, queue):
    from oclpy.tools import VectorArg

    builder = ListOfListsBuilder(ctx, [("v", np.int32)], "void generate(LIST_ARG_DECL USER_ARG_DECL index_type i) {}",
                                 [VectorArg(np.int32, "x", with_offset=True)])
    with pytest.raises(ValueError, match="with_offset=True specified for argument 0 but the argument is not an array"):
        builder(queue, 4, cla.zeros(queue, 4, np.int32).data)
