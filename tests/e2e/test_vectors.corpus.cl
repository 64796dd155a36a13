
    __kernel void k(__global const float4 *in, __global float4 *out, __local float4 *tile) {
        int l = get_local_id(0), n = get_local_size(0);
        float4 v = in[get_global_id(0)];
        tile[l] = v * 2.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        float4 acc = v;
        for (int k = 1; k < 4; ++k) acc += tile[(l + k) % n].wzyx;
        out[get_global_id(0)] = acc;
    }