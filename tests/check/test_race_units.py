"""The race check's shadow units (race_checks.py): word records while every access is whole
aligned words, byte records from the first access that is not, rows for 8- and 16-byte
accesses; and what each finds or lets be."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime import checking
from oclpy.targets.simt.check import race_checks

from run_case import simt_context


@pytest.fixture(autouse=True, params=["dense", "paged"])
def global_shadow(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test with the global shadow dense (word units, rows) and paged (byte units, as for
    arenas past `DENSE_LIMIT`)."""
    if request.param == "paged":
        monkeypatch.setattr(race_checks, "DENSE_LIMIT", 0)


def reports_of(source: str, size: int, *buffers: np.ndarray, aliased: bool = False) -> list[tuple]:
    """Run kernel `k` over `size` work-items in one group; `aliased`: every pointer argument
    is the first buffer."""
    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    made = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=b) for b in buffers]
    args = [made[0]] * len(buffers) if aliased else made
    program = cl.Program(ctx, source).build()
    checking.clear()
    program.k(queue, (size,), (size,), *args)
    queue.finish()
    return [(r.kind, r.loc.line, r.message, r.work_item, r.count) for r in checking.reports()]


def test_bytes_of_one_word_written_by_different_work_items_do_not_race() -> None:
    source = """__kernel void k(__global int *words, __global uchar *bytes) {
    int i = get_global_id(0);
    words[i] = i;
    bytes[256 + i] = (uchar)i;
}
"""
    assert reports_of(source, 64, np.zeros(128, np.int32), np.zeros(128, np.int32), aliased=True) == []


def test_a_byte_read_of_a_word_another_work_item_wrote_races() -> None:
    """The word records turn into byte records at the byte access, each word's on its bytes."""
    source = """__kernel void k(__global int *words, __global uchar *bytes, __global int *out) {
    int l = get_local_id(0);
    words[l] = l;
    out[64 + l] = bytes[4 * (63 - l) + 2];
}
"""
    assert reports_of(source, 64, np.zeros(128, np.int32), np.zeros(128, np.int32), np.zeros(128, np.int32),
                      aliased=True) == [
        ("data-race", 4, "data race on __global memory: this read and a write by work-item (63,0,0) are not "
                         "ordered by a barrier", (0, 0, 0), 64)]


def test_a_float_read_inside_another_work_items_float4_races() -> None:
    """A 16-byte store is recorded on its four words (a row), so a 4-byte read of the third
    word meets it."""
    source = """__kernel void k(__global float *out) {
    __local float4 t[64];
    int l = get_local_id(0);
    t[l] = (float4)(l);
    out[l] = ((__local float *)t)[4 * (63 - l) + 2];
}
"""
    assert reports_of(source, 64, np.zeros(64, np.float32)) == [
        ("data-race", 5, "data race on __local memory: this read and a write by work-item (63,0,0) are not "
                         "ordered by a barrier", (0, 0, 0), 64)]


def test_float4_rows_ordered_by_a_barrier_do_not_race() -> None:
    source = """__kernel void k(__global float4 *out) {
    __local float4 t[64];
    int l = get_local_id(0);
    t[l] = (float4)(l);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[l] = t[63 - l];
    barrier(CLK_LOCAL_MEM_FENCE);
    t[l] = out[l];
}
"""
    assert reports_of(source, 64, np.zeros((64, 4), np.float32)) == []


def test_a_write_after_reads_by_several_work_items_names_them() -> None:
    """Readers of one word from both waves of the group, then a write with no barrier between."""
    source = """__kernel void k(__global int *a, __global int *out) {
    int l = get_local_id(0);
    out[l] = a[0];
    if (l == 5) a[0] = 1;
}
"""
    assert reports_of(source, 64, np.zeros(4, np.int32), np.zeros(64, np.int32)) == [
        ("data-race", 4, "data race on __global memory: this write and a read by several work-items are not "
                         "ordered by a barrier", (5, 0, 0), 1)]


def test_misaligned_words_are_checked_byte_by_byte() -> None:
    """4-byte loads at odd addresses (vload4 of uchar) overlap the next work-item's bytes."""
    source = """__kernel void k(__global uchar *b, __global uchar *out) {
    int l = get_local_id(0);
    b[4 * l + 1] = (uchar)l;
    uchar4 v = vload4(0, b + 4 * l + 2);
    out[l] = v.w;
}
"""
    found = reports_of(source, 64, np.zeros(512, np.uint8), np.zeros(64, np.uint8))
    assert [(kind, line, work_item, count) for kind, line, _, work_item, count in found] == [
        ("data-race", 4, (0, 0, 0), 63)]
    assert found[0][2].endswith("and a write by work-item (1,0,0) are not ordered by a barrier")


def test_a_launch_too_large_for_the_race_tags_is_refused() -> None:
    from types import SimpleNamespace

    from oclpy.targets.simt.check.check_session import Checker
    from oclpy.targets.simt.check.race_checks import shadow_for
    from oclpy.targets.simt.sim_memory import SimError

    batch = SimpleNamespace(global_size=(1 << 16, 1 << 15, 1))
    with pytest.raises(SimError) as found:
        shadow_for(Checker(), batch, "global", np.zeros(4096, np.uint8))
    assert str(found.value) == ("the race check tells at most 2147483646 work-items apart; "
                                "this launch has 2147483648")
