__kernel void k(__global const float *x, __global float *y) {
        size_t i = get_global_id(0);
        float a = y[2*i];
        y[i + (int)x[0]] = 1.0f;
        y[i] = a + y[2*i+1];
    }