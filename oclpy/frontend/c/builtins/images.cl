/* oclpy's image builtins (OpenCL C 1.2 6.12.14, with the rules of chapter 8).

   Built into a program, ahead of its own text, when the program names an
   image function (builtins/images.py). An image value is a pointer to the
   image's descriptor in global memory, which the runtime writes ahead of the
   texels (runtime/image.py owns the layout; both sides name the words alike):

     word 0 width, 1 height, 2 depth, 3 array size, 4 channel order,
     5 channel data type, 6 channel count, 7 bytes per texel,
     8 row pitch, 9 slice pitch (bytes), 10..12 the texel extents along
     x, y, z (an array's layers are its y (1D) or z (2D) extent),
     13 the image type, 14..15 the address of texel (0, 0, 0).

   A sampler value is its CLK_* bits: bit 0 normalized coordinates, bits 1-3
   the addressing mode, bits 4-5 the filter.  Addressing and filtering follow
   8.2 formula by formula (floor, rint, frac = x - floor(x), the weights in
   the spec's order); conversions follow 8.3.  Out-of-range reads in the
   modes where the spec leaves them undefined (CLK_ADDRESS_NONE, reads
   without a sampler) return the border colour; out-of-range writes write
   nothing.  Coordinates are bounded in float before any conversion to int
   (OCLPY_FAR), so infinities and NaNs never make an undefined conversion. */

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define OCLPY_WORDS global const int *
#define OCLPY_ONE_F 0x3f800000u
/* Coordinates are bounded to +-2^22 texels before conversion to int: exact
   there (the weights of linear filtering stay the spec's), and far outside
   any image. */
#define OCLPY_FAR 4194304.0f

/* -- texels -------------------------------------------------------------- */

/* The address of texel (x, y, z). */
global uchar *__oclpy_texel_at(OCLPY_WORDS h, int x, int y, int z)
{
    return (global uchar *)(*(global const ulong *)(h + 14)) + (long)z * h[9] + (long)y * h[8]
        + (long)x * h[7];
}

uint __oclpy_component(global const uchar *p, int type, int k, int as_float)
{
    switch (type) {
    case CLK_SNORM_INT8: {
        char c = ((global const char *)p)[k];
        return as_float ? as_uint(fmax(-1.0f, (float)c / 127.0f)) : (uint)(int)c;
    }
    case CLK_SNORM_INT16: {
        short c = ((global const short *)p)[k];
        return as_float ? as_uint(fmax(-1.0f, (float)c / 32767.0f)) : (uint)(int)c;
    }
    case CLK_UNORM_INT8:
        return as_float ? as_uint((float)p[k] / 255.0f) : (uint)p[k];
    case CLK_UNORM_INT16: {
        ushort c = ((global const ushort *)p)[k];
        return as_float ? as_uint((float)c / 65535.0f) : (uint)c;
    }
    case CLK_UNORM_SHORT_565: {
        ushort v = *(global const ushort *)p;
        uint c = k == 0 ? (v >> 11) & 31u : k == 1 ? (v >> 5) & 63u : v & 31u;
        return as_uint((float)c / (k == 1 ? 63.0f : 31.0f));
    }
    case CLK_UNORM_SHORT_555: {
        ushort v = *(global const ushort *)p;
        uint c = (v >> (10 - 5 * k)) & 31u;
        return as_uint((float)c / 31.0f);
    }
    case CLK_UNORM_INT_101010: {
        uint v = *(global const uint *)p;
        return as_uint((float)((v >> (20 - 10 * k)) & 1023u) / 1023.0f);
    }
    case CLK_SIGNED_INT8:
        return (uint)(int)((global const char *)p)[k];
    case CLK_SIGNED_INT16:
        return (uint)(int)((global const short *)p)[k];
    case CLK_UNSIGNED_INT8:
        return (uint)p[k];
    case CLK_UNSIGNED_INT16:
        return (uint)((global const ushort *)p)[k];
    case CLK_HALF_FLOAT:
        return as_uint(vload_half(k, (global const half *)p));
    default: /* CLK_SIGNED_INT32, CLK_UNSIGNED_INT32, CLK_FLOAT */
        return ((global const uint *)p)[k];
    }
}

