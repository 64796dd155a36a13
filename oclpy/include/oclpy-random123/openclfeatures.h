/* oclpy-random123/openclfeatures.h: the same header as pyopencl-random123/openclfeatures.h. */
#include "../pyopencl-random123/openclfeatures.h"
