typedef struct { int a; } S;
struct T;
kernel void k(global int *o) {
  o[0] = __builtin_offsetof(S, nope);
  o[1] = __builtin_offsetof(int, a);
  o[2] = __builtin_offsetof(struct T, a);
}