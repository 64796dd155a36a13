
global int counter;
global int table[5] = {10, 20, 30, 40, 50};
global float scale = 0.5f;
__attribute__((noinline)) int bump(int v) { return atomic_fetch_add((volatile global atomic_int *)&counter, v); }
kernel void k(global int *out) {
  size_t i = get_global_id(0);
  int before = bump(1);
  out[i] = before >= 0 ? table[i % 5] + (int)(scale * 4) : -1;
  if (i == 0) table[4] = 99;
}
kernel void read(global int *out) { out[0] = counter; out[1] = table[4]; }
