
typedef struct { int v[4]; } S;
typedef union { int i; float f; } U;
typedef struct { S a; int b; } T;
S make(int a) { S s; for (int i = 0; i < 4; i++) s.v[i] = a + i; return s; }
U mk(float f) { U u; u.f = f; return u; }
T mt(int x) { T t; t.a = make(x); t.b = x * 10; return t; }
__kernel void k(__global int *o, int c) {
  S s1 = make(1), s2 = make(100);
  o[0] = make(3).v[2];
  o[1] = (c ? s1 : s2).v[3];
  o[2] = mk(1.0f).i;
  o[3] = mt(5).a.v[1] + mt(6).b;
  o[4] = (s1 = make(7)).v[0];
  o[5] = s1.v[1];
}
