kernel void k(global int *g) {
  __generic int *p = g;
  int * generic q = g;
}