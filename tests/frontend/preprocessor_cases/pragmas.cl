// Pragmas reach the compiler unchanged; _Pragma becomes a #pragma line.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma
#pragma unroll
#pragma unroll 4
#pragma OPENCL FP_CONTRACT ON
#pragma STDC FP_CONTRACT OFF
int a; _Pragma("unroll 8") int b;
_Pragma("OPENCL EXTENSION cl_khr_fp16 : enable")
#define UNROLL(n) _Pragma("unroll") for (int i = 0; i < n; i++)
UNROLL(4) a++;
#define DO_PRAGMA(x) _Pragma(#x)
DO_PRAGMA(unroll 2) b++;
_Pragma(L"wide string \"quoted\" \\ backslash")
