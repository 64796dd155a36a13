_Static_assert(sizeof(private int *) == 4, "32-bit private pointers");
kernel void k(global int *o) { o[0] = 1; }
