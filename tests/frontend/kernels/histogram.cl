// 256-bin histogram of bytes: per-work-group bins in local memory with local
// atomics, merged into the global histogram with global atomics.
#define BINS 256

__kernel void histogram256(__global const uchar *data, const uint n, __global uint *hist)
{
    __local uint bins[BINS];
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    for (uint i = lid; i < BINS; i += lsize)
        bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&bins[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < BINS; i += lsize)
        if (bins[i] != 0)
            atomic_add(&hist[i], bins[i]);
}
