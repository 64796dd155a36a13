#include <pyopencl-complex.h>
__kernel void k(__global int *o) { o[0] = MINE; }