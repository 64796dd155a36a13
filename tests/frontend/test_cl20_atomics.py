"""OpenCL C 2.0 C11-style atomics (cl20_atomics.py) run on the cpu device:
atomic types and initialisers, load/store/exchange, compare-exchange,
fetch operations, atomic_flag, and their diagnostics."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module

cl = pytest.importorskip("oclpy")

CL20 = "-cl-std=CL2.0"


def run(queue, src: str, buffers: list[np.ndarray], n: int, local: int | None = None,  # type: ignore[no-untyped-def]
        options: str = CL20) -> list[np.ndarray]:
    """Run kernel `k` of `src` over `n` work-items on copies of `buffers`; return them after."""
    ctx, q = queue
    mf = cl.mem_flags
    prg = cl.Program(ctx, src).build(options=options)
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in buffers]
    prg.k(q, (n,), None if local is None else (local,), *bufs)
    outs = [np.empty_like(a) for a in buffers]
    for out, buf in zip(outs, bufs):
        cl.enqueue_copy(q, out, buf)
    return outs


def first_error(src: str, options: str = CL20) -> str:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, options)
    return info.value.log.splitlines()[0]


N = 64


@pytest.mark.parametrize("options", [CL20, "-cl-std=CL3.0"])
def test_fetch_add_hands_out_every_ticket_once(queue, options: str) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_int *counter, global int *old) {
        old[get_global_id(0)] = atomic_fetch_add_explicit(counter, 3, memory_order_relaxed); }"""
    counter, old = run(queue, src, [np.zeros(1, np.int32), np.zeros(N, np.int32)], N, options=options)
    assert sorted(old.tolist()) == [3 * i for i in range(N)]
    assert counter[0] == 3 * N


def test_program_scope_atomic_counter(queue) -> None:  # type: ignore[no-untyped-def]
    src = """global atomic_int sync = ATOMIC_VAR_INIT(5);
    kernel void k(global int *o) { o[get_global_id(0)] = atomic_fetch_add_explicit(&sync, 2, memory_order_relaxed,
                                                                                   memory_scope_device); }"""
    (old,) = run(queue, src, [np.zeros(N, np.int32)], N)
    assert sorted(old.tolist()) == [5 + 2 * i for i in range(N)]


def test_program_scope_initial_value_is_loaded(queue) -> None:  # type: ignore[no-untyped-def]
    src = """global atomic_int x = ATOMIC_VAR_INIT(5);
    kernel void k(global int *o) { o[get_global_id(0)] = atomic_load(&x); }"""
    (out,) = run(queue, src, [np.zeros(4, np.int32)], 4)
    assert out.tolist() == [5, 5, 5, 5]


def test_compare_exchange_spin_gives_unique_tickets(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_uint *next, global uint *ticket) {
        uint seen = atomic_load_explicit(next, memory_order_acquire);
        while (!atomic_compare_exchange_weak_explicit(next, &seen, seen + 1, memory_order_acq_rel,
                                                      memory_order_relaxed, memory_scope_device)) { }
        ticket[get_global_id(0)] = seen; }"""
    nxt, tickets = run(queue, src, [np.zeros(1, np.uint32), np.zeros(N, np.uint32)], N)
    assert sorted(tickets.tolist()) == list(range(N))
    assert nxt[0] == N


def test_compare_exchange_failure_writes_back_the_current_value(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_long *a, global long *o) {
        long expected = 1;
        bool first = atomic_compare_exchange_strong(a, &expected, 50);   /* *a is 7: fails */
        long after_first = expected;
        bool second = atomic_compare_exchange_strong(a, &expected, 50);  /* now succeeds */
        o[0] = first; o[1] = after_first; o[2] = second; o[3] = expected; o[4] = atomic_load(a); }"""
    a, o = run(queue, src, [np.array([7], np.int64), np.zeros(5, np.int64)], 1)
    assert o.tolist() == [0, 7, 1, 7, 50]
    assert a[0] == 50


