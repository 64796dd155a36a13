// Tiled single-precision matrix multiply C = alpha * A * B + beta * C (row-major),
// SHOC / NVIDIA SDK style, with a fixed work-group size.
#define TILE 8

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void sgemm(__global const float *restrict A, __global const float *restrict B, __global float *C,
           const int M, const int N, const int K, const float alpha, const float beta)
{
    __local float As[TILE][TILE];
    __local float Bs[TILE][TILE];
    const int row = get_global_id(1);
    const int col = get_global_id(0);
    const int ty = get_local_id(1), tx = get_local_id(0);
    float sum = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (col < N && t + ty < K) ? B[(t + ty) * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            sum = mad(As[ty][k], Bs[k][tx], sum);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N)
        C[row * N + col] = alpha * sum + beta * C[row * N + col];
}
