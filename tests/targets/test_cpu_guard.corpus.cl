
__kernel void paths(__global float *out, __global const float *r, int n, int m) {
    int g = get_global_id(0);
    if (g < n) {
        float s = 0.0f;
        for (int i = 0; i < m; i++) s += exp(r[i] * (float)g);
        out[g] = s;
    }
}
