
kernel void sample(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void sample3(read_only image3d_t img, sampler_t s, global const float4 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void roundtrip(read_only image2d_t src, write_only image2d_t dst, global int *q)
{
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, p, read_imagef(src, p) * 0.75f + 0.125f);
    if (p.x == 0 && p.y == 0) {
        q[0] = get_image_width(src); q[1] = get_image_height(src);
        q[2] = get_image_channel_order(src); q[3] = get_image_channel_data_type(src);
    }
}
kernel void ints(read_only image2d_t src, write_only image2d_t dst)
{ int2 p = (int2)(get_global_id(0), get_global_id(1)); write_imagei(dst, p, read_imagei(src, p) * 3 - 100); }
