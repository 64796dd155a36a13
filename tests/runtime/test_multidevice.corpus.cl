
__kernel void twice(read_only image2d_t src, write_only image2d_t dst) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, CLK_NORMALIZED_COORDS_FALSE | CLK_FILTER_NEAREST, p) * 2.0f);
}
