struct S { int a; float b };
kernel void k(global struct S *s) { s->a = 1; }