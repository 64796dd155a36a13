/* Threefry counter-based generators (Salmon, Moraes, Dror, Shaw: "Parallel
 * random numbers: as easy as 1, 2, 3", SC11; the Threefish cipher of Skein
 * without its tweak) with Random123's OpenCL C API:
 *   threefryNxW_ctr_t, threefryNxW_key_t, threefryNxW_ukey_t,
 *   threefryNxW(ctr, key)            -- the default 20 rounds,
 *   threefryNxW_R(rounds, ctr, key)  -- 0 to 72 rounds,
 *   threefryNxWkeyinit(ukey), enum threefryNxW_rounds,
 * for NxW in 2x32, 4x32, 2x64, 4x64. Written for oclpy; checked against
 * Random123's known-answer vectors in oclpy's tests. */
#ifndef OCLPY_R123_THREEFRY_H
#define OCLPY_R123_THREEFRY_H

#include "array.h"

#define SKEIN_KS_PARITY32 ((uint32_t) 0x1BD11BDA)
#define SKEIN_KS_PARITY64 R123_64BIT(0x1BD11BDAA9FC1A22)
#ifndef THREEFRY2x32_DEFAULT_ROUNDS
#define THREEFRY2x32_DEFAULT_ROUNDS 20
#endif
#ifndef THREEFRY2x64_DEFAULT_ROUNDS
#define THREEFRY2x64_DEFAULT_ROUNDS 20
#endif
#ifndef THREEFRY4x32_DEFAULT_ROUNDS
#define THREEFRY4x32_DEFAULT_ROUNDS 20
#endif
#ifndef THREEFRY4x64_DEFAULT_ROUNDS
#define THREEFRY4x64_DEFAULT_ROUNDS 20
#endif

/* Rotation amounts of round r % 8: 2xW rotates one word, 4xW two. */
#define OCLPY_THREEFRY_ROT_2x32 {13, 15, 26, 6, 17, 29, 16, 24}
#define OCLPY_THREEFRY_ROT_2x64 {16, 42, 12, 31, 16, 32, 24, 21}
#define OCLPY_THREEFRY_ROT0_4x32 {10, 11, 13, 23, 6, 17, 25, 18}
#define OCLPY_THREEFRY_ROT1_4x32 {26, 21, 27, 5, 20, 11, 10, 20}
#define OCLPY_THREEFRY_ROT0_4x64 {14, 52, 23, 5, 25, 46, 58, 32}
#define OCLPY_THREEFRY_ROT1_4x64 {16, 57, 40, 37, 33, 12, 22, 32}

/* Every round mixes pairs of words (add, rotate, xor); after every fourth
 * round the key schedule word s is injected (plus s into the last word). */
#define OCLPY_THREEFRY2(W, T) \
typedef struct r123array2x##W threefry2x##W##_ctr_t; \
typedef struct r123array2x##W threefry2x##W##_key_t; \
typedef struct r123array2x##W threefry2x##W##_ukey_t; \
enum r123_enum_threefry2x##W { threefry2x##W##_rounds = THREEFRY2x##W##_DEFAULT_ROUNDS }; \
inline threefry2x##W##_key_t threefry2x##W##keyinit(threefry2x##W##_ukey_t uk) { return uk; } \
inline threefry2x##W##_ctr_t threefry2x##W##_R(unsigned int rounds, threefry2x##W##_ctr_t c, \
                                               threefry2x##W##_key_t k) \
{ \
  const T rot[8] = OCLPY_THREEFRY_ROT_2x##W; \
  T ks[3] = {k.v[0], k.v[1], SKEIN_KS_PARITY##W ^ k.v[0] ^ k.v[1]}; \
  T x0 = c.v[0] + ks[0], x1 = c.v[1] + ks[1]; \
  for (unsigned int r = 0; r < rounds; ++r) { \
    x0 += x1; x1 = rotate(x1, rot[r & 7]); x1 ^= x0; \
    if ((r & 3) == 3) { \
      unsigned int s = (r + 1) / 4; \
      x0 += ks[s % 3]; x1 += ks[(s + 1) % 3] + (T) s; \
    } \
  } \
  c.v[0] = x0; c.v[1] = x1; \
  return c; \
}

#define OCLPY_THREEFRY4(W, T) \
typedef struct r123array4x##W threefry4x##W##_ctr_t; \
typedef struct r123array4x##W threefry4x##W##_key_t; \
typedef struct r123array4x##W threefry4x##W##_ukey_t; \
enum r123_enum_threefry4x##W { threefry4x##W##_rounds = THREEFRY4x##W##_DEFAULT_ROUNDS }; \
inline threefry4x##W##_key_t threefry4x##W##keyinit(threefry4x##W##_ukey_t uk) { return uk; } \
inline threefry4x##W##_ctr_t threefry4x##W##_R(unsigned int rounds, threefry4x##W##_ctr_t c, \
                                               threefry4x##W##_key_t k) \
{ \
  const T rot0[8] = OCLPY_THREEFRY_ROT0_4x##W; \
  const T rot1[8] = OCLPY_THREEFRY_ROT1_4x##W; \
  T ks[5] = {k.v[0], k.v[1], k.v[2], k.v[3], \
             SKEIN_KS_PARITY##W ^ k.v[0] ^ k.v[1] ^ k.v[2] ^ k.v[3]}; \
  T x0 = c.v[0] + ks[0], x1 = c.v[1] + ks[1], x2 = c.v[2] + ks[2], x3 = c.v[3] + ks[3]; \
  for (unsigned int r = 0; r < rounds; ++r) { \
    if ((r & 1) == 0) { \
      x0 += x1; x1 = rotate(x1, rot0[r & 7]); x1 ^= x0; \
      x2 += x3; x3 = rotate(x3, rot1[r & 7]); x3 ^= x2; \
    } else { \
      x0 += x3; x3 = rotate(x3, rot0[r & 7]); x3 ^= x0; \
      x2 += x1; x1 = rotate(x1, rot1[r & 7]); x1 ^= x2; \
    } \
    if ((r & 3) == 3) { \
      unsigned int s = (r + 1) / 4; \
      x0 += ks[s % 5]; x1 += ks[(s + 1) % 5]; x2 += ks[(s + 2) % 5]; x3 += ks[(s + 3) % 5] + (T) s; \
    } \
  } \
  c.v[0] = x0; c.v[1] = x1; c.v[2] = x2; c.v[3] = x3; \
  return c; \
}

OCLPY_THREEFRY2(32, uint32_t)
OCLPY_THREEFRY4(32, uint32_t)
OCLPY_THREEFRY2(64, uint64_t)
OCLPY_THREEFRY4(64, uint64_t)

#define threefry2x32(c, k) threefry2x32_R(threefry2x32_rounds, c, k)
#define threefry4x32(c, k) threefry4x32_R(threefry4x32_rounds, c, k)
#define threefry2x64(c, k) threefry2x64_R(threefry2x64_rounds, c, k)
#define threefry4x64(c, k) threefry4x64_R(threefry4x64_rounds, c, k)

#endif
