void sync(__local int *p) { p[0] = 1; barrier(CLK_LOCAL_MEM_FENCE); }
             __kernel void k(__global int *a) { a[0] = 5; }