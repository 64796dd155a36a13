kernel void k(global int *o) {
#pragma unroll
 for (int i = 0; i < 4; i++) o[i] = i;
  _Pragma("unroll 2") for (int i = 4; i < 8; i++) o[i] = i;
}
