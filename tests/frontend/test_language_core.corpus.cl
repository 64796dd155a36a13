__constant sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void blur(__read_only image2d_t src, __write_only image2d_t dst) {
    int2 pos = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, pos, read_imagef(src, sampler, pos) * 0.5f);
}