/* oclpy-random123/array.h: the same header as pyopencl-random123/array.h. */
#include "../pyopencl-random123/array.h"
