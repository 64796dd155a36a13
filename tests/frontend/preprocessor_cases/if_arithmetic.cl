// #if arithmetic follows C: intmax_t/uintmax_t, the usual arithmetic
// conversions, truncating division, short-circuit operators, suffixes,
// character constants, shifts, unknown identifiers as 0. Every check writes
// "ok_N" when it holds and "bad_N" when it does not.
#if -7 % 2 == -1
ok_1
#else
bad_1
#endif
#if -7 / 2 == -3 && 7 % -2 == 1 && -7 % -2 == -1
ok_2
#else
bad_2
#endif
#if 1u - 2 > 0 && 0u - 1 > 0
ok_3
#else
bad_3
#endif
#if 0 && (1 / 0) || 1 || (1 % 0)
ok_4
#else
bad_4
#endif
#if (1 ? 2 : (1 / 0)) == 2 && (0 ? (1 / 0) : 3) == 3
ok_5
#else
bad_5
#endif
#if 1 == 1L && 2ll == 2 && 3ULL == 3 && 0x10 == 16 && 010 == 8 && 4lu == 4 && 5LLU == 5
ok_6
#else
bad_6
#endif
#if 'a' == 97 && '\n' == 10 && '\0' == 0 && '\x41' == 65 && '\377' < 0 && '\'' == 39
ok_7
#else
bad_7
#endif
#if (1 << 10) == 1024 && (-16 >> 2) == -4 && (0xffffffffffffffffu >> 63) == 1 && 1 << 0 == 1
ok_8
#else
bad_8
#endif
#if !0 && ~0 == -1 && -(-3) == 3 && +4 == 4 && !!5 == 1 && ~0u > 0
ok_9
#else
bad_9
#endif
#if undefined_name == 0 && !undefined_name && (undefined_name + 3) == 3
ok_10
#else
bad_10
#endif
#if (2 || 1 / 0) == 1 && (0 && 1 / 0) == 0 && (1, 2) == 2
ok_11
#else
bad_11
#endif
#if 0x7fffffffffffffff > 0 && -0x7fffffffffffffff - 1 < 0 && 18446744073709551615u > 0
ok_12
#else
bad_12
#endif
#if (3 & 5) == 1 && (3 | 5) == 7 && (3 ^ 5) == 6 && 2 * 3 + 4 == 10 && 10 - 2 - 3 == 5
ok_13
#else
bad_13
#endif
#if 1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3 && 1 != 2 && (1 < 2) + (2 < 1) == 1
ok_14
#else
bad_14
#endif
#if defined(N) || defined N
bad_15
#else
ok_15
#endif
#define N
#if defined(N) && defined N && defined ( N )
ok_16
#else
bad_16
#endif
#define ZERO 0
#define EXPR (ZERO + 1) * 2
#if EXPR == 2 && ZERO == 0
ok_17
#else
bad_17
#endif
#if 0b101 == 5 && 1 ? 0 : 1
bad_18
#else
ok_18
#endif
