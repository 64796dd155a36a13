"""Device arrays with NumPy-like arithmetic: the API of `pyopencl.array`.

`Array(queue, shape, dtype)` is a strided view (`shape`, `strides` in bytes,
byte `offset`) into one Buffer (`base_data`; None for an empty array, as in
PyOpenCL). Views (indexing with ints, slices of any step, Ellipsis and
np.newaxis; `reshape`, `ravel`, `view`, `squeeze`, `transpose`) share the
buffer. Transfers (`get`, `set`, `copy`) of a non-contiguous view go through
a strided copy kernel. Arithmetic, comparisons and casts are generated
elementwise kernels (arith.py); `sum`, `dot`, `min`, `max`, `any`, `all`
are map-reduce kernels (reductions.py). Both sit below this module and make
their results of the class of the array they are given. Result dtypes
follow NumPy's promotion rules (PyOpenCL's `_get_common_dtype`);
comparisons give int8 arrays, as PyOpenCL's do. Complex arrays compute as
float2/double2 (complex.py): arithmetic, `**`, `==`/`!=`, abs,
conj/real/imag, sum and dot; ordering comparisons and min/max of complex
values raise TypeError. The module functions (`where`, `concatenate`,
`cumsum`, ...) are in functions.py, above this one.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Iterator

import numpy as np

import oclpy as cl

from . import arith as elw
from . import complex as array_complex
from . import reductions
from .arith import contiguous, copy_strided
from .views import as_shape, c_strides, contiguity, f_strides, index_view, reshape_strides, resolve_reshape
from ..elementwise import get_elwise_kernel
from ..kernelgen.launch import DeviceArray


class ArrayHasOffsetError(ValueError):
    """`.data` of a view that does not start at its buffer's first byte."""

    def __init__(self, val: str = "The operation you are attempting does not yet support "
                 "arrays that start at an offset from the beginning of their buffer.") -> None:
        super().__init__(val)


class _Flags:
    def __init__(self, ary: Array) -> None:
        self.c_contiguous, self.f_contiguous = contiguity(ary.shape, ary.strides,
                                                          ary.dtype.itemsize)
        self.forc = self.c_contiguous or self.f_contiguous

    def __repr__(self) -> str:
        return f"C_CONTIGUOUS : {self.c_contiguous}\nF_CONTIGUOUS : {self.f_contiguous}"


def _queue_and_context(cq: Any) -> tuple[Any, Any]:
    if isinstance(cq, cl.Context):
        return None, cq
    if cq is None:
        raise ValueError("an Array needs a queue or a context")
    return cq, cq.context


