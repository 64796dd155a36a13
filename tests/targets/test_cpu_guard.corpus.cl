
    __kernel void pi(__global float *out, int niters, float step) {
        int g = get_global_id(0); int a = g * niters; float acc = 0.0f;
        for (int i = a; i < a + niters; i++) { float x = (i + 0.5f) * step; acc += 4.0f / (1.0f + x * x); }
        out[g] = acc;
    }