/* The components in memory order -> (r, g, b, a); `one` is 1 or 1.0f's bits. */
uint4 __oclpy_to_rgba(int order, uint c0, uint c1, uint c2, uint c3, uint one)
{
    switch (order) {
    case CLK_R: return (uint4)(c0, 0u, 0u, one);
    case CLK_A: return (uint4)(0u, 0u, 0u, c0);
    case CLK_RG: return (uint4)(c0, c1, 0u, one);
    case CLK_RA: return (uint4)(c0, 0u, 0u, c1);
    case CLK_RGB: return (uint4)(c0, c1, c2, one);
    case CLK_BGRA: return (uint4)(c2, c1, c0, c3);
    case CLK_ARGB: return (uint4)(c1, c2, c3, c0);
    case CLK_INTENSITY: return (uint4)(c0, c0, c0, c0);
    case CLK_LUMINANCE: return (uint4)(c0, c0, c0, one);
    default: return (uint4)(c0, c1, c2, c3);
    }
}

/* 8.2: (0,0,0,1) for the orders without alpha, else (0,0,0,0). */
uint4 __oclpy_border(int order, uint one)
{
    int opaque = order == CLK_R || order == CLK_RG || order == CLK_RGB || order == CLK_LUMINANCE;
    return (uint4)(0u, 0u, 0u, opaque ? one : 0u);
}

uint4 __oclpy_texel(OCLPY_WORDS h, int x, int y, int z, int as_float)
{
    uint one = as_float ? OCLPY_ONE_F : 1u;
    if (x < 0 || y < 0 || z < 0 || x >= h[10] || y >= h[11] || z >= h[12])
        return __oclpy_border(h[4], one);
    global const uchar *p = __oclpy_texel_at(h, x, y, z);
    int n = h[6], type = h[5];
    uint c0 = __oclpy_component(p, type, 0, as_float);
    uint c1 = n > 1 ? __oclpy_component(p, type, 1, as_float) : 0u;
    uint c2 = n > 2 ? __oclpy_component(p, type, 2, as_float) : 0u;
    uint c3 = n > 3 ? __oclpy_component(p, type, 3, as_float) : 0u;
    return __oclpy_to_rgba(h[4], c0, c1, c2, c3, one);
}

/* -- addressing (8.2) ------------------------------------------------------ */

float __oclpy_bound(float u, float lo, float hi)
{
    return fmin(fmax(u, lo), hi); /* NaN -> lo */
}

/* CLK_ADDRESS_REPEAT and MIRRORED_REPEAT apply to normalized coordinates only. */
int __oclpy_repeats(uint smp, int mode)
{
    return (smp & 1u) && (int)(smp & 14u) == mode;
}

int __oclpy_edge(int i, int size, uint smp)
{
    return (int)(smp & 14u) == CLK_ADDRESS_CLAMP_TO_EDGE ? clamp(i, 0, size - 1) : clamp(i, -1, size);
}

int __oclpy_nearest(float s, int size, uint smp)
{
    if (__oclpy_repeats(smp, CLK_ADDRESS_REPEAT)) {
        float u = __oclpy_bound((s - floor(s)) * size, 0.0f, (float)size);
        int i = (int)floor(u);
        return i > size - 1 ? i - size : i;
    }
    if (__oclpy_repeats(smp, CLK_ADDRESS_MIRRORED_REPEAT)) {
        float m = fabs(s - 2.0f * rint(0.5f * s));
        int i = (int)floor(__oclpy_bound(m * size, 0.0f, (float)size));
        return min(i, size - 1);
    }
    float u = (smp & 1u) ? s * size : s;
    return __oclpy_edge((int)floor(__oclpy_bound(u, -OCLPY_FAR, OCLPY_FAR)), size, smp);
}

