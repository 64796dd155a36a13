int f2(int a, int b) { return a; }
kernel void k(global int *o) { o[0] = f2(1); o[1] = f2(1, 2, 3); }