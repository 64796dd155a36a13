
global long total;
global int table[5] = {10, 20, 30, 40, 50};
global float scale = 0.5f;
__attribute__((noinline)) int entry(size_t i) { return table[i % 5]; }
kernel void k(global int *out) {
  size_t i = get_global_id(0);
  out[i] = entry(i) + (int)(scale * 4);
  atomic_fetch_add((volatile global atomic_long *)&total, (long)i);
}
kernel void read(global long *out) { out[0] = total; for (int j = 0; j < 5; j++) out[1 + j] = table[j]; }