/* The two texels along an axis (*i0, *i1) and the weight of *i1. */
float __oclpy_linear(float s, int size, uint smp, int *i0, int *i1)
{
    float u;
    if (__oclpy_repeats(smp, CLK_ADDRESS_REPEAT)) {
        u = __oclpy_bound((s - floor(s)) * size, 0.0f, (float)size);
        int a = (int)floor(u - 0.5f), b = a + 1;
        *i0 = a < 0 ? size + a : a;
        *i1 = b > size - 1 ? b - size : b;
    } else if (__oclpy_repeats(smp, CLK_ADDRESS_MIRRORED_REPEAT)) {
        u = __oclpy_bound(fabs(s - 2.0f * rint(0.5f * s)) * size, 0.0f, (float)size);
        int a = (int)floor(u - 0.5f);
        *i0 = max(a, 0);
        *i1 = min(a + 1, size - 1);
    } else {
        u = __oclpy_bound((smp & 1u) ? s * size : s, -OCLPY_FAR, OCLPY_FAR);
        int a = (int)floor(u - 0.5f);
        *i0 = __oclpy_edge(a, size, smp);
        *i1 = __oclpy_edge(a + 1, size, smp);
    }
    return (u - 0.5f) - floor(u - 0.5f);
}

int __oclpy_layer_f(OCLPY_WORDS h, float v)
{
    return clamp((int)rint(__oclpy_bound(v, -1.0f, (float)h[3])), 0, h[3] - 1);
}

int __oclpy_layer_i(OCLPY_WORDS h, int v)
{
    return clamp(v, 0, h[3] - 1);
}

/* -- sampling -------------------------------------------------------------- */

float4 __oclpy_t(OCLPY_WORDS h, int x, int y, int z)
{
    return as_float4(__oclpy_texel(h, x, y, z, 1));
}

float4 __oclpy_filter(OCLPY_WORDS h, uint smp, float4 c, int dims, int layer)
{
    int x0, x1, y0 = 0, y1 = 0, z0 = 0, z1 = 0;
    float a = __oclpy_linear(c.x, h[10], smp, &x0, &x1);
    if (dims == 1) {
        if (layer >= 0)
            y0 = layer;
        return (1 - a) * __oclpy_t(h, x0, y0, 0) + a * __oclpy_t(h, x1, y0, 0);
    }
    float b = __oclpy_linear(c.y, h[11], smp, &y0, &y1);
    if (dims == 2) {
        if (layer >= 0)
            z0 = layer;
        return (1 - a) * (1 - b) * __oclpy_t(h, x0, y0, z0) + a * (1 - b) * __oclpy_t(h, x1, y0, z0)
            + (1 - a) * b * __oclpy_t(h, x0, y1, z0) + a * b * __oclpy_t(h, x1, y1, z0);
    }
    float g = __oclpy_linear(c.z, h[12], smp, &z0, &z1);
    return (1 - a) * (1 - b) * (1 - g) * __oclpy_t(h, x0, y0, z0)
        + a * (1 - b) * (1 - g) * __oclpy_t(h, x1, y0, z0)
        + (1 - a) * b * (1 - g) * __oclpy_t(h, x0, y1, z0)
        + a * b * (1 - g) * __oclpy_t(h, x1, y1, z0)
        + (1 - a) * (1 - b) * g * __oclpy_t(h, x0, y0, z1)
        + a * (1 - b) * g * __oclpy_t(h, x1, y0, z1)
        + (1 - a) * b * g * __oclpy_t(h, x0, y1, z1)
        + a * b * g * __oclpy_t(h, x1, y1, z1);
}

/* A read at float coordinates; linear filtering for read_imagef only (6.12.14.2). */
uint4 __oclpy_read(OCLPY_WORDS h, uint smp, float4 c, int dims, int layer, int as_float)
{
    if (as_float && (smp & 0x30u) == CLK_FILTER_LINEAR)
        return as_uint4(__oclpy_filter(h, smp, c, dims, layer));
    int x = __oclpy_nearest(c.x, h[10], smp);
    int y = dims > 1 ? __oclpy_nearest(c.y, h[11], smp) : 0;
    int z = dims > 2 ? __oclpy_nearest(c.z, h[12], smp) : 0;
    if (layer >= 0 && dims == 1)
        y = layer;
    if (layer >= 0 && dims == 2)
        z = layer;
    return __oclpy_texel(h, x, y, z, as_float);
}

