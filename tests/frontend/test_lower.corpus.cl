typedef union { int i; float f; } U;
U mk(float f) { U u; u.f = f; return u; }
typedef struct { int a; U u; } S;
S ms(void) { S s; s.a = 1; return s; }
__kernel void k(__global int *o) { o[0] = mk(1.0f).i + ms().u.i; }