class Array(DeviceArray):
    """A strided array in one Buffer of a context, with the queue its operations run on."""

    __array_priority__ = 100

    def __init__(self, cq: Any, shape: Any, dtype: Any, order: str = "C", allocator: Any = None,
                 data: Any = None, offset: int = 0, strides: Any = None,
                 events: list[cl.Event] | None = None, _fast: bool = False) -> None:
        self.queue, self.context = _queue_and_context(cq)
        self.dtype = np.dtype(dtype)
        self.shape = as_shape(shape)
        if order not in ("C", "c", "F", "f"):
            raise ValueError(f"order must be 'C' or 'F', not {order!r}")
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        if strides is None:
            make = c_strides if order in ("C", "c") else f_strides
            strides = make(self.shape, self.dtype.itemsize)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)
        self.allocator = allocator
        self.events = list(events or [])
        if data is None and self.nbytes:
            data = (allocator(self.nbytes) if allocator
                    else cl.Buffer(self.context, cl.mem_flags.READ_WRITE, self.nbytes))
        self.base_data = data

    # -- attributes -----------------------------------------------------------

    @property
    def data(self) -> Any:
        if self.offset:
            raise ArrayHasOffsetError()
        return self.base_data

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def flags(self) -> _Flags:
        key = (self.shape, self.strides, self.dtype.itemsize)
        cached = self.__dict__.get("_flags")
        if cached is None or cached[0] != key:
            cached = self.__dict__["_flags"] = (key, _Flags(self))
        return cached[1]

    def is_contiguous_c(self) -> bool:
        return self.flags.c_contiguous

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[Array]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[k] for k in range(self.shape[0]))

    def __repr__(self) -> str:
        if self.queue is None:
            return f"<oclpy.array.Array shape={self.shape} dtype={self.dtype} (no queue)>"
        return repr(self.get())

    def __str__(self) -> str:
        if self.queue is None:
            return "<oclpy.array.Array without queue, call with_queue()>"
        return str(self.get())

    def __hash__(self) -> int:
        raise TypeError("oclpy arrays are not hashable")

    # -- events ---------------------------------------------------------------

    def add_event(self, evt: cl.Event) -> None:
        self.events.append(evt)
        if len(self.events) > 64:
            done = [e for e in self.events[:-1] if _is_done(e)]
            self.events = [e for e in self.events if e not in done]

    def finish(self) -> None:
        for evt in self.events:
            evt.wait()
        self.events = []

    def _queue(self, queue: Any) -> Any:
        queue = queue or self.queue
        if queue is None:
            raise ValueError(elw.NO_QUEUE)
        return queue

    # -- views ----------------------------------------------------------------

    def _view(self, shape: tuple[int, ...], strides: tuple[int, ...], offset: int,
              dtype: Any = None) -> Array:
        return Array(self.queue or self.context, shape, dtype or self.dtype,
                     allocator=self.allocator, data=self.base_data, offset=offset,
                     strides=strides, events=self.events)

    def __getitem__(self, index: Any) -> Array:
        if isinstance(index, Array):
            elw.check_index_dtype(index)
            return elw.take(self, index)
        if isinstance(index, tuple) and builtins.any(isinstance(i, Array) for i in index):
            raise NotImplementedError("oclpy.array: indexing with several index arrays "
                                      "is not supported")
        shape, strides, offset = index_view(self.shape, self.strides, index)
        return self._view(shape, strides, self.offset + offset)

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, Array):
            elw.put(self._contiguous_target(), index, value)
            return
        self[index].set_from(value)

    def set_from(self, value: Any) -> None:
        """Assign a scalar, a host array or a device array (same shape) to this view."""
        if isinstance(value, Array):
            if value.shape != self.shape:
                if value.size == self.size == 1 or value.shape == ():
                    value = value.reshape(()) if value.shape != () else value
                    elw.run("assign", [elw.operand(value, self, self.dtype)], "x[0]",
                            self.dtype, self, self)
                    return
                raise ValueError(f"cannot assign an array of shape {value.shape} to a view of "
                                 f"shape {self.shape}")
            if value.dtype != self.dtype:
                value = value.astype(self.dtype)
            copy_strided(self, value)
        elif np.isscalar(value) or (isinstance(value, np.ndarray) and value.shape == ()):
            self.fill(value)
        else:
            self.set(np.broadcast_to(np.asarray(value, dtype=self.dtype), self.shape))

    def _contiguous_target(self) -> Array:
        if not self.flags.c_contiguous:
            raise NotImplementedError("oclpy.array: index-array assignment into a "
                                      "non-contiguous view is not supported")
        return self

    def reshape(self, *shape: Any, order: str = "C") -> Array:
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        new = resolve_reshape(self.size, tuple(operator.index(d) for d in shape))
        if new == self.shape:
            return self._view(self.shape, self.strides, self.offset)
        order = order.upper()
        if order not in ("C", "F"):
            raise ValueError(f"order must be 'C' or 'F', not {order!r}")
        strides = reshape_strides(self.shape, self.strides, new, self.itemsize, order)
        if strides is not None:
            return self._view(new, strides, self.offset)
        if order == "F":  # NumPy's F-order reshape is the C-order one of the reversed axes
            return self.transpose().reshape(new[::-1]).transpose()
        return contiguous(self).reshape(new)  # a copy, as NumPy makes one

    def ravel(self, order: str = "C") -> Array:
        return self.reshape(self.size, order=order)

    def view(self, dtype: Any = None) -> Array:
        if dtype is None:
            return self._view(self.shape, self.strides, self.offset)
        dtype = np.dtype(dtype)
        old, new = self.dtype.itemsize, dtype.itemsize
        if old == new:
            return self._view(self.shape, self.strides, self.offset, dtype)
        if not self.shape or not self.flags.c_contiguous:
            raise ValueError("to change to a dtype of a different size, the array must be "
                             "C-contiguous")
        last = self.shape[-1] * old
        if last % new:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                             "the total size in bytes of the last axis of the array.")
        shape = (*self.shape[:-1], last // new)
        return self._view(shape, c_strides(shape, new), self.offset, dtype)

    def reverse(self, queue: Any = None) -> Array:
        """A copy with the elements in reverse order (1-D, as PyOpenCL's)."""
        if self.ndim != 1:
            raise ValueError("reverse() needs a 1-dimensional array")
        return self[::-1].copy(queue=queue or self.queue)

    def squeeze(self) -> Array:
        keep = [k for k, d in enumerate(self.shape) if d != 1]
        return self._view(tuple(self.shape[k] for k in keep),
                          tuple(self.strides[k] for k in keep), self.offset)

    def transpose(self, axes: Any = None) -> Array:
        axes = list(range(self.ndim))[::-1] if axes is None else [operator.index(a) for a in axes]
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError("axes don't match array")
        return self._view(tuple(self.shape[a] for a in axes),
                          tuple(self.strides[a] for a in axes), self.offset)

    @property
    def T(self) -> Array:  # noqa: N802 - NumPy's name
        return self.transpose()

    def with_queue(self, queue: Any) -> Array:
        if queue is not None and queue.context != self.context:
            raise ValueError("the queue belongs to another context than the array")
        result = self._view(self.shape, self.strides, self.offset)
        result.queue = queue
        return result

    # -- transfers ------------------------------------------------------------

    def set(self, ary: Any, queue: Any = None, async_: bool = False, **kwargs: Any) -> None:
        async_ = kwargs.pop("async", async_)
        if kwargs:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kwargs)}")
        host = np.asarray(ary)
        if host.shape != self.shape:
            raise ValueError(f"ary and self must be the same shape: {host.shape} vs {self.shape}")
        if host.dtype != self.dtype:
            raise TypeError(f"ary and self must have the same dtype: {host.dtype} vs {self.dtype}")
        if not self.size:
            return
        queue = self._queue(queue)
        if self.flags.c_contiguous:
            cl.enqueue_copy(queue, self.base_data, np.ascontiguousarray(host), dst_offset=self.offset,
                            wait_for=self.events, is_blocking=not async_)
        elif self.flags.f_contiguous:
            cl.enqueue_copy(queue, self.base_data, np.asfortranarray(host).ravel(order="K"),
                            dst_offset=self.offset, wait_for=self.events, is_blocking=not async_)
        else:
            copy_strided(self, to_device(queue, np.ascontiguousarray(host)))
            if not async_:
                self.finish()

    def get(self, queue: Any = None, ary: np.ndarray | None = None, async_: bool = False,
            **kwargs: Any) -> np.ndarray:
        async_ = kwargs.pop("async", async_)
        if kwargs:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kwargs)}")
        src = self if self.flags.forc else self.copy(queue=self._queue(queue))
        if ary is None:
            ary = np.empty(src.shape, src.dtype, order="F" if not src.flags.c_contiguous else "C")
        elif ary.shape != self.shape or ary.dtype != self.dtype:
            raise TypeError("'ary' has non-matching type or shape")
        elif not ary.flags.forc or (ary.flags.c_contiguous != src.flags.c_contiguous):
            raise TypeError("'ary' does not have the same contiguity as the array")
        if self.size:
            cl.enqueue_copy(self._queue(queue), ary.ravel(order="K"), src.base_data,
                            src_offset=src.offset, wait_for=src.events, is_blocking=not async_)
        return ary

    def get_async(self, queue: Any = None, ary: np.ndarray | None = None) -> tuple[np.ndarray, Any]:
        result = self.get(queue, ary, async_=True)
        return result, cl.enqueue_marker(self._queue(queue))

    def copy(self, queue: Any = ...) -> Array:
        target_queue = self.queue if queue is ... else queue
        run_queue = target_queue or self.queue
        if run_queue is None:
            raise ValueError("the array has no queue; call .with_queue() or pass queue=")
        order = "F" if self.flags.f_contiguous and not self.flags.c_contiguous else "C"
        result = Array(target_queue or self.context, self.shape, self.dtype, order=order,
                       allocator=self.allocator)
        if self.size:
            if self.flags.forc and (result.strides == self.strides):
                evt = cl.enqueue_copy(run_queue, result.base_data, self.base_data,
                                      src_offset=self.offset, byte_count=self.nbytes,
                                      wait_for=self.events)
                result.add_event(evt)
            else:
                copy_strided(result, self, run_queue)
        return result

    def fill(self, value: Any, queue: Any = None, wait_for: Any = None) -> Array:
        if not self.size:
            return self
        queue = self._queue(queue)
        pattern = np.asarray(value, dtype=self.dtype).reshape(())
        if not self.flags.forc:
            tmp = empty(queue, self.shape, self.dtype).fill(pattern, queue)
            copy_strided(self, tmp, queue)
            return self
        size = self.dtype.itemsize
        if size & (size - 1) or size > 128:
            self.set(np.full(self.shape, pattern, self.dtype), queue)
            return self
        evt = cl.enqueue_fill_buffer(queue, self.base_data, pattern.reshape(1), self.offset,
                                     self.nbytes, wait_for=[*self.events, *(wait_for or [])])
        self.add_event(evt)
        return self

    def astype(self, dtype: Any, queue: Any = None) -> Array:
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self.copy(queue=queue or self.queue)
        return elw.unary("X", self, dtype, self.dtype, queue=queue, name="astype",
                         expr_dtype=self.dtype)

    def map_to_host(self, queue: Any = None, flags: Any = None, is_blocking: bool = True,
                    wait_for: Any = None) -> np.ndarray:
        if not self.flags.forc:
            raise ValueError("only contiguous arrays can be mapped")
        ary, evt = cl.enqueue_map_buffer(self._queue(queue), self.base_data,
                                         flags or (cl.map_flags.READ | cl.map_flags.WRITE), self.offset,
                                         self.shape, self.dtype,
                                         order="C" if self.flags.c_contiguous else "F",
                                         wait_for=[*self.events, *(wait_for or [])],
                                         is_blocking=is_blocking)
        return ary

    # -- arithmetic -----------------------------------------------------------

    def _new_like_me(self, dtype: Any = None, queue: Any = None) -> Array:
        return Array(queue or self.queue or self.context, self.shape, dtype or self.dtype,
                     allocator=self.allocator)

    def __neg__(self) -> Array:
        return elw.unary("-X", self, self.dtype, name="neg", expr_dtype=self.dtype)

    def __pos__(self) -> Array:
        return self

    def __abs__(self) -> Array:
        if self.dtype.kind == "c":
            return elw.unary("hypot((X).x, (X).y)", self, array_complex.real_dtype(self.dtype),
                             name="cabs")
        if self.dtype.kind == "f":
            return elw.unary("fabs(X)", self, self.dtype, name="fabs")
        if self.dtype.kind in "ub":
            return self.copy()
        return elw.unary("abs(X)", self, self.dtype, name="abs")

    def __invert__(self) -> Array:
        if self.dtype.kind == "b":
            return elw.unary("!X", self, self.dtype, name="not")
        if self.dtype.kind not in "iu":
            raise TypeError(f"bitwise not is for integer arrays, not {self.dtype}")
        return elw.unary("~X", self, self.dtype, name="invert")

    def __bool__(self) -> bool:
        if self.size == 1:
            return bool(self.get().reshape(())[()])
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")

    def any(self, queue: Any = None, wait_for: Any = None) -> Array:
        return reductions.any_all(self, "any", queue)

    def all(self, queue: Any = None, wait_for: Any = None) -> Array:
        return reductions.any_all(self, "all", queue)

    def sum(self, queue: Any = None, dtype: Any = None) -> Array:
        return reductions.sum(self, dtype=dtype, queue=queue)

    def dot(self, other: Array, queue: Any = None) -> Array:
        return reductions.dot(self, other, queue=queue)

    def vdot(self, other: Array, queue: Any = None) -> Array:
        return reductions.vdot(self, other, queue=queue)

    def min(self, queue: Any = None) -> Array:
        return reductions.min(self, queue)

    def max(self, queue: Any = None) -> Array:
        return reductions.max(self, queue)

    def conj(self) -> Array:
        if self.dtype.kind != "c":
            return self
        vec = array_complex.vector_ctype(self.dtype)
        return elw.unary(f"({vec})((X).x, -(X).y)", self, self.dtype, name="conj",
                         expr_dtype=self.dtype)

    conjugate = conj

    @property
    def real(self) -> Array:
        if self.dtype.kind != "c":
            return self
        return elw.unary("(X).x", self, array_complex.real_dtype(self.dtype), name="real")

    @property
    def imag(self) -> Array:
        if self.dtype.kind != "c":
            return zeros_like(self)
        return elw.unary("(X).y", self, array_complex.real_dtype(self.dtype), name="imag")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("oclpy arrays do not convert to numpy implicitly: call .get()")


