
    __kernel void k(__global const half *H, __constant half *C, __global float *O, __global half *S) {
        size_t i = get_global_id(0);
        O[i] = vload_half(i, H);
        vstore4(vload_half4(i, H), i, O + 64);
        vstore3(vload_half3(i, H), i, O + 128);          /* packed: stride 3 */
        vstore3(vloada_half3(i, H), i, O + 192);         /* aligned: stride 4 */
        vstore8(vload_half8(i, C), i, O + 256);
        vstorea_half3(vloada_half3(i, H), i, S);          /* stride 4, fourth half untouched */
        vstorea_half2_rtz(vload2(i, O + 512), i, S + 64);
    }