
__kernel void red(__global const float *in, __global float *out, __local float *tmp) {
  __local float tile[64];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  tile[l] = tmp[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[63 - l];
}
