// One elimination step k of an in-place LU decomposition without pivoting
// (Rodinia lud style): scale column k below the pivot, then update the trailing matrix.
__kernel void lu_scale_column(__global float *a, const int n, const int k)
{
    int i = k + 1 + get_global_id(0);
    if (i < n)
        a[i * n + k] /= a[k * n + k];
}

__kernel void lu_update_trailing(__global float *a, const int n, const int k)
{
    int i = k + 1 + get_global_id(1);
    int j = k + 1 + get_global_id(0);
    if (i < n && j < n)
        a[i * n + j] -= a[i * n + k] * a[k * n + j];
}