def _is_done(evt: Any) -> bool:
    try:
        return evt.command_execution_status == cl.command_execution_status.COMPLETE
    except Exception:  # noqa: BLE001 - a released event counts as done
        return True


def _binary_method(op: str, reverse: bool = False, inplace: bool = False) -> Any:
    def method(self: Array, other: Any) -> Any:
        if not isinstance(other, Array) and not _is_scalar(other):
            return NotImplemented
        if inplace:
            res = elw.op_dtypes(op, self, other)[1]
            if not np.can_cast(res, self.dtype, "same_kind"):
                raise TypeError(f"Cannot cast ufunc '{op}' output from {res} to {self.dtype} "
                                f"with casting rule 'same_kind'")
            elw.binary(op, self, other, out=self)
            return self
        return elw.binary(op, other, self) if reverse else elw.binary(op, self, other)

    method.__name__ = f"__{'r' if reverse else 'i' if inplace else ''}{elw.op_name(op)}__"
    return method


def _is_scalar(value: Any) -> bool:
    return np.isscalar(value) and not isinstance(value, (str, bytes))


_OPERATORS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**", "and": "&",
              "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}
for _name, _op in _OPERATORS.items():
    setattr(Array, f"__{_name}__", _binary_method(_op))
    setattr(Array, f"__r{_name}__", _binary_method(_op, reverse=True))
    setattr(Array, f"__i{_name}__", _binary_method(_op, inplace=True))
