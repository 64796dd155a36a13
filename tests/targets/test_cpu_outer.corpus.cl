
    __kernel void k(int n, __global const float *x, __global float *y) {
        int i = get_global_id(0);
        float s = 0.0f, v = x[i];
        for (int a = 0; a < n; ++a)
            s += sin(v * (float)a) * exp(-0.1f * (float)a) + sqrt(v + (float)a);
        y[i] = s;
    }