/* A read at integer coordinates (unnormalized, nearest: 6.12.14.2). */
uint4 __oclpy_fetch(OCLPY_WORDS h, uint smp, int4 c, int dims, int layer, int as_float)
{
    int x = __oclpy_edge(c.x, h[10], smp);
    int y = dims > 1 ? __oclpy_edge(c.y, h[11], smp) : 0;
    int z = dims > 2 ? __oclpy_edge(c.z, h[12], smp) : 0;
    if (layer >= 0 && dims == 1)
        y = layer;
    if (layer >= 0 && dims == 2)
        z = layer;
    return __oclpy_texel(h, x, y, z, as_float);
}

/* -- writing (8.3) ----------------------------------------------------------- */

void __oclpy_store(global uchar *p, int type, int k, uint v)
{
    float f = as_float(v);
    switch (type) {
    case CLK_SNORM_INT8: ((global char *)p)[k] = convert_char_sat_rte(f * 127.0f); break;
    case CLK_SNORM_INT16: ((global short *)p)[k] = convert_short_sat_rte(f * 32767.0f); break;
    case CLK_UNORM_INT8: p[k] = convert_uchar_sat_rte(f * 255.0f); break;
    case CLK_UNORM_INT16: ((global ushort *)p)[k] = convert_ushort_sat_rte(f * 65535.0f); break;
    case CLK_SIGNED_INT8: ((global char *)p)[k] = convert_char_sat((int)v); break;
    case CLK_SIGNED_INT16: ((global short *)p)[k] = convert_short_sat((int)v); break;
    case CLK_UNSIGNED_INT8: p[k] = convert_uchar_sat(v); break;
    case CLK_UNSIGNED_INT16: ((global ushort *)p)[k] = convert_ushort_sat(v); break;
    case CLK_HALF_FLOAT: vstore_half_rte(f, k, (global half *)p); break;
    default: ((global uint *)p)[k] = v; break;
    }
}

uint __oclpy_unorm(uint v, float scale)
{
    return convert_uint_sat_rte(clamp(as_float(v), 0.0f, 1.0f) * scale);
}

/* The packed formats hold r, g, b in one ushort or uint. */
void __oclpy_store_packed(global uchar *p, int type, uint4 v)
{
    if (type == CLK_UNORM_SHORT_565)
        *(global ushort *)p = (ushort)(__oclpy_unorm(v.x, 31.0f) << 11 | __oclpy_unorm(v.y, 63.0f) << 5
                                       | __oclpy_unorm(v.z, 31.0f));
    else if (type == CLK_UNORM_SHORT_555)
        *(global ushort *)p = (ushort)(__oclpy_unorm(v.x, 31.0f) << 10 | __oclpy_unorm(v.y, 31.0f) << 5
                                       | __oclpy_unorm(v.z, 31.0f));
    else
        *(global uint *)p = __oclpy_unorm(v.x, 1023.0f) << 20 | __oclpy_unorm(v.y, 1023.0f) << 10
            | __oclpy_unorm(v.z, 1023.0f);
}

/* (r, g, b, a) -> the components in memory order. */
uint4 __oclpy_from_rgba(int order, uint4 v)
{
    switch (order) {
    case CLK_A: return (uint4)(v.w, 0u, 0u, 0u);
    case CLK_RA: return (uint4)(v.x, v.w, 0u, 0u);
    case CLK_BGRA: return (uint4)(v.z, v.y, v.x, v.w);
    case CLK_ARGB: return (uint4)(v.w, v.x, v.y, v.z);
    default: return v; /* R, RG, RGB, RGBA, INTENSITY, LUMINANCE */
    }
}

void __oclpy_write(global int *h, int4 c, uint4 v)
{
    if (c.x < 0 || c.y < 0 || c.z < 0 || c.x >= h[10] || c.y >= h[11] || c.z >= h[12])
        return;
    global uchar *p = __oclpy_texel_at(h, c.x, c.y, c.z);
    int n = h[6], type = h[5];
    if (type == CLK_UNORM_SHORT_565 || type == CLK_UNORM_SHORT_555 || type == CLK_UNORM_INT_101010) {
        __oclpy_store_packed(p, type, v);
        return;
    }
    uint4 m = __oclpy_from_rgba(h[4], v);
    __oclpy_store(p, type, 0, m.x);
    if (n > 1)
        __oclpy_store(p, type, 1, m.y);
    if (n > 2)
        __oclpy_store(p, type, 2, m.z);
    if (n > 3)
        __oclpy_store(p, type, 3, m.w);
}

