struct S { int a; volatile ushort b; };
__kernel void entry(__global ulong *r) { struct S c, d; c = d; r[0] = c.b; }
