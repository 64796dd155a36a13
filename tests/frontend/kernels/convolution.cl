// 1-D convolution with a filter in __constant memory: a fixed program-scope
// smoothing filter and a filter passed by the host.
#define RADIUS 2

__constant float smooth[2 * RADIUS + 1] = { 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f };

static inline int clamp_index(int i, int n) { return clamp(i, 0, n - 1); }

__kernel void convolve(__global const float *in, __global float *out, __constant float *filter,
                       const int n, const int use_smooth)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        float w = use_smooth ? smooth[k + RADIUS] : filter[k + RADIUS];
        acc += w * in[clamp_index(i + k, n)];
    }
    out[i] = acc;
}
