"""oclpy.tools, mempool, array, clrandom, characterize, handles, unsupported features, struct args."""

from __future__ import annotations

import io
import weakref

import numpy as np
import pytest

import oclpy as cl
import oclpy.array as cl_array
from oclpy import characterize, clrandom, cltypes, tools
from oclpy._cl import _TestMemoryPool
from oclpy.mempool import MemoryPool


def test_match_dtype_to_c_struct_asks_the_device(ctx):
    dtype = np.dtype([("c", np.int8), ("x", np.uint32, 2), ("d", np.float64), ("z", np.int16, (2, 3))])
    matched, decl = tools.match_dtype_to_c_struct(ctx.devices[0], "my_t", dtype)
    assert "typedef struct {\n  char c;\n  uint x[2];\n  double d;\n  short z[2][3];\n} my_t;" in decl
    assert [matched.fields[n][1] for n in ("c", "x", "d", "z")] == [0, 4, 16, 24]
    assert matched.itemsize == 40
    assert tools.dtype_to_ctype(matched) == "my_t"
    assert tools.get_or_register_dtype("my_t") == matched
    with pytest.raises(TypeError, match="unknown type name 'nope_t'"):
        tools.get_or_register_dtype("nope_t")


def test_struct_arguments_by_value_and_in_buffers(ctx, queue):
    dtype, decl = tools.match_dtype_to_c_struct(
        ctx.devices[0], "pair_t", np.dtype([("a", np.float32), ("n", np.int32), ("v", cltypes.float2)]))
    prg = cl.Program(ctx, decl + """
        __kernel void use(__global float *out, pair_t p, __global const pair_t *ps)
        { int i = get_global_id(0); out[i] = p.a * p.n + p.v.y + ps[i].n; }""").build()
    items = np.zeros(4, dtype)
    items["n"] = [10, 20, 30, 40]
    ps = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=items)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 16)
    value = np.zeros((), dtype)[()]
    value["a"], value["n"], value["v"] = 1.5, 2, (0, 0.25)
    prg.use(queue, (4,), None, out, value, ps)
    res = np.empty(4, np.float32)
    cl.enqueue_copy(queue, res, out)
    assert res.tolist() == [13.25, 23.25, 33.25, 43.25]
    with pytest.raises(cl.LogicError, match="takes 16 bytes, got 8") as info:
        prg.use(queue, (4,), None, out, np.zeros(2, np.float32), ps)
    assert info.value.code == cl.status_code.INVALID_ARG_SIZE


def test_context_dependent_memoize(ctx):
    calls = []

    @tools.context_dependent_memoize
    def count(context, k):
        calls.append(k)
        return k * 2

    assert count(ctx, 2) == count(ctx, 2) == 4
    assert count(ctx, 3) == 6
    assert calls == [2, 3]
    tools.clear_first_arg_caches()
    count(ctx, 2)
    assert calls == [2, 3, 2]


def test_pytest_helpers_list_every_device(monkeypatch):
    monkeypatch.delenv("PYOPENCL_TEST", raising=False)
    found = tools.get_test_platforms_and_devices()
    assert [len(devs) for _, devs in found] == [len(cl.get_platforms()[0].get_devices())]
    assert tools.get_test_platforms_and_devices("0:cpu")[0][1][0].kind == "cpu"
    assert tools.get_test_platforms_and_devices("nosuchplatform") == []
    factory = tools.ContextFactory(found[0][1][0])
    assert factory().devices == [found[0][1][0]]


def test_memory_pool_bins_and_reuse(queue):
    pool = MemoryPool(tools.ImmediateAllocator(queue))
    for size in [1, 7, 100, 1000, 12345, 1 << 20, (1 << 20) + 1]:
        bin_nr = pool.bin_number(size)
        assert pool.alloc_size(bin_nr) >= size
        assert pool.bin_number(pool.alloc_size(bin_nr)) == bin_nr
    a = pool.allocate(1000)
    block = a._block
    a.release()
    assert pool.held_blocks == 1
    b = pool.allocate(1010)  # same bin: the held block comes back
    assert b._block is block and b.size == 1010
    with pytest.raises(cl.LogicError, match="already released"):
        b.release() or b.release()
    assert pool.allocate(0) is None
    pool.stop_holding()
    assert pool.held_blocks == 0
    assert tools.DeferredAllocator(queue.context)(0) is None
    test_pool = _TestMemoryPool()
    assert test_pool.allocate((1 << 33) + 3).size >= (1 << 33) + 3


