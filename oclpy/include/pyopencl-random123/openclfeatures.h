/* oclpy's Random123 configuration for OpenCL C: the R123_* feature macros
 * Random123 programs test, and the fixed-width integer names its API uses.
 * Written for oclpy (the API follows Random123 by D. E. Shaw Research). */
#ifndef OCLPY_R123_OPENCLFEATURES_H
#define OCLPY_R123_OPENCLFEATURES_H

#define R123_STATIC_INLINE inline
#define R123_FORCE_INLINE(decl) decl __attribute__((always_inline))
#define R123_CUDA_DEVICE
#define R123_ASSERT(x)
#define R123_BUILTIN_EXPECT(expr, likely) expr
#define R123_USE_GNU_UINT128 0
#define R123_USE_MULHILO64_ASM 0
#define R123_USE_MULHILO64_MSVC_INTRIN 0
#define R123_USE_MULHILO64_CUDA_INTRIN 0
#define R123_USE_MULHILO64_OPENCL_INTRIN 1
#define R123_USE_AES_NI 0
#define R123_64BIT(x) ((ulong) (x##UL))

typedef ulong uint64_t;
typedef uint uint32_t;
typedef uchar uint8_t;

#endif
