kernel void a(global float *p) {
  p[0] = 1
  p[1] = ;
  flot z;
}
kernel void b(global int *q) {
  if q) q[0] = 1;
  q[1] = 2;
}
int ok;
