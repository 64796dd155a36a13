typedef struct { int4 a; int b; } S;
kernel void k(global int *o) {
  int4 v = {1, 2, 3};
  S s = {{1, 2}, 3};
  int4 z = {};
  o[0] = v.w + s.b + z.x;
}