Array.__div__ = Array.__truediv__  # type: ignore[attr-defined]
for _name, _op in {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}.items():
    setattr(Array, f"__{_name}__", _binary_method(_op))


# -- constructors ---------------------------------------------------------------

def empty(queue: Any, shape: Any, dtype: Any, order: str = "C", allocator: Any = None,
          data: Any = None) -> Array:
    return Array(queue, shape, dtype, order, allocator, data=data)


def zeros(queue: Any, shape: Any, dtype: Any, order: str = "C", allocator: Any = None) -> Array:
    result = empty(queue, shape, dtype, order, allocator)
    if result.size:
        evt = cl.enqueue_fill_buffer(result._queue(None), result.base_data, np.zeros(1, np.uint8),
                                     0, result.nbytes)
        result.add_event(evt)
    return result


def _like_order(ary: Array) -> str:
    return "F" if ary.flags.f_contiguous and not ary.flags.c_contiguous else "C"


def empty_like(ary: Array, queue: Any = ..., allocator: Any = None) -> Array:
    q = ary.queue if queue is ... else queue
    return Array(q or ary.context, ary.shape, ary.dtype, order=_like_order(ary),
                 allocator=allocator or ary.allocator)


def zeros_like(ary: Array) -> Array:
    return zeros(ary.queue or ary.context, ary.shape, ary.dtype, _like_order(ary), ary.allocator)


