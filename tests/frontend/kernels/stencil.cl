__constant float weights[3][3] = {
    {0.0625f, 0.125f, 0.0625f},
    {0.125f,  0.25f,  0.125f},
    {0.0625f, 0.125f, 0.0625f},
};

inline float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

__kernel void blur(__global const float4 *src, __global float4 *dst, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    float4 sum = (float4)(0.0f);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);
            sum += weights[dy + 1][dx + 1] * src[yy * w + xx];
        }
    sum.w = 1.0f;
    dst[y * w + x] = (float4)(sum.xyz, clampf(sum.w, 0.0f, 1.0f));
}
