/* Random123's counter and key types for OpenCL C: struct r123arrayNxW
 * holds N words of W bits in its member `v`. */
#ifndef OCLPY_R123_ARRAY_H
#define OCLPY_R123_ARRAY_H

#include "openclfeatures.h"

struct r123array1x32 { uint32_t v[1]; };
struct r123array2x32 { uint32_t v[2]; };
struct r123array4x32 { uint32_t v[4]; };
struct r123array8x32 { uint32_t v[8]; };
struct r123array1x64 { uint64_t v[1]; };
struct r123array2x64 { uint64_t v[2]; };
struct r123array4x64 { uint64_t v[4]; };
struct r123array16x8 { uint8_t v[16]; };

/* the width in bits of a word of array type `a` */
#define R123_W(a) (8 * sizeof(((a *) 0)->v[0]))

#endif
