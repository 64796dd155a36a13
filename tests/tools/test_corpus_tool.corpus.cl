kernel void a() {}
