__attribute__((noinline)) float f(float a, float b) { return a * b + 1.0f; }
__constant int table[4] = {1, 2, 3, 4};
__attribute__((reqd_work_group_size(64, 1, 1))) kernel void k(global float *a, local float *t, int n) {
  int i = get_global_id(0);
  t[get_local_id(0)] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) a[i] = f(a[i], t[(get_local_id(0) + 1) % 64]) + table[i & 3];
}
