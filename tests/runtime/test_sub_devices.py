"""Sub-devices of the cpu device (clCreateSubDevices): the partition schemes, the
device info they report, their threads pinned to their own cores, queues on two
of them running side by side, buffers shared between them, and every error."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime import partition
from oclpy.runtime.drivers import topology

dpp = cl.device_partition_property
dad = cl.device_affinity_domain
mf = cl.mem_flags

SPIN = """
__kernel void spin(__global float *x, int n)
{
    int i = get_global_id(0);
    float v = x[i];
    for (int k = 0; k < n; k++) v = v * 0.5f + 1.0f;
    x[i] = v;
}
__kernel void axpy(__global const float *a, __global float *y, float k)
{ int i = get_global_id(0); y[i] += k * a[i]; }
"""


@pytest.fixture
def cpu():
    return next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu")


@pytest.fixture
def two_cores(cpu):
    if cpu.max_compute_units < 2:
        pytest.skip(f"the cpu device has {cpu.max_compute_units} compute unit here: "
                    "two sub-devices need two")
    return cpu.create_sub_devices([dpp.EQUALLY, 1])[:2]


def test_root_device_partition_info(cpu):
    assert cpu.partition_properties == [dpp.EQUALLY, dpp.BY_COUNTS, dpp.BY_AFFINITY_DOMAIN]
    assert cpu.partition_max_sub_devices == cpu.max_compute_units
    assert cpu.partition_affinity_domain & dad.NEXT_PARTITIONABLE
    assert cpu.parent_device is None
    assert cpu.partition_type == []
    assert cpu.get_info(cl.device_info.PARTITION_TYPE) == []


def test_partition_equally(cpu):
    units = cpu.max_compute_units
    subs = cpu.create_sub_devices([dpp.EQUALLY, 1])
    assert len(subs) == units
    for sub in subs:
        assert sub.max_compute_units == 1
        assert sub.parent_device is cpu
        assert sub.get_info(cl.device_info.PARENT_DEVICE) is cpu
        assert sub.partition_type == [dpp.EQUALLY, 1]
        assert sub.type == cl.device_type.CPU
    cores = [sub.driver.cores for sub in subs]
    assert sorted(c for group in cores for c in group) == sorted(cpu.driver.cores)
    assert sub not in cl.get_platforms()[0].get_devices()  # platforms list root devices only


def test_partition_equally_leaves_the_remainder_unused(cpu):
    if cpu.max_compute_units < 3:
        pytest.skip(f"needs 3 compute units to leave one unused, the cpu device has {cpu.max_compute_units}")
    subs = cpu.create_sub_devices([dpp.EQUALLY, 2])
    assert len(subs) == cpu.max_compute_units // 2
    assert all(s.max_compute_units == 2 for s in subs)


def test_partition_by_counts(cpu):
    subs = cpu.create_sub_devices([dpp.BY_COUNTS, 1, dpp.BY_COUNTS_LIST_END])
    assert len(subs) == 1 and subs[0].max_compute_units == 1
    assert subs[0].partition_type == [dpp.BY_COUNTS, 1, dpp.BY_COUNTS_LIST_END]
    # the closing 0 of the property list is allowed after BY_COUNTS_LIST_END (also 0)
    again = cpu.create_sub_devices([dpp.BY_COUNTS, 1, dpp.BY_COUNTS_LIST_END, 0])
    assert [s.max_compute_units for s in again] == [1]


def test_partition_by_counts_uses_disjoint_cores(two_cores):
    a, b = two_cores
    assert set(a.driver.cores).isdisjoint(b.driver.cores)
    assert repr(a).startswith("<oclpy.Device 'oclpy cpu' (sub-device, cores ")


def test_sub_devices_of_a_sub_device(two_cores, cpu):
    units = cpu.max_compute_units
    half = cpu.create_sub_devices([dpp.BY_COUNTS, units, dpp.BY_COUNTS_LIST_END])[0]
    leaves = half.create_sub_devices([dpp.EQUALLY, 1])
    assert len(leaves) == units and all(leaf.parent_device is half for leaf in leaves)
    assert half.parent_device is cpu


def test_partition_by_affinity_domain_on_this_machine(cpu):
    """NEXT_PARTITIONABLE splits along the widest level that splits the device, and the
    sub-devices report the level used; a machine whose units share every level says so."""
    cores = cpu.driver.cores
    splits = [lvl for lvl in topology.LEVELS
              if (g := topology.domain_groups(cores, lvl)) is not None and len(g) > 1]
    if not splits:
        with pytest.raises(cl.RuntimeError, match="DEVICE_PARTITION_FAILED - the device's .* share every"):
            cpu.create_sub_devices([dpp.BY_AFFINITY_DOMAIN, dad.NEXT_PARTITIONABLE])
        return
    subs = cpu.create_sub_devices([dpp.BY_AFFINITY_DOMAIN, dad.NEXT_PARTITIONABLE])
    bit = partition.DOMAIN_LEVELS
    used = next(b for b, lvl in bit.items() if lvl == splits[0])
    assert all(s.partition_type == [dpp.BY_AFFINITY_DOMAIN, used] for s in subs)
    assert sum(s.max_compute_units for s in subs) == cpu.max_compute_units


def _fake_sysfs(root, l2: dict[int, str], l3: str, nodes: list[str]) -> str:
    for core, shared in l2.items():
        for index, (level, kind, cpus) in enumerate([(1, "Instruction", str(core)), (1, "Data", str(core)),
                                                     (2, "Unified", shared), (3, "Unified", l3)]):
            d = root / "cpu" / f"cpu{core}" / "cache" / f"index{index}"
            d.mkdir(parents=True)
            (d / "level").write_text(f"{level}\n")
            (d / "type").write_text(f"{kind}\n")
            (d / "shared_cpu_list").write_text(f"{cpus}\n")
    for n, cpus in enumerate(nodes):
        d = root / "node" / f"node{n}"
        d.mkdir(parents=True)
        (d / "cpulist").write_text(f"{cpus}\n")
    return str(root)


def test_topology_reads_sysfs(tmp_path):
    root = _fake_sysfs(tmp_path, {0: "0-1", 1: "0-1", 2: "2-3", 3: "2-3"}, "0-3", ["0-3"])
    cores = (0, 1, 2, 3)
    assert topology.domain_groups(cores, "L2", root) == [(0, 1), (2, 3)]
    assert topology.domain_groups(cores, "L3", root) == [(0, 1, 2, 3)]
    assert topology.domain_groups(cores, "L1", root) == [(0,), (1,), (2,), (3,)]
    assert topology.domain_groups(cores, "numa", root) == [(0, 1, 2, 3)]
    assert topology.domain_groups(cores, "L4", root) is None
    assert topology.available_levels(cores, root) == ["numa", "L3", "L2", "L1"]
    assert topology.domain_groups((1, 2), "L2", root) == [(1,), (2,)]
    assert topology.parse_cpu_list("0-2,5,7-8") == {0, 1, 2, 5, 7, 8}


def _groups(root: str):
    return lambda cores, level: topology.domain_groups(cores, level, root)


def test_plan_by_affinity_domain(tmp_path):
    root = _fake_sysfs(tmp_path, {0: "0-1", 1: "0-1", 2: "2-3", 3: "2-3"}, "0-3", ["0-1", "2-3"])
    cores = (0, 1, 2, 3)
    plan = partition.plan_partition([dpp.BY_AFFINITY_DOMAIN, dad.NEXT_PARTITIONABLE], cores, 4, _groups(root))
    numa = [dpp.BY_AFFINITY_DOMAIN, dad.NUMA]
    assert plan == [((0, 1), numa), ((2, 3), numa)]
    plan = partition.plan_partition([dpp.BY_AFFINITY_DOMAIN, dad.L1_CACHE], cores, 4, _groups(root))
    assert [c for c, _ in plan] == [(0,), (1,), (2,), (3,)]
    with pytest.raises(cl.RuntimeError) as info:
        partition.plan_partition([dpp.BY_AFFINITY_DOMAIN, dad.L3_CACHE], cores, 4, _groups(root))
    assert info.value.code == cl.status_code.DEVICE_PARTITION_FAILED
    assert "all 4 compute units of the device share one L3_CACHE: nothing to split along" in str(info.value)
    with pytest.raises(cl.LogicError, match="INVALID_VALUE - affinity domain L4_CACHE is not supported"):
        partition.plan_partition([dpp.BY_AFFINITY_DOMAIN, dad.L4_CACHE], cores, 4, _groups(root))


@pytest.mark.parametrize("props, code, message", [
    ([], "INVALID_VALUE", "no partition scheme given"),
    ((dpp.EQUALLY, 1.5), "INVALID_VALUE", "partition properties are integers, got 1.5"),
    ("EQUALLY", "INVALID_VALUE", "partition properties must be a list, got str"),
    ([0x1234, 1], "INVALID_VALUE", "unknown partition scheme 0x1234"),
    ([dpp.EQUALLY], "INVALID_VALUE", "partition scheme EQUALLY needs a value"),
    ([dpp.EQUALLY, 0], "INVALID_VALUE", "EQUALLY needs a positive number of compute units, got 0"),
    ([dpp.EQUALLY, -2], "INVALID_VALUE", "EQUALLY needs a positive number of compute units, got -2"),
    ([dpp.EQUALLY, 1, dpp.BY_COUNTS, 1], "INVALID_VALUE", "only one partition scheme may be given"),
    ([dpp.BY_AFFINITY_DOMAIN, 3], "INVALID_VALUE", "invalid affinity domain 3"),
    ([dpp.BY_COUNTS, 1, -1, 0], "INVALID_DEVICE_PARTITION_COUNT",
     "compute unit counts must not be negative, got [1, -1]"),
    ([dpp.BY_COUNTS, dpp.BY_COUNTS_LIST_END], "INVALID_DEVICE_PARTITION_COUNT",
     "BY_COUNTS needs at least one nonzero compute unit count"),
])
def test_partition_errors(cpu, props, code, message):
    with pytest.raises(cl.LogicError) as info:
        cpu.create_sub_devices(props)
    assert info.value.code == getattr(cl.status_code, code)
    assert f"clCreateSubDevices failed: {code} - {message}" in str(info.value)


def test_partition_errors_past_the_device(cpu):
    units = cpu.max_compute_units
    with pytest.raises(cl.RuntimeError) as info:
        cpu.create_sub_devices([dpp.EQUALLY, units + 1])
    assert info.value.code == cl.status_code.DEVICE_PARTITION_FAILED
    assert (f"DEVICE_PARTITION_FAILED - cannot make sub-devices of {units + 1} compute units from "
            f"a device of {units}") in str(info.value)
    with pytest.raises(cl.LogicError, match=f"INVALID_DEVICE_PARTITION_COUNT - {units + 1} compute "
                                            f"units asked for; the device has {units}"):
        cpu.create_sub_devices([dpp.BY_COUNTS, units, 1, dpp.BY_COUNTS_LIST_END])
    with pytest.raises(cl.LogicError, match=f"INVALID_DEVICE_PARTITION_COUNT - {units + 1} sub-devices "
                                            f"asked for; the device makes at most {units}"):
        cpu.create_sub_devices([dpp.BY_COUNTS, *[1] * (units + 1), dpp.BY_COUNTS_LIST_END])


def test_partition_of_a_device_that_cannot_be_split():
    simt = [d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt"]
    if not simt:
        pytest.skip("the simt device is not available here")
    with pytest.raises(cl.LogicError, match="INVALID_VALUE - the simt device cannot be partitioned "
                                            r"\(PARTITION_PROPERTIES is empty\)"):
        simt[0].create_sub_devices([dpp.EQUALLY, 1])


def test_sub_device_threads_run_on_their_own_cores(two_cores):
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("this OS has no thread affinity (os.sched_getaffinity)")
    ctx = cl.Context(two_cores)
    prg = cl.Program(ctx, SPIN).build()
    for dev in two_cores:
        q = cl.CommandQueue(ctx, dev)
        prg.spin(q, (256,), None, cl.Buffer(ctx, mf.READ_WRITE, 1024), np.int32(10))
        q.finish()
    for dev in two_cores:
        tag = "@" + ".".join(map(str, dev.driver.cores))
        mine = [t for t in threading.enumerate() if t.name.endswith(tag) or f"{tag}-" in t.name]
        assert mine, f"no thread of the sub-device on cores {dev.driver.cores}"
        for thread in mine:
            assert os.sched_getaffinity(thread.native_id) == set(dev.driver.cores)
    ctx.release()


def test_two_sub_device_queues_run_side_by_side(two_cores):
    """Each kernel takes a while; on two sub-devices their profiled runs overlap."""
    ctx = cl.Context(two_cores)
    prg = cl.Program(ctx, SPIN).build()
    queues = [cl.CommandQueue(ctx, d, properties=cl.command_queue_properties.PROFILING_ENABLE)
              for d in two_cores]
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.float32))
            for _ in two_cores]
    for q, b in zip(queues, bufs):
        prg.spin(q, (64,), None, b, np.int32(1)).wait()  # built and warm
    events = [prg.spin(q, (64,), None, b, np.int32(4_000_000)) for q, b in zip(queues, bufs)]
    for e in events:
        e.wait()
    (s0, e0), (s1, e1) = [(e.profile.start, e.profile.end) for e in events]
    assert s1 < e0 and s0 < e1, "the two sub-devices' kernels did not overlap"
    for q, b in zip(queues, bufs):
        out = np.empty(64, np.float32)
        cl.enqueue_copy(q, out, b)
        np.testing.assert_allclose(out, 2.0, rtol=1e-6)  # v -> v/2 + 1 converges to 2
    ctx.release()


def test_split_axpy_over_sub_devices_shares_host_memory(two_cores, cpu):
    """One buffer, each sub-device updating its half through a sub-buffer; the root device
    reads the result: host memory is one domain, so nothing is copied."""
    ctx = cl.Context([cpu, *two_cores])
    prg = cl.Program(ctx, SPIN).build()
    n = 4096
    rng = np.random.default_rng(3)
    a, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    ga = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    gy = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    half = n // 2 * 4
    events = []
    for i, dev in enumerate(two_cores):
        q = cl.CommandQueue(ctx, dev)
        events.append(prg.axpy(q, (n // 2,), None, ga[i * half:(i + 1) * half],
                               gy[i * half:(i + 1) * half], np.float32(3)))
    root = cl.CommandQueue(ctx, cpu)
    out = np.empty_like(y)
    cl.enqueue_copy(root, out, gy, wait_for=events)
    np.testing.assert_allclose(out, y + 3 * a, rtol=1e-6)
    assert len(gy.storage.allocations) == 1  # one host allocation, used by all three devices
    ctx.release()


def test_a_buffer_made_while_its_home_sub_device_is_busy_holds_its_bytes_at_once(two_cores):
    """COPY_HOST_PTR bytes are in memory when the Buffer returns, not behind the busy stream
    of the context's first sub-device, which a kernel on the other one does not wait for."""
    ctx = cl.Context(two_cores)
    busy_q, idle_q = cl.CommandQueue(ctx, two_cores[0]), cl.CommandQueue(ctx, two_cores[1])
    prg = cl.Program(ctx, SPIN).build()
    scratch = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.float32))
    prg.spin(busy_q, (1,), (1,), scratch, np.int32(40_000_000))
    a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(16, dtype=np.float32))
    y = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ones(16, np.float32))
    prg.axpy(idle_q, (16,), None, a, y, np.float32(2))
    got = np.empty(16, np.float32)
    cl.enqueue_copy(idle_q, got, y)
    assert np.array_equal(got, 1 + 2 * np.arange(16, dtype=np.float32))
    busy_q.finish()
