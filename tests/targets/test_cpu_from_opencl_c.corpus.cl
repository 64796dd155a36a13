
typedef struct { int n; float3 v; double d; } S;
__constant float lut[4] = {1, 2, 3, 4};

float helper(float x) { return sinpi(x) + lut[get_global_id(0) & 3]; }

__kernel void red(__global const float *in, __global float *out, __local float *scratch, S s) {
  __local float tile[64];
  int lid = get_local_id(0);
  float priv[3] = {1, 2, 3};
  scratch[lid] = in[get_global_id(0)];
  tile[lid] = priv[lid % 3];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int st = get_local_size(0) / 2; st > 0; st >>= 1) {
    if (lid < st) { scratch[lid] += scratch[lid + st]; tile[lid] += tile[lid + st]; }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    out[get_group_id(0)] = scratch[0] + s.v.y * s.n + (float)s.d
                         + helper(0.5f) - lut[get_global_id(0) & 3] + priv[2] - 3 + tile[0] * 0;
}

__kernel void v3(__global float3 *a, __global int *cnt) {
  size_t i = get_global_id(0);
  a[i] = a[i] * 2.0f + (float3)(1, 2, 3);
  atomic_inc(cnt);
}
