
__kernel void k(__global const uint *start, __global uint *steps) {
    size_t i = get_global_linear_id();
    uint n = start[i], count = 0;
    while (n > 1u) { n = (n & 1u) ? 3u * n + 1u : n >> 1; ++count; }
    steps[i] = count;
}