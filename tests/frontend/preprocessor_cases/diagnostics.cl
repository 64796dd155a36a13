// Warnings clang gives while preprocessing, with their locations.
#warning a user warning   with   spaces
#ifdef X garbage
#endif
#if 1
#else junk
#endif junk
#undef X Y
#define R 1
#define R 2
#define __LINE__ 3
#undef __FILE__
#if 0x7fffffff * 2 + 'ab'
#endif
#line 5 "x.cl" extra
int done;
