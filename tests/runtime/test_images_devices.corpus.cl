
kernel void s2(read_only image2d_t img, sampler_t s, global const float2 *c, global float4 *out)
{ size_t i = get_global_id(0); out[i] = read_imagef(img, s, c[i]); }
kernel void put(write_only image2d_t img, global const float4 *v)
{ int x = get_global_id(0), y = get_global_id(1); write_imagef(img, (int2)(x, y), v[y * get_image_width(img) + x]); }
