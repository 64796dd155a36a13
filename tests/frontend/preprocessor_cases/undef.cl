// #undef, redefinition after #undef, and #undef of names never defined.
#define A 1
int a1 = A;
#undef A
int a2 = A;
#define A 2
int a3 = A;
#undef NEVER_DEFINED
#define F(x) x
#undef F
int f = F(3);
#ifdef A
int a_defined;
#endif
#undef A
#ifndef A
int a_undefined;
#endif
