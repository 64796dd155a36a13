#ifndef __has_builtin
#define __has_builtin(x) 0
#endif
#if __has_builtin(__builtin_expect)
#define likely(x) __builtin_expect(!!(x), 1)
#else
#error no __builtin_expect
#endif
kernel void k(global int *o) { if (likely(o[1] > 0)) o[0] = 1; }
