"""ElementwiseKernel, ReductionKernel, the scan kernels and the argument-string parser."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
import oclpy.array as cl_array
from oclpy.elementwise import ElementwiseKernel
from oclpy.kernelgen.arguments import ArgumentError, ScalarArg, VectorArg, parse_arg_list
from oclpy.reduction import ReductionKernel
from oclpy.scan import ExclusiveScanKernel, GenericScanKernel, InclusiveScanKernel
from oclpy.tools import parse_arg_list as tools_parse_arg_list


def test_parse_arg_list():
    args = parse_arg_list("__global const float *x, unsigned int n, float4 v, double* restrict y,"
                          " __local int *scratch")
    assert args[0] == VectorArg(np.float32, "x", const=True)
    assert args[1] == ScalarArg(np.uint32, "n")
    assert args[2].dtype == cl.cltypes.float4 and isinstance(args[2], ScalarArg)
    assert args[3].dtype == np.float64 and args[4].address_space == "__local"
    assert args[0].declarator() == "__global const float *x"
    assert parse_arg_list([ScalarArg(np.int8, "c"), "long k"], with_offset=True)[1].dtype == np.int64
    assert VectorArg(np.int32, "q", with_offset=True).declarator() == \
        "__global int *q__base, long q__offset"
    assert tools_parse_arg_list is parse_arg_list


@pytest.mark.parametrize(("text", "message"), [
    ("float", "cannot parse the argument declaration 'float'"),
    ("quux *x", "unknown type name 'quux'"),
    ("float **x", "argument 'x': pointers to pointers are not kernel arguments"),
    ("float x, int x", "argument 'x' is declared twice"),
    ("const *x", "argument 'x' has no type"),
])
def test_parse_arg_list_errors(text, message):
    with pytest.raises(ArgumentError, match=message.replace("*", "\\*")):
        parse_arg_list(text)


def test_elementwise_kernel(ctx, queue):
    knl = ElementwiseKernel(ctx, "float a, float *x, float b, float *y, float *z",
                            "z[i] = a*x[i] + b*y[i]", "lin_comb")
    x = cl_array.to_device(queue, np.arange(1000, dtype=np.float32))
    y = cl_array.to_device(queue, np.ones(1000, np.float32))
    z = cl_array.empty_like(x)
    evt = knl(2, x, 3, y, z)
    assert isinstance(evt, cl.Event)
    np.testing.assert_allclose(z.get(), 2 * x.get() + 3)
    # a view with an offset, a range and a negative-step slice
    knl(1, x[10:], 0, y[10:], z[:-10])
    np.testing.assert_allclose(z.get()[:-10], x.get()[10:])
    z.fill(0)
    knl(1, x, 0, y, z, range=slice(5, 20, 5))
    assert np.flatnonzero(z.get()).tolist() == [5, 10, 15]
    z.fill(0)
    knl(1, x, 0, y, z, slice=slice(None, None, -400))
    assert np.flatnonzero(z.get()).tolist() == [199, 599, 999]
    assert knl(1, x, 0, y, z, range=slice(3, 3)) is not None  # nothing to do: a marker


def test_elementwise_kernel_continue_and_preamble(ctx, queue):
    knl = ElementwiseKernel(ctx, "int *x", "if (x[i] % 2) PYOPENCL_ELWISE_CONTINUE; x[i] = twice(x[i])",
                            preamble="int twice(int v) { return 2 * v; }")
    x = cl_array.to_device(queue, np.arange(6, dtype=np.int32))
    knl(x)
    assert x.get().tolist() == [0, 1, 4, 3, 8, 5]


def test_elementwise_kernel_errors(ctx, queue):
    with pytest.raises(ValueError, match="at least one vector argument"):
        ElementwiseKernel(ctx, "int n", "n")
    with pytest.warns(UserWarning, match="PYOPENCL_ELWISE_CONTINUE"):
        ElementwiseKernel(ctx, "int *x", "if (i) return; x[i] = 1")
    knl = ElementwiseKernel(ctx, "int *x", "x[i] = 1")
    x = cl_array.zeros(queue, 4, np.int32)
    with pytest.raises(TypeError, match="expected 1 arguments, got 2"):
        knl(x, x)
    with pytest.raises(TypeError, match="may not specify both range and slice"):
        knl(x, range=slice(2), slice=slice(2))
    with pytest.raises(TypeError, match="unknown keyword arguments: 'foo'"):
        knl(x, foo=1)
    with pytest.raises(ValueError, match="range step must not be zero"):
        knl(x, range=slice(0, 4, 0))
    with pytest.raises(TypeError, match="unknown keyword arguments: bogus"):
        ElementwiseKernel(ctx, "int *x", "x[i] = 1", bogus=1)


def test_elementwise_kernels_are_cached(ctx, queue):
    a = ElementwiseKernel(ctx, "int *x", "x[i] = 5")
    b = ElementwiseKernel(ctx, "int *x", "x[i] = 5")
    assert a.get_kernel(False)[0] is b.get_kernel(False)[0]


def test_reduction_kernel(ctx, queue):
    dot = ReductionKernel(ctx, np.float64, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="__global const float *x, __global const float *y")
    host = np.linspace(0, 1, 100003).astype(np.float32)
    x = cl_array.to_device(queue, host)
    result = dot(x, x)
    assert result.shape == () and result.dtype == np.float64
    assert result.get() == pytest.approx(np.dot(host.astype(np.float64), host))
    result, evt = dot(x, x, return_event=True, range=slice(0, 10))
    evt.wait()
    assert result.get() == pytest.approx(np.dot(host[:10], host[:10].astype(np.float64)))
    with pytest.raises(TypeError, match="invalid keyword argument\\(s\\): bogus"):
        dot(x, x, bogus=1)


def test_reduction_keeps_the_order_of_a_non_commutative_operation(ctx, queue):
    # "keep the first nonzero": associative, not commutative
    first = ReductionKernel(ctx, np.int32, neutral="0", reduce_expr="a != 0 ? a : b",
                            map_expr="x[i]", arguments="const int *x")
    host = np.zeros(50000, np.int32)
    host[[17000, 30000, 45000]] = [7, 8, 9]
    assert first(cl_array.to_device(queue, host)).get() == 7


def test_reduction_over_a_struct(ctx, queue):
    from oclpy.tools import get_or_register_dtype

    pair = get_or_register_dtype("oclpy_test_minmax", np.dtype([("lo", np.int32), ("hi", np.int32)]))
    preamble = ("typedef struct { int lo; int hi; } oclpy_test_minmax;\n"
                "oclpy_test_minmax mm(int lo, int hi) { oclpy_test_minmax r = {lo, hi}; return r; }\n"
                "oclpy_test_minmax agg(oclpy_test_minmax a, oclpy_test_minmax b)"
                " { return mm(min(a.lo, b.lo), max(a.hi, b.hi)); }\n")
    knl = ReductionKernel(ctx, pair, neutral="mm(INT_MAX, INT_MIN)", reduce_expr="agg(a, b)",
                          map_expr="mm(x[i], x[i])", arguments="const int *x", preamble=preamble)
    host = np.random.default_rng(1).integers(-1000, 1000, 5000).astype(np.int32)
    result = knl(cl_array.to_device(queue, host)).get()
    assert (result["lo"], result["hi"]) == (host.min(), host.max())


@pytest.mark.parametrize("n", [1, 129, 70001])
def test_inclusive_and_exclusive_scan(ctx, queue, n):
    host = (np.arange(n) % 7).astype(np.int64)
    dev = cl_array.to_device(queue, host)
    out = InclusiveScanKernel(ctx, np.int64, "a+b", "0")(dev, "new")
    np.testing.assert_array_equal(out.get(), np.cumsum(host))
    ExclusiveScanKernel(ctx, np.int64, "a+b", "0")(dev)  # in place
    np.testing.assert_array_equal(dev.get(), np.cumsum(host) - host)


def test_scan_errors(ctx, queue):
    with pytest.raises(ValueError, match="must provide a 'neutral' element in scan"):
        InclusiveScanKernel(ctx, np.int32, "a+b")
    knl = InclusiveScanKernel(ctx, np.int32, "a+b", "0")
    dev = cl_array.zeros(queue, 6, np.int32)
    with pytest.raises(ValueError, match="input and output must have the same shape"):
        knl(dev, cl_array.zeros(queue, 5, np.int32))
    with pytest.raises(RuntimeError, match="cannot handle non-contiguous arrays"):
        knl(dev[::2])
    with pytest.raises(ValueError, match="'q' is not a pointer argument"):
        GenericScanKernel(ctx, np.int32, "int *x", "x[i]", "a+b", "0", "x[i] = item",
                          input_fetch_exprs=[("prev", "q", -1)])


def test_segmented_scan_with_fetch_and_last_item(ctx, queue):
    n = 20000
    rng = np.random.default_rng(5)
    values = rng.integers(0, 9, n).astype(np.int32)
    flags = (rng.random(n) < 0.002).astype(np.int8)
    knl = GenericScanKernel(
        ctx, np.int32, arguments="const int *v, const char *f, int *out, int *prev, int *total",
        input_expr="v[i]", scan_expr="across_seg_boundary ? b : (a + b)", neutral="0",
        is_segment_start_expr="f[i]",
        output_statement="out[i] = item; prev[i] = prev_item; if (i == N - 1) total[0] = last_item;")
    out, prev, total = (cl_array.empty(queue, n, np.int32), cl_array.empty(queue, n, np.int32),
                        cl_array.empty(queue, 1, np.int32))
    knl(cl_array.to_device(queue, values), cl_array.to_device(queue, flags), out, prev, total)
    expected, expected_prev, acc = np.empty(n, np.int64), np.empty(n, np.int64), 0
    for i in range(n):
        expected_prev[i] = 0 if flags[i] else acc
        acc = values[i] if flags[i] else acc + values[i]
        expected[i] = acc
    np.testing.assert_array_equal(out.get(), expected)
    np.testing.assert_array_equal(prev.get(), expected_prev)
    assert total.get()[0] == expected[-1]
    # stream compaction through an input fetch: keep the elements that differ from their predecessor
    data = np.array([1, 1, 2, 2, 2, 3, 1, 1], np.int32)
    compact = GenericScanKernel(
        ctx, np.int32, arguments="const int *d, int *result",
        input_fetch_exprs=[("d_prev", "d", -1)],
        input_expr="(i == 0 || d[i] != d_prev) ? 1 : 0", scan_expr="a+b", neutral="0",
        output_statement="if (prev_item != item) result[item - 1] = d[i];")
    result = cl_array.zeros(queue, 8, np.int32)
    compact(cl_array.to_device(queue, data), result)
    assert result.get()[:4].tolist() == [1, 2, 3, 1]


def test_reduction_kernel_errors(ctx, queue):
    with pytest.raises(TypeError, match="ReductionKernel needs 'arguments'"):
        ReductionKernel(ctx, np.int32, "0", "a+b")
    knl = ReductionKernel(ctx, np.int32, "0", "a+b", "x[i]", "const int *x, int k")
    x = cl_array.zeros(queue, 4, np.int32)
    with pytest.raises(TypeError, match="reduce_kernel: expected 2 arguments, got 1"):
        knl(x)
    with pytest.raises(ValueError, match="range= is needed when no argument is an Array"):
        knl(x.base_data, 1, queue=queue)
    with pytest.raises(ValueError, match="no queue: pass queue= or an Array argument"):
        knl(x.with_queue(None), 1)
    assert knl(x.base_data, 1, queue=queue, range=slice(0, 4)).get() == 0


def test_scan_over_a_buffer_with_size(ctx, queue):
    knl = GenericScanKernel(ctx, np.int32, "__global int *x", "x[i]", "a+b", "0", "x[i] = item",
                            index_dtype=np.int64)
    x = cl_array.to_device(queue, np.ones(10, np.int32))
    knl(x.base_data, queue=queue, size=6).wait()
    assert x.get().tolist() == [1, 2, 3, 4, 5, 6, 1, 1, 1, 1]
    with pytest.raises(ValueError, match="size= is needed when no argument is an Array"):
        knl(x.base_data, queue=queue)
    with pytest.raises(TypeError, match="index_dtype must be signed"):
        GenericScanKernel(ctx, np.int32, "int *x", "x[i]", "a+b", "0", "x[i] = item",
                          index_dtype=np.uint32)
