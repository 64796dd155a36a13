// RUN: simt-locs -O2
// Loads and stores carry the subscript's and the assignment's locations
// through inlining, mem2reg and register allocation.
// CHECK-LABEL: kernel @copy
// CHECK: global_load_b32 {{.*}} loc "k.cl":13:19
// CHECK: v_div_i32 {{.*}} loc "k.cl":13:23
// CHECK: global_store_b32 {{.*}} loc "k.cl":13:16
// CHECK: s_barrier loc "k.cl":14:5
// CHECK: s_endpgm{{$}}
__kernel void copy(__global int *out, __global const int *a, int n) {
    int i = get_global_id(0);
    if (i < n)
        out[i] = a[i] / n;
    barrier(CLK_LOCAL_MEM_FENCE);
}
// -----
// RUN: simt-locs -O2
// An inlined helper's instructions keep the helper's lines.
// CHECK-LABEL: kernel @caller
// CHECK: ds_store_b32 {{.*}} loc "k.cl":7:51
// CHECK: ds_load_b32 {{.*}} loc "k.cl":12:15
// CHECK: global_store_b32 {{.*}} loc "k.cl":12:12
void put(__local float *t, int i, float x) { t[i] = x; }
__kernel void caller(__global float *out) {
    __local float t[64];
    put(t, get_local_id(0), 1.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[0] = t[63 - get_local_id(0)];
}
// -----
// RUN: simt-locs -O0
// At -O0 the private variables live in scratch; their accesses have locations too.
// CHECK-LABEL: kernel @scratch
// CHECK: scratch_store_b32 {{.*}} loc "k.cl":7:9
// CHECK: global_store_b32 {{.*}} loc "k.cl":8:12
__kernel void scratch(__global int *out, int n) {
    int x = n * 2;
    out[0] = x;
}
