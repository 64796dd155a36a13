// Sparse matrix-vector product y = A x with A in CSR form, one row per work-item
// (SHOC's "scalar" variant).
__kernel void spmv_csr_scalar(__global const float *restrict values, __global const int *restrict cols,
                              __global const int *restrict row_ptr, __global const float *restrict x,
                              __global float *restrict y, const int rows)
{
    int row = get_global_id(0);
    if (row < rows) {
        float sum = 0.0f;
        int end = row_ptr[row + 1];
        for (int j = row_ptr[row]; j < end; j++)
            sum += values[j] * x[cols[j]];
        y[row] = sum;
    }
}
