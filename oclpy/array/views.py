"""Shape and stride arithmetic for oclpy.array views (no device work here).

`index_view(shape, strides, itemsize, index)` resolves a NumPy basic index
(ints, slices with any step, Ellipsis, None/np.newaxis) to the view's
(shape, strides, byte offset); `reshape_strides` finds strides for a new
shape without copying when NumPy could (splitting and merging axes whose
strides allow it), else returns None; `c_strides`/`f_strides` are the
contiguous layouts and `contiguity` reports (C, F) contiguity.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


def as_shape(shape: Any) -> tuple[int, ...]:
    """A shape tuple from an int, numpy integer or sequence; rejects negative sizes."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(int(operator.index(s)) for s in shape)
    except TypeError:
        raise ValueError(f"shape must be an int or a sequence of ints, not {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"negative dimensions are not allowed: {dims}")
    return dims


def c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return tuple(reversed(strides))


def f_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for dim in shape:
        strides.append(step)
        step *= max(dim, 1)
    return tuple(strides)


def contiguity(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int
               ) -> tuple[bool, bool]:
    """(C-contiguous, F-contiguous), ignoring the strides of length-1 axes, as NumPy does."""
    if any(d == 0 for d in shape):
        return True, True
    keep = [(d, s) for d, s in zip(shape, strides) if d != 1]
    c_ok = all(s == e for (_, s), e in zip(keep, c_strides(tuple(d for d, _ in keep), itemsize)))
    f_ok = all(s == e for (_, s), e in zip(keep, f_strides(tuple(d for d, _ in keep), itemsize)))
    return c_ok, f_ok


def _expand(index: Any, ndim: int) -> list[Any]:
    items = list(index) if isinstance(index, tuple) else [index]
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for it in items if it is not None and it is not Ellipsis)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, "
                         f"but {used} were indexed")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (ndim - used)
    else:
        items += [slice(None)] * (ndim - used)
    return items


def index_view(shape: tuple[int, ...], strides: tuple[int, ...], index: Any
               ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(shape, strides, byte offset) of the basic-indexed view `index`."""
    new_shape: list[int] = []
    new_strides: list[int] = []
    offset, axis = 0, 0
    for item in _expand(index, len(shape)):
        if item is None:
            new_shape.append(1)
            new_strides.append(0)
            continue
        dim, stride = shape[axis], strides[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(dim)
            count = len(range(start, stop, step))
            offset += start * stride if count else 0
            new_shape.append(count)
            new_strides.append(stride * step)
        else:
            try:
                k = operator.index(item)
            except TypeError:
                raise IndexError(f"only integers, slices, ellipsis, None and integer arrays "
                                 f"are valid indices, not {type(item).__name__}") from None
            if not -dim <= k < dim:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {dim}")
            offset += (k % dim) * stride
        axis += 1
    return tuple(new_shape), tuple(new_strides), offset


def resolve_reshape(size: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with its one -1 filled in; ValueError when the sizes differ."""
    unknown = [k for k, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if any(d < -1 for d in shape):
        raise ValueError(f"negative dimensions not allowed: {shape}")
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
        shape = shape[:unknown[0]] + (size // known,) + shape[unknown[0] + 1:]
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {shape}")
    return shape


def reshape_strides(shape: tuple[int, ...], strides: tuple[int, ...], new: tuple[int, ...],
                    itemsize: int, order: str = "C") -> tuple[int, ...] | None:
    """Strides for viewing (shape, strides) as `new` in `order`, or None when a copy is needed."""
    if int(np.prod(new, dtype=np.int64)) == 0 or not shape:
        return (c_strides if order == "C" else f_strides)(new, itemsize)
    if order == "F":
        back = reshape_strides(shape[::-1], strides[::-1], new[::-1], itemsize, "C")
        return None if back is None else back[::-1]
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    result: list[int] = []
    oi, ni = 0, 0
    while ni < len(new):
        if new[ni] == 1:
            result.append(itemsize)
            ni += 1
            continue
        if oi >= len(old):
            return None
        # group old axes and new axes until the products match
        o_prod, n_prod, o_end, n_end = old[oi][0], new[ni], oi + 1, ni + 1
        while o_prod != n_prod:
            if o_prod < n_prod:
                if o_end >= len(old):
                    return None
                o_prod *= old[o_end][0]
                o_end += 1
            else:
                while n_end < len(new) and new[n_end] == 1:
                    n_end += 1
                if n_end >= len(new):
                    return None
                n_prod *= new[n_end]
                n_end += 1
        for k in range(oi, o_end - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        stride = old[o_end - 1][1]
        group = []
        for d in reversed(new[ni:n_end]):
            group.append(stride)
            stride *= d
        result.extend(reversed(group))
        oi, ni = o_end, n_end
    return tuple(result) if oi == len(old) else None
