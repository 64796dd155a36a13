// Sobel edge magnitude on a grayscale image held in a plain buffer (no image
// objects): clamped borders and a saturating conversion back to uchar.
__kernel void sobel(__global const uchar *src, __global uchar *dst, const int width, const int height)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    int xm = max(x - 1, 0), xp = min(x + 1, width - 1);
    int ym = max(y - 1, 0), yp = min(y + 1, height - 1);
#define P(i, j) ((float)src[(j) * width + (i)])
    float gx = -P(xm, ym) - 2.0f * P(xm, y) - P(xm, yp) + P(xp, ym) + 2.0f * P(xp, y) + P(xp, yp);
    float gy = -P(xm, ym) - 2.0f * P(x, ym) - P(xp, ym) + P(xm, yp) + 2.0f * P(x, yp) + P(xp, yp);
#undef P
    dst[y * width + x] = convert_uchar_sat(sqrt(gx * gx + gy * gy));
}
