typedef struct { int a; float b; } S;
    void set(global int *p, int v) { *p = v; }
    kernel void k(global int *o) {
        S s = ({ S t; t.a = 11; t.b = 2.5f; t; });
        o[0] = s.a + (int)(s.b * 2);
        o[1] = ({ S t = {3, 1.0f}; t; }).a;
        int arr[3] = {5, 6, 7};
        o[2] = ({ arr; })[2];
        ({ set(o + 3, 4); });
        o[4] = sizeof(({ (char)1; }));
    }