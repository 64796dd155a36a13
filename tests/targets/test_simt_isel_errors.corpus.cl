__attribute__((noinline)) void h(int x) { printf("%d\n", x); }
kernel void k(int x) { h(x); }