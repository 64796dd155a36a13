__kernel void vector_add(__global const float *a, __global const float *b,
                         __global float *restrict out, const unsigned int n)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i];
}