/* read_imageh returns the float result rounded to half (round to nearest even);
   write_imageh writes the half colour as write_imagef writes its float value
   (cl_khr_fp16's image functions, 6.12.14 with 8.3.1.2 and 8.3.2.2). */
half4 __oclpy_as_half4(uint4 v)
{
    float4 f = as_float4(v);
    return (half4)((half)f.x, (half)f.y, (half)f.z, (half)f.w);
}

/* -- the builtins, per image type ------------------------------------------- */

#define OCLPY_OVL __attribute__((overloadable))
#define OCLPY_H(img) ((OCLPY_WORDS)__oclpy_image_header(img))

/* read_image{f,i,ui,h}: IMG, float coordinates FC, int coordinates IC; XF/XI make
   the float4/int4 position, LF/LI the array layer (-1: none); DIMS filtered axes;
   AS turns the texel's bits into RET. */
#define OCLPY_READ(RET, NAME, AS, AS_FLOAT, IMG, FC, IC, XF, LF, XI, LI, DIMS)                    \
    RET OCLPY_OVL NAME(IMG img, sampler_t smp, FC c)                                                \
    {                                                                                               \
        OCLPY_WORDS h = OCLPY_H(img);                                                               \
        return AS(__oclpy_read(h, __oclpy_sampler_bits(smp), XF, DIMS, LF, AS_FLOAT));              \
    }                                                                                               \
    RET OCLPY_OVL NAME(IMG img, sampler_t smp, IC c)                                                \
    {                                                                                               \
        OCLPY_WORDS h = OCLPY_H(img);                                                               \
        return AS(__oclpy_fetch(h, __oclpy_sampler_bits(smp), XI, DIMS, LI, AS_FLOAT));             \
    }                                                                                               \
    RET OCLPY_OVL NAME(IMG img, IC c)                                                               \
    {                                                                                               \
        OCLPY_WORDS h = OCLPY_H(img);                                                               \
        return AS(__oclpy_fetch(h, CLK_ADDRESS_CLAMP, XI, DIMS, LI, AS_FLOAT));                     \
    }

#define OCLPY_READS(IMG, FC, IC, XF, LF, XI, LI, DIMS)                                               \
    OCLPY_READ(float4, read_imagef, as_float4, 1, IMG, FC, IC, XF, LF, XI, LI, DIMS)                \
    OCLPY_READ(int4, read_imagei, as_int4, 0, IMG, FC, IC, XF, LF, XI, LI, DIMS)                    \
    OCLPY_READ(uint4, read_imageui, as_uint4, 0, IMG, FC, IC, XF, LF, XI, LI, DIMS)                 \
    OCLPY_READ(half4, read_imageh, __oclpy_as_half4, 1, IMG, FC, IC, XF, LF, XI, LI, DIMS)

#define OCLPY_WRITES(IMG, IC, XI)                                                                    \
    void OCLPY_OVL write_imagef(IMG img, IC c, float4 v)                                            \
    {                                                                                               \
        __oclpy_write(__oclpy_image_header(img), XI, as_uint4(v));                                  \
    }                                                                                               \
    void OCLPY_OVL write_imagei(IMG img, IC c, int4 v)                                              \
    {                                                                                               \
        __oclpy_write(__oclpy_image_header(img), XI, as_uint4(v));                                  \
    }                                                                                               \
    void OCLPY_OVL write_imageui(IMG img, IC c, uint4 v)                                            \
    {                                                                                               \
        __oclpy_write(__oclpy_image_header(img), XI, v);                                            \
    }                                                                                               \
    void OCLPY_OVL write_imageh(IMG img, IC c, half4 v)                                             \
    {                                                                                               \
        __oclpy_write(__oclpy_image_header(img), XI, as_uint4(convert_float4(v)));                  \
    }

