typedef struct { int a; char b; double d; } S;
typedef struct { char c; S inner[2]; float4 v; } T;
constant S cs = {1, 2, 3.0};
enum { E1 = sizeof(cs), E2 = sizeof(cs.b) + _Alignof(T) };
kernel void k(global int *o, global float4 *v, local T *lt) {
  int x;
  float4 f;
  short3 s3;
  T t;
  int arr[5];
  long l;
  char a1[sizeof(x)];
  char a2[sizeof x * 2];
  char a3[sizeof(cs.d) + sizeof(S)];
  char a4[__alignof__(S) + _Alignof(double) + __alignof(x)];
  char a5[sizeof(v[0]) + sizeof(*v) + sizeof(v)];
  char a6[sizeof(f.xy) + sizeof(f.s012) * 10 + sizeof(f.x) * 100];
  char a7[sizeof(int[3]) / sizeof(int)];
  char a8[sizeof(s3) + sizeof(s3.lo) * 10 + sizeof(s3 == s3) * 100];
  char a9[sizeof(o) == 8 ? 1 : 2];
  char a10[sizeof(arr) / sizeof(arr[0])];
  char a11[vec_step(f) + vec_step(float3) * 10 + vec_step(s3) * 100];
  char a12[sizeof(t.inner) + sizeof(lt->inner[1].d) * 100];
  char a13[sizeof(x + l) + sizeof('a') * 10 + sizeof(1.0f) * 100];
  char a14[sizeof(x < 2) + sizeof(&x) * 10 + sizeof(f * 2.0f) * 100];
  char a15[sizeof("abc") + sizeof(x ? f : f) * 10 + sizeof(l = 3) * 100];
  char a16[sizeof(1ul) + sizeof(-'a') * 10 + sizeof((char)x) * 100];
  char a17[sizeof(arr + 1) + sizeof(&arr[1] - &arr[0]) * 10];
  char a18[E1 + E2 * 100];
  char a19[sizeof(get_global_id(0)) + sizeof(get_local_size(0)) * 10 + sizeof(get_work_dim()) * 100];
  char a20[sizeof(sin(f)) + sizeof(dot(f, f)) * 10 + sizeof(fabs(1.0f)) * 100 + sizeof(fmax(f.x, 1)) * 1000];
  char a21[sizeof(convert_int2(f.xy)) + sizeof(as_uint4(f)) * 10 + sizeof(max(x, 2)) * 100];
  char a22[sizeof(isequal(f, f)) + sizeof(abs(x)) * 10 + sizeof(clamp(f, 0.0f, 1.0f)) * 100 + sizeof(fmax(f, 1)) * 1000];
  int pos = 0;
  switch (o[0]) {
    case sizeof(x): o[1] = 1; break;
    case sizeof(S) * 2: o[1] = 2; break;
    case _Alignof(S) + 1: o[1] = 3; break;
    case sizeof(cs) + 1: o[1] = 4; break;
  }
#define P(a) o[2 + pos++] = sizeof(a);
  P(a1) P(a2) P(a3) P(a4) P(a5) P(a6) P(a7) P(a8) P(a9) P(a10) P(a11) P(a12) P(a13) P(a14) P(a15) P(a16) P(a17) P(a18) P(a19) P(a20) P(a21) P(a22)
}
