
    __kernel void k(int n, __global const int *x, __global int *y) {
        int i = get_global_id(0), s = 0, t = 0;
        for (int a = 0; a < n; ++a) s += x[a] * i;
        for (int b = n; b > 0; --b) t ^= s + b;
        y[i] = t;
    }