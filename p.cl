
kernel void k(global float *gf, global int *gi, global uint *gu, local float *lf, local int *li) {
  float f = 1; double d = 1; int i = 1; uint u = 1; char c = 1; uchar uc = 1; short s = 1; ushort us = 1; long l = 1; ulong ul = 1;
  float4 f4 = 1; int4 i4 = 1; uint4 u4 = 1; double4 d4 = 1; char4 c4 = 1; short4 s4=1; float2 f2 = 1;
  (void)(atomic_add(gf, 1.0f));
}
