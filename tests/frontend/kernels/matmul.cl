#define TILE 16
typedef float real;

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul(__global const real *A, __global const real *B, __global real *C, int N)
{
    __local real As[TILE][TILE];
    __local real Bs[TILE][TILE + 1];
    int row = get_global_id(1), col = get_global_id(0);
    int ty = get_local_id(1), tx = get_local_id(0);
    real acc = 0.0f;
    for (int t = 0; t < N / TILE; ++t) {
        As[ty][tx] = A[row * N + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        #pragma unroll
        for (int k = 0; k < TILE; k++)
            acc = mad(As[ty][k], Bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
