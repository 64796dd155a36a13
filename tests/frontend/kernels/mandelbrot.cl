// Mandelbrot set escape counts, one pixel per work-item (PyOpenCL example style).
__kernel void mandelbrot(__global const float2 *c, __global ushort *counts, const ushort max_iter)
{
    int gid = get_global_id(0);
    float2 z = (float2)(0.0f, 0.0f);
    float2 p = c[gid];
    ushort it = 0;
    while (it < max_iter && z.x * z.x + z.y * z.y <= 4.0f) {
        z = (float2)(z.x * z.x - z.y * z.y, 2.0f * z.x * z.y) + p;
        it++;
    }
    counts[gid] = it;
}
