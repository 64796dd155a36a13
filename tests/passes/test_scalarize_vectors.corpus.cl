__kernel void k(__global const float4 *in, __global const int *idx,
                                __global float4 *out) {
        int g = get_global_id(0);
        out[g] = in[idx[g]] * 2.0f;
    }