/* oclpy-complex.h: the same header as pyopencl-complex.h, under oclpy's name. */
#include "pyopencl-complex.h"
