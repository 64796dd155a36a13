typedef struct {
        int tag;
        union { int i; float f; struct { short lo, hi; }; };
        struct { int a; union { int b; uint ub; }; };
    } S;
    kernel void k(global int *o, global S *g) {
        S s; s.tag = 1; s.f = 1.0f; s.a = 3; s.b = -1;
        o[0] = s.i; o[1] = s.a + s.ub % 7;
        s.lo = 5; s.hi = 6;
        o[2] = s.i == ((6 << 16) | 5);
        S *p = &s; p->hi = 9;
        o[3] = p->hi + sizeof(S);
        g->a = 42; o[4] = g->b;
        S t = { 7, { .f = 2.0f }, { 8, { 9 } } };
        o[5] = t.a * 10 + t.b;
    }