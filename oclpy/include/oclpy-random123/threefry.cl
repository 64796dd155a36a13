/* oclpy-random123/threefry.cl: the same header as pyopencl-random123/threefry.cl. */
#include "../pyopencl-random123/threefry.cl"
