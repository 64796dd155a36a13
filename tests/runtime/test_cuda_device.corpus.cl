
__constant float coef[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__kernel void axpb(__global const float *a, __global float *c, float s) {
  size_t i = get_global_id(0);
  c[i - get_global_offset(0)] = s * a[i - get_global_offset(0)] + coef[i & 3] + sin(a[i - get_global_offset(0)]);
}
__kernel void sums(__global const float *in, __global float *out, __global int *total,
                   __local float *tmp) {
  __local float tile[128];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  tile[l] = tmp[l] * 2.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    float s = 0.0f;
    for (uint i = 0; i < get_local_size(0); i++) s += tile[i];
    out[get_group_id(0)] = s;
    atomic_add(total, (int)s);
  }
}
typedef struct { float3 v; int k; } P;
__kernel void structs(P p, __global float *out) {
  out[get_global_id(0)] = p.v.y * p.k + get_work_dim();
}
