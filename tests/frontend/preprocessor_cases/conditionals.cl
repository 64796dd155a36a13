// Nested conditionals, #elif after a taken group (never evaluated), #elif
// chains, #ifdef/#ifndef, text of every kind in skipped groups.
#if 1
int a1;
#elif 1 / 0
int a2;
#elif garbage (((
int a3;
#else
int a4;
#endif
#if 0
#if 1
int b1;
#else
int b2;
#endif
#error not reached
#frobnicate
don't stop at an apostrophe " or a quote
#elif 0
int b3;
#elif 2 > 1
int b4;
# if 0
int b5;
# elif 1
int b6;
# endif
#else
int b7;
#endif
#define D
#ifdef D
int c1;
#ifndef D
int c2;
#endif
#endif
#ifndef UNDEFINED
int c3;
#else
int c4;
#endif
#if 0
#elif 0
#else
int d1;
#endif
#
#ifdef D garbage after
int e1;
#endif
