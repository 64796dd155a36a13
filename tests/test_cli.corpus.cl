global atomic_int sync = ATOMIC_VAR_INIT(0);
kernel void k(global int *o) { o[0] = atomic_load(&sync); }