def test_load_store_exchange_round_trips(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_ulong *u, global atomic_float *f, global atomic_double *d, global double *o) {
        atomic_store(u, 0x123456789abcdefUL);
        o[0] = (double)(atomic_load(u) == 0x123456789abcdefUL);
        atomic_store_explicit(f, 2.5f, memory_order_release);
        o[1] = atomic_exchange(f, -1.25f);
        o[2] = atomic_load_explicit(f, memory_order_acquire, memory_scope_work_group);
        atomic_init(d, 3.0);
        float want = -1.25f;
        o[3] = atomic_compare_exchange_strong(f, &want, 8.0f);
        o[4] = atomic_exchange_explicit(d, 4.5, memory_order_seq_cst);
        o[5] = atomic_load(d); }"""
    u, f, d, o = run(queue, src, [np.zeros(1, np.uint64), np.zeros(1, np.float32), np.zeros(1, np.float64),
                                  np.zeros(6, np.float64)], 1)
    assert o.tolist() == [1.0, 2.5, -1.25, 1.0, 3.0, 4.5]
    assert (u[0], f[0], d[0]) == (0x123456789abcdef, 8.0, 4.5)


def test_flag_test_and_set_lets_exactly_one_in(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_flag *flag, global int *won) {
        won[get_global_id(0)] = !atomic_flag_test_and_set_explicit(flag, memory_order_acq_rel, memory_scope_device); }"""
    flag, won = run(queue, src, [np.zeros(1, np.int32), np.zeros(N, np.int32)], N)
    assert won.sum() == 1
    assert flag[0] != 0


def test_flag_clear_then_set_again(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_flag *flag, global int *o) {
        o[0] = atomic_flag_test_and_set(flag);
        atomic_flag_clear(flag);
        o[1] = atomic_flag_test_and_set(flag);
        o[2] = atomic_flag_test_and_set(flag);
        atomic_flag_clear_explicit(flag, memory_order_release); }"""
    flag, o = run(queue, src, [np.ones(1, np.int32), np.zeros(3, np.int32)], 1)
    assert o.tolist() == [1, 0, 1]
    assert flag[0] == 0


def test_local_fetch_min_max_then_barrier(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global const int *x, global int *lo, global uint *hi) {
        local atomic_int mn; local atomic_uint mx;
        if (get_local_id(0) == 0) { atomic_init(&mn, 1 << 30); atomic_init(&mx, 0u); }
        barrier(CLK_LOCAL_MEM_FENCE);
        int v = x[get_global_id(0)];
        atomic_fetch_min_explicit(&mn, v, memory_order_relaxed, memory_scope_work_group);
        atomic_fetch_max(&mx, (uint)v);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0) { lo[get_group_id(0)] = atomic_load(&mn); hi[get_group_id(0)] = atomic_load(&mx); } }"""
    x = ((np.arange(N, dtype=np.int64) * 37) % 101 - 50).astype(np.int32)
    _, lo, hi = run(queue, src, [x, np.zeros(4, np.int32), np.zeros(4, np.uint32)], N, local=16)
    groups = x.reshape(4, 16)
    assert lo.tolist() == groups.min(axis=1).tolist()
    assert hi.tolist() == [max(int(v) & 0xffffffff for v in g) for g in groups]


