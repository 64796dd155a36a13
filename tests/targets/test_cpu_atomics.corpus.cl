
__kernel void k(__global int *out, __global int *g, __local int *t) {
    int l = get_local_id(0);
    if (l < 8) t[l] = (l == 3) ? 100 : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&t[0]);
    atomic_add(&t[1], l);
    atomic_max(&t[2], l * 7 % 11);
    atomic_min(&t[3], l);
    atomic_xchg(&t[4], 42);
    atomic_cmpxchg(&t[5], l, l + 1);
    atomic_or(&t[6], 1 << (l % 16));
    atomic_sub(&t[7], 2);
    atomic_inc(&g[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 8) out[get_group_id(0) * 8 + l] = t[l];
}
