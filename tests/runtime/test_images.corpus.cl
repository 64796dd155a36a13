
kernel void s1(read_only image1d_t img, sampler_t s, global const float *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s2(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s3(read_only image3d_t img, sampler_t s, global const float4 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s1a(read_only image1d_array_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void s2a(read_only image2d_array_t img, sampler_t s, global const float4 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void i2(read_only image2d_t img, sampler_t s, global const int2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }

kernel void fetch(read_only image2d_t img, global float4 *f, global int4 *si, global uint4 *ui)
{
    int x = get_global_id(0), y = get_global_id(1), i = y * get_image_width(img) + x;
    f[i] = read_imagef(img, (int2)(x, y));
    si[i] = read_imagei(img, (int2)(x, y));
    ui[i] = read_imageui(img, (int2)(x, y));
}
kernel void put_f(write_only image2d_t img, global const float4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imagef(img, (int2)(x, y), v[y * get_image_width(img) + x]); }
kernel void put_i(write_only image2d_t img, global const int4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imagei(img, (int2)(x, y), v[y * get_image_width(img) + x]); }
kernel void put_ui(write_only image2d_t img, global const uint4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imageui(img, (int2)(x, y), v[y * get_image_width(img) + x]); }

const sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
kernel void copy3(read_only image3d_t src, write_only image3d_t dst)
{
    int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);
    write_imagef(dst, p, read_imagef(src, edge, p) * 2.0f);
}
kernel void queries(read_only image3d_t a, read_only image2d_array_t b, read_only image1d_array_t c,
                    read_only image1d_t d, global int *out)
{
    int4 da = get_image_dim(a);
    int2 db = get_image_dim(b);
    out[0] = get_image_width(a); out[1] = get_image_height(a); out[2] = get_image_depth(a);
    out[3] = da.x; out[4] = da.y; out[5] = da.z; out[6] = da.w;
    out[7] = db.x; out[8] = db.y; out[9] = (int)get_image_array_size(b);
    out[10] = (int)get_image_array_size(c); out[11] = get_image_width(d);
    out[12] = get_image_channel_order(a); out[13] = get_image_channel_data_type(a);
    out[14] = get_image_channel_order(d); out[15] = get_image_channel_data_type(d);
}