def ones_like(ary: Array) -> Array:
    return empty_like(ary).fill(1)


def to_device(queue: Any, ary: Any, allocator: Any = None, async_: bool = False,
              array_queue: Any = ..., **kwargs: Any) -> Array:
    async_ = kwargs.pop("async", async_)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {', '.join(kwargs)}")
    host = np.asarray(ary)
    if host.dtype == object:
        raise RuntimeError("to_device does not work on object arrays.")
    if not host.flags.forc:
        host = np.ascontiguousarray(host)
    order = "C" if host.flags.c_contiguous else "F"
    result = Array(queue if array_queue is ... else (array_queue or queue.context), host.shape,
                   host.dtype, order=order, allocator=allocator)
    result.set(host, queue=queue, async_=async_)
    return result


def _arange_bounds(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any]:
    names = ("start", "stop", "step")
    given = {k: kwargs.pop(k) for k in names if k in kwargs}
    if kwargs:
        raise TypeError(f"unexpected keyword arguments: {', '.join(kwargs)}")
    if len(args) > 3:
        raise TypeError("arange takes at most 3 positional arguments after the queue")
    if len(args) == 1 and "stop" not in given:
        given.update(stop=args[0])
    else:
        for name, value in zip(names, args):
            if name in given:
                raise TypeError(f"arange got multiple values for '{name}'")
            given[name] = value
    if "stop" not in given:
        raise TypeError("arange needs a stop value")
    return given.get("start", 0), given["stop"], given.get("step", 1)


def arange(queue: Any, *args: Any, **kwargs: Any) -> Array:
    """arange(queue, [start,] stop [, step], dtype=None): like numpy.arange, computed on the device."""
    dtype = kwargs.pop("dtype", None)
    allocator = kwargs.pop("allocator", None)
    start, stop, step = _arange_bounds(args, kwargs)
    if step == 0:
        raise ValueError("arange step must not be zero")
    dtype = np.dtype(dtype if dtype is not None else np.arange(start, stop, step).dtype)
    size = int(np.ceil((stop - start) / step)) if (stop - start) * step > 0 else 0
    result = empty(queue, (size,), dtype, allocator=allocator)
    if size:
        t = elw.ctype(dtype)
        knl = get_elwise_kernel(queue.context, f"{t} *z, {t} start, {t} step",
                                f"z[i] = start + (({t}) i) * step", "oclpy_arange")
        result.add_event(knl(result, dtype.type(start), dtype.type(step)))
    return result


__all__ = ["Array", "ArrayHasOffsetError", "arange", "empty", "empty_like", "ones_like",
           "to_device", "zeros", "zeros_like"]