def test_bitwise_and_sub_fetch_ops(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global atomic_uint *bits, global atomic_long *total) {
        uint i = get_global_id(0);
        atomic_fetch_or(bits, 1u << i);
        atomic_fetch_xor_explicit(bits + 1, 1u << i, memory_order_relaxed);
        atomic_fetch_and(bits + 2, ~(1u << i));
        atomic_fetch_sub_explicit(total, (long)i, memory_order_seq_cst, memory_scope_all_svm_devices); }"""
    bits, total = run(queue, src, [np.array([0, 0xffffffff, 0xffffffff], np.uint32), np.zeros(1, np.int64)], 32)
    assert bits.tolist() == [0xffffffff, 0, 0]
    assert total[0] == -sum(range(32))


def test_orders_and_scopes_reach_the_ir() -> None:
    text = print_module(compile_to_ir("""kernel void k(global atomic_int *a, local atomic_int *l) {
        atomic_fetch_add_explicit(a, 1, memory_order_acquire, memory_scope_work_group);
        atomic_store_explicit(l, 2, memory_order_release);
        atomic_fetch_max(a, 3); }""", CL20).module)
    assert "atomicrmw add ptr<global> %" in text and "scope(work_group) acquire" in text
    assert "atomicrmw xchg ptr<local>" in text and "scope(device) release" in text
    assert "atomicrmw max ptr<global>" in text and "scope(device) seq_cst" in text


@pytest.mark.parametrize("src, message", [
    ("kernel void k(global int *p) { atomic_load(p); }",  # a plain int * fits every type equally ill
     "1:32: error: call to 'atomic_load' is ambiguous"),
    ("kernel void k(global atomic_int *p) { atomic_fetch_add_explicit(p); }",
     "1:39: error: no matching function for call to 'atomic_fetch_add_explicit'"),
    # clang-14 offers cl_ext_float_atomics' float min and max, which oclpy does not: of the
    # integer ones none is better
    ("kernel void k(global atomic_float *p) { atomic_fetch_min(p, 1.0f); }",
     "1:41: error: call to 'atomic_fetch_min' is ambiguous"),
])
def test_wrong_arguments_are_diagnosed(src: str, message: str) -> None:
    assert first_error(src) == "<kernel>:" + message


def test_non_atomic_pointer_is_passed_with_clangs_warning() -> None:
    """clang's C overloading takes an incompatible pointer, with a warning, when the
    other arguments choose the overload (`atomic_fetch_add(int *, 1)` is the int one)."""
    result = compile_to_ir("kernel void k(global int *p) { atomic_fetch_add(p, 1); }", CL20)
    assert ("<kernel>:1:49: warning: incompatible pointer types passing '__global int *' to parameter "
            "of type '__generic volatile atomic_int *'") in result.log
    assert "atomicrmw add ptr<generic>" in print_module(result.module)  # infer-address-spaces narrows it


def test_too_few_arguments_note() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("kernel void k(global atomic_int *p) { atomic_exchange(p); }", CL20)
    assert "requires 2 arguments, but 1 was provided" in info.value.log


@pytest.mark.parametrize("src, message", [
    ("kernel void k(global atomic_int *p) { }", "error: unknown type name 'atomic_int'"),
    ("kernel void k(global int *p) { atomic_fetch_add(p, 1); }",
     "error: implicit declaration of function 'atomic_fetch_add' is invalid in OpenCL"),
    ("kernel void k(global int *p) { p[0] = ATOMIC_VAR_INIT(1); }",
     "error: implicit declaration of function 'ATOMIC_VAR_INIT' is invalid in OpenCL"),
])
def test_cl12_does_not_know_the_c11_atomics(src: str, message: str) -> None:
    assert message in first_error(src, "")


def test_float_fetch_add_and_sub_from_every_work_item(queue) -> None:  # type: ignore[no-untyped-def]
    """cl_ext_float_atomics: atomic_fetch_add/sub on atomic_float and atomic_double,
    global and local, from 256 work-items in 4 groups (sums exact in binary)."""
    src = """
    kernel void k(global atomic_float *f, global atomic_double *d, global float *o) {
        atomic_fetch_add(f, 1.5f);
        atomic_fetch_sub_explicit(f + 1, 0.5f, memory_order_relaxed, memory_scope_device);
        atomic_fetch_add_explicit(d, 2.0, memory_order_relaxed);
        local atomic_float l;
        if (get_local_id(0) == 0) atomic_init(&l, 0.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_fetch_add(&l, 1.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0) o[get_group_id(0)] = atomic_load(&l);
    }"""
    f, d, o = run(queue, src, [np.zeros(2, np.float32), np.zeros(1, np.float64), np.zeros(4, np.float32)],
                  256, local=64)
    assert list(f) == [384.0, -128.0] and list(d) == [512.0] and list(o) == [64.0] * 4


def test_float_atomics_have_no_bitwise_fetch() -> None:
    error = first_error("kernel void k(global atomic_float *f) { atomic_fetch_or(f, 1.0f); }")
    assert error == "<kernel>:1:41: error: call to 'atomic_fetch_or' is ambiguous"  # as clang-14


def test_atomic_objects_take_no_operators_and_no_private_initializer() -> None:
    # clang's SemaOpenCL/atomic-init.cl: only the atomic functions access an atomic object
    src = """global atomic_int g = 5;
kernel void k(global int *o) {
  static atomic_int s = 1;
  atomic_int a = 0;
  g = 1;
  o[0] = g;
  o[1] = g + 1;
  g++;
  int x = atomic_load(&g) + atomic_load(&s);
}"""
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, "-cl-std=CL2.0")
    found = re.findall(r"^<kernel>:(\d+:\d+): error: (.*)$", info.value.log, re.M)
    assert found == [
        ("4:18", "atomic variable can be initialized to a variable only in global address space"),
        ("5:5", "atomic variable can be assigned to a variable only in global address space"),
        ("6:8", "atomic variable can be assigned to a variable only in global address space"),
        ("7:12", "invalid operands to binary expression ('atomic_int' and 'int')"),
        ("8:4", "invalid argument type '__global atomic_int' to unary expression"),
    ]
