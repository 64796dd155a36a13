__kernel void k(__global int *out)
{
    out[0] = x + 1;
}