#define OCLPY_QUERY(RET, NAME, IMG, EXPR)                                                            \
    RET OCLPY_OVL NAME(IMG img)                                                                     \
    {                                                                                               \
        OCLPY_WORDS h = OCLPY_H(img);                                                               \
        return EXPR;                                                                                \
    }

#define OCLPY_QUERIES(IMG)                                                                           \
    OCLPY_QUERY(int, get_image_width, IMG, h[0])                                                    \
    OCLPY_QUERY(int, get_image_channel_data_type, IMG, h[5])                                        \
    OCLPY_QUERY(int, get_image_channel_order, IMG, h[4])

OCLPY_READS(image1d_t, float, int, (float4)(c, 0.0f, 0.0f, 0.0f), -1, (int4)(c, 0, 0, 0), -1, 1)
OCLPY_READS(image1d_array_t, float2, int2, (float4)(c.x, 0.0f, 0.0f, 0.0f), __oclpy_layer_f(h, c.y),
            (int4)(c.x, 0, 0, 0), __oclpy_layer_i(h, c.y), 1)
OCLPY_READS(image2d_t, float2, int2, (float4)(c, 0.0f, 0.0f), -1, (int4)(c, 0, 0), -1, 2)
OCLPY_READS(image2d_array_t, float4, int4, (float4)(c.xy, 0.0f, 0.0f), __oclpy_layer_f(h, c.z),
            (int4)(c.xy, 0, 0), __oclpy_layer_i(h, c.z), 2)
OCLPY_READS(image3d_t, float4, int4, c, -1, c, -1, 3)

/* image1d_buffer_t is read without a sampler only. */
#define OCLPY_BUFFER_READ(RET, NAME, AS, AS_FLOAT)                                                   \
    RET OCLPY_OVL NAME(image1d_buffer_t img, int c)                                                 \
    {                                                                                               \
        return AS(__oclpy_fetch(OCLPY_H(img), CLK_ADDRESS_CLAMP, (int4)(c, 0, 0, 0), 1, -1, AS_FLOAT)); \
    }
OCLPY_BUFFER_READ(float4, read_imagef, as_float4, 1)
OCLPY_BUFFER_READ(int4, read_imagei, as_int4, 0)
OCLPY_BUFFER_READ(uint4, read_imageui, as_uint4, 0)
OCLPY_BUFFER_READ(half4, read_imageh, __oclpy_as_half4, 1)

OCLPY_WRITES(image1d_t, int, ((int4)(c, 0, 0, 0)))
OCLPY_WRITES(image1d_buffer_t, int, ((int4)(c, 0, 0, 0)))
OCLPY_WRITES(image1d_array_t, int2, ((int4)(c, 0, 0)))
OCLPY_WRITES(image2d_t, int2, ((int4)(c, 0, 0)))
OCLPY_WRITES(image2d_array_t, int4, ((int4)(c.xyz, 0)))
OCLPY_WRITES(image3d_t, int4, ((int4)(c.xyz, 0)))

OCLPY_QUERIES(image1d_t)
OCLPY_QUERIES(image1d_buffer_t)
OCLPY_QUERIES(image1d_array_t)
OCLPY_QUERIES(image2d_t)
OCLPY_QUERIES(image2d_array_t)
OCLPY_QUERIES(image3d_t)

OCLPY_QUERY(int, get_image_height, image2d_t, h[1])
OCLPY_QUERY(int, get_image_height, image2d_array_t, h[1])
OCLPY_QUERY(int, get_image_height, image3d_t, h[1])
OCLPY_QUERY(int, get_image_depth, image3d_t, h[2])
OCLPY_QUERY(int2, get_image_dim, image2d_t, (int2)(h[0], h[1]))
OCLPY_QUERY(int2, get_image_dim, image2d_array_t, (int2)(h[0], h[1]))
OCLPY_QUERY(int4, get_image_dim, image3d_t, (int4)(h[0], h[1], h[2], 0))
OCLPY_QUERY(size_t, get_image_array_size, image1d_array_t, (size_t)h[3])
OCLPY_QUERY(size_t, get_image_array_size, image2d_array_t, (size_t)h[3])
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
