__attribute__((overloadable)) int f(int x);
__attribute__((overloadable)) int f(float x) { return f((int)x); }
__attribute__((overloadable)) int f(int x) { return f((float)x); }
kernel void k(global int *o) { o[0] = f(1); }