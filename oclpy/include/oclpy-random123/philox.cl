/* oclpy-random123/philox.cl: the same header as pyopencl-random123/philox.cl. */
#include "../pyopencl-random123/philox.cl"