def test_device_array_fill_copy_get(queue):
    a = cl_array.to_device(queue, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.shape == (2, 3) and a.nbytes == 24 and a.data.size == 24
    assert (a.get() == np.arange(6).reshape(2, 3)).all()
    z = cl_array.zeros(queue, 5, np.int32).fill(7)
    assert z.get().tolist() == [7] * 5
    assert (a.copy().get() == a.get()).all()
    assert cl_array.empty(queue, (0,), np.float32).data is None
    with pytest.raises(ValueError, match="ary and self must be the same shape"):
        a.set(np.zeros(3, np.float32))
    assert a.sum().get() == 15  # oclpy.array is complete now: tests/array covers it


def test_clrandom_is_uniform_in_range(queue):
    values = clrandom.rand(queue, 4000, np.float32, a=2, b=3).get()
    assert values.dtype == np.float32 and (values >= 2).all() and (values < 3).all()
    assert abs(values.mean() - 2.5) < 0.05
    ints = clrandom.rand(queue, 100, np.int32, a=0, b=5).get()
    assert set(ints.tolist()) <= set(range(5))


def test_characterize(ctx):
    dev = ctx.devices[0]
    assert characterize.has_double_support(dev)
    assert not characterize.has_coarse_grain_buffer_svm(dev)
    assert not characterize.has_fine_grain_buffer_svm(dev)
    assert characterize.get_pocl_version(dev.platform) is None


@pytest.mark.parametrize("name, feature", [("Pipe", "pipes"),
                                           ("svm_empty", "shared virtual memory"),
                                           ("GLBuffer", "OpenGL interop")])
def test_unsupported_features_raise_clearly(ctx, name, feature):
    with pytest.raises(cl.LogicError, match=f"oclpy does not implement {feature}") as info:
        getattr(cl, name)(ctx)
    assert info.value.code == cl.status_code.INVALID_OPERATION
    with pytest.raises(AttributeError):
        cl.no_such_name


def test_value_classes():
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    assert fmt.itemsize == 16 and not hasattr(fmt, "__dict__")
    topo = cl.DeviceTopologyAmd(3, 4, 5)
    assert (topo.bus, topo.device, topo.function) == (3, 4, 5)


def test_handles_round_trip(ctx, queue):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    for obj in [ctx, queue, buf, ctx.devices[0], ctx.devices[0].platform, cl.enqueue_marker(queue)]:
        assert type(obj).from_int_ptr(obj.int_ptr) is obj
    with pytest.raises(cl.LogicError, match="is not the handle of a live Context") as info:
        cl.Context.from_int_ptr(buf.int_ptr)
    assert info.value.code == cl.status_code.INVALID_VALUE


def test_info_attributes_and_host_array(ctx):
    host = np.arange(8, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.USE_HOST_PTR, hostbuf=host)
    assert buf.size == 32 and buf.reference_count == 1 and buf.host_ptr is host
    view = buf.get_host_array(8, np.float32)
    assert view.base is buf and (view == host).all()
    view[0] = 42
    assert host[0] == 42  # the same memory
    with pytest.raises(cl.LogicError, match="only buffers made with USE_HOST_PTR"):
        cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 32).get_host_array(8, np.float32)
    with pytest.raises(cl.LogicError, match="does not fit"):
        buf.get_host_array(9, np.float32)
    with pytest.raises(AttributeError):
        buf.no_such_info
    assert ctx.num_devices == 1 and ctx.devices[0].parent_device is None


def test_capture_call_writes_a_runnable_script(ctx, queue):
    prg = cl.Program(ctx, "__kernel void twice(__global int *a, int k) "
                          "{ a[get_global_id(0)] = 2 * a[get_global_id(0)] + k; }").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                    hostbuf=np.arange(4, dtype=np.int32))
    out = io.StringIO()
    prg.twice.capture_call(out, queue, (4,), None, buf, np.int32(1))
    namespace: dict = {}
    exec(compile(out.getvalue(), "captured.py", "exec"), namespace)
    namespace["main"]()
    assert "SOURCE = " in out.getvalue() and "prg.twice(queue, (4,), None" in out.getvalue()
    with pytest.raises(cl.LogicError):
        prg.twice.capture_call(io.StringIO(), queue, (4,), None, buf)  # wrong argument count


def test_queue_used_after_with_block_warns(ctx):
    with cl.CommandQueue(ctx) as queue:
        pass
    with pytest.warns(cl.CommandQueueUsedAfterExit):
        queue.flush()


def test_non_blocking_read_keeps_host_array_alive(ctx, queue):
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 1 << 16)
    host = np.empty(1 << 14, np.float32)
    ref = weakref.ref(host)
    evt = cl.enqueue_copy(queue, host, buf, is_blocking=False)
    del host
    assert ref() is not None or evt.command_execution_status == cl.command_execution_status.COMPLETE
    evt.wait()


def _names(info_cls):
    return [n for n in dir(info_cls) if not n.startswith("_") and n != "to_string"]


def test_every_info_query_answers(ctx):
    """As PyOpenCL's test_get_info: each *_info constant works through get_info and as an attribute."""
    dev = ctx.devices[0]
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    prg = cl.Program(ctx, "__kernel void k(__global float *a) { a[get_global_id(0)] *= 2; }").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    knl = prg.k
    evt = knl(queue, (16,), None, buf)
    evt.wait()
    for obj, info_cls in [(dev.platform, cl.platform_info), (dev, cl.device_info), (ctx, cl.context_info),
                          (queue, cl.command_queue_info), (prg, cl.program_info), (buf, cl.mem_info),
                          (knl, cl.kernel_info), (evt, cl.event_info)]:
        for name in _names(info_cls):
            value = obj.get_info(getattr(info_cls, name))
            if not isinstance(value, bytes) and not isinstance(value, list):
                assert getattr(obj, name.lower()) == value, (type(obj).__name__, name)
    for name in _names(cl.program_build_info):
        prg.get_build_info(dev, getattr(cl.program_build_info, name))
    for name in _names(cl.profiling_info):
        assert evt.get_profiling_info(getattr(cl.profiling_info, name)) > 0
    assert evt.profile.end >= evt.profile.start >= evt.profile.submit >= evt.profile.queued
    for name in _names(cl.kernel_work_group_info):
        if name != "GLOBAL_WORK_SIZE":  # only for custom devices and built-in kernels
            knl.get_work_group_info(getattr(cl.kernel_work_group_info, name), dev)
    with pytest.raises(cl.LogicError) as info:
        knl.get_work_group_info(cl.kernel_work_group_info.GLOBAL_WORK_SIZE, dev)
    assert info.value.code == cl.status_code.INVALID_VALUE
