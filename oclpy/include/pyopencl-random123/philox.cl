/* Philox counter-based generators (Salmon, Moraes, Dror, Shaw: "Parallel
 * random numbers: as easy as 1, 2, 3", SC11) with Random123's OpenCL C API:
 *   philoxNxW_ctr_t, philoxNxW_key_t, philoxNxW_ukey_t (struct r123arrayNxW),
 *   philoxNxW(ctr, key)            -- the default 10 rounds,
 *   philoxNxW_R(rounds, ctr, key)  -- 0 to 16 rounds,
 *   philoxNxWkeyinit(ukey), enum philoxNxW_rounds,
 * for NxW in 2x32, 4x32, 2x64, 4x64. Written for oclpy; checked against
 * Random123's known-answer vectors in oclpy's tests. */
#ifndef OCLPY_R123_PHILOX_H
#define OCLPY_R123_PHILOX_H

#include "array.h"

#define PHILOX_M2x32_0 ((uint32_t) 0xd256d193)
#define PHILOX_M4x32_0 ((uint32_t) 0xD2511F53)
#define PHILOX_M4x32_1 ((uint32_t) 0xCD9E8D57)
#define PHILOX_W32_0 ((uint32_t) 0x9E3779B9)
#define PHILOX_W32_1 ((uint32_t) 0xBB67AE85)
#define PHILOX_M2x64_0 R123_64BIT(0xD2B74407B1CE6E93)
#define PHILOX_M4x64_0 R123_64BIT(0xD2E7470EE14C6C93)
#define PHILOX_M4x64_1 R123_64BIT(0xCA5A826395121157)
#define PHILOX_W64_0 R123_64BIT(0x9E3779B97F4A7C15)
#define PHILOX_W64_1 R123_64BIT(0xBB67AE8584CAA73B)
#ifndef PHILOX2x32_DEFAULT_ROUNDS
#define PHILOX2x32_DEFAULT_ROUNDS 10
#endif
#ifndef PHILOX4x32_DEFAULT_ROUNDS
#define PHILOX4x32_DEFAULT_ROUNDS 10
#endif
#ifndef PHILOX2x64_DEFAULT_ROUNDS
#define PHILOX2x64_DEFAULT_ROUNDS 10
#endif
#ifndef PHILOX4x64_DEFAULT_ROUNDS
#define PHILOX4x64_DEFAULT_ROUNDS 10
#endif

/* One round of PhiloxNxW: products of the even words by the multipliers;
 * each high half is mixed with an odd word and a key word. */
#define OCLPY_PHILOX2(W, T) \
typedef struct r123array2x##W philox2x##W##_ctr_t; \
typedef struct r123array1x##W philox2x##W##_key_t; \
typedef struct r123array1x##W philox2x##W##_ukey_t; \
enum r123_enum_philox2x##W { philox2x##W##_rounds = PHILOX2x##W##_DEFAULT_ROUNDS }; \
inline philox2x##W##_key_t philox2x##W##keyinit(philox2x##W##_ukey_t uk) { return uk; } \
inline philox2x##W##_ctr_t philox2x##W##_R(unsigned int rounds, philox2x##W##_ctr_t c, \
                                           philox2x##W##_key_t k) \
{ \
  for (unsigned int r = 0; r < rounds; ++r) { \
    if (r > 0) k.v[0] += PHILOX_W##W##_0; \
    T lo = PHILOX_M2x##W##_0 * c.v[0], hi = mul_hi(PHILOX_M2x##W##_0, c.v[0]); \
    c.v[0] = hi ^ k.v[0] ^ c.v[1]; \
    c.v[1] = lo; \
  } \
  return c; \
}

#define OCLPY_PHILOX4(W, T) \
typedef struct r123array4x##W philox4x##W##_ctr_t; \
typedef struct r123array2x##W philox4x##W##_key_t; \
typedef struct r123array2x##W philox4x##W##_ukey_t; \
enum r123_enum_philox4x##W { philox4x##W##_rounds = PHILOX4x##W##_DEFAULT_ROUNDS }; \
inline philox4x##W##_key_t philox4x##W##keyinit(philox4x##W##_ukey_t uk) { return uk; } \
inline philox4x##W##_ctr_t philox4x##W##_R(unsigned int rounds, philox4x##W##_ctr_t c, \
                                           philox4x##W##_key_t k) \
{ \
  for (unsigned int r = 0; r < rounds; ++r) { \
    if (r > 0) { k.v[0] += PHILOX_W##W##_0; k.v[1] += PHILOX_W##W##_1; } \
    T lo0 = PHILOX_M4x##W##_0 * c.v[0], hi0 = mul_hi(PHILOX_M4x##W##_0, c.v[0]); \
    T lo1 = PHILOX_M4x##W##_1 * c.v[2], hi1 = mul_hi(PHILOX_M4x##W##_1, c.v[2]); \
    T c1 = c.v[1], c3 = c.v[3]; \
    c.v[0] = hi1 ^ c1 ^ k.v[0]; \
    c.v[1] = lo1; \
    c.v[2] = hi0 ^ c3 ^ k.v[1]; \
    c.v[3] = lo0; \
  } \
  return c; \
}

OCLPY_PHILOX2(32, uint32_t)
OCLPY_PHILOX4(32, uint32_t)
OCLPY_PHILOX2(64, uint64_t)
OCLPY_PHILOX4(64, uint64_t)

#define philox2x32(c, k) philox2x32_R(philox2x32_rounds, c, k)
#define philox4x32(c, k) philox4x32_R(philox4x32_rounds, c, k)
#define philox2x64(c, k) philox2x64_R(philox2x64_rounds, c, k)
#define philox4x64(c, k) philox4x64_R(philox4x64_rounds, c, k)

#endif
