// expect: slow
// expect-message: no Tensor Core instructions
// expect-timeout: 180
// Correct but slow: one thread per element of C and an fp32 loop over K on the CUDA cores.
// Every element is right, so it passes correctness; it reaches about 1% of cuBLAS, and its
// machine code has no HMMA/HGMMA instruction, which the report points out.
#include "cudalab_lab.h"

__global__ void gemm_naive(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = __float2half_rn(acc);
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    gemm_naive<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
