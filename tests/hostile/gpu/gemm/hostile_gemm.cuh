// hostile_gemm.cuh: two honest fp16 GEMMs the gemm fixtures share: one on the CUDA cores
// (16x16 shared-memory tiles, fp32 sums) and one on the Tensor Cores (a warp per 16x16
// tile, WMMA from zero-padded shared memory). Both are correct for every shape.
#pragma once
#include <mma.h>

#include "cudalab_lab.h"

__global__ void cuda_core_gemm(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    __shared__ float As[16][17], Bs[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = blockIdx.y * 16 + ty, c = blockIdx.x * 16 + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = r < M && k0 + tx < K ? __half2float(A[(size_t)r * K + k0 + tx]) : 0.f;
        Bs[ty][tx] = k0 + ty < K && c < N ? __half2float(B[(size_t)(k0 + ty) * N + c]) : 0.f;
        __syncthreads();
        for (int k = 0; k < 16; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (r < M && c < N)
        C[(size_t)r * N + c] = __float2half(acc);
}

__global__ void tensor_core_gemm(const __half *A, const __half *B, __half *C, int M, int N, int K)
{
    using namespace nvcuda;
    __shared__ __align__(32) __half As[256], Bs[256];
    __shared__ __align__(32) float Cs[256];
    int tm = blockIdx.y * 16, tn = blockIdx.x * 16, lane = threadIdx.x;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {
            int r = i / 16, c = i % 16;
            As[i] = tm + r < M && k0 + c < K ? A[(size_t)(tm + r) * K + k0 + c] : __float2half(0.f);
            Bs[i] = k0 + r < K && tn + c < N ? B[(size_t)(k0 + r) * N + tn + c] : __float2half(0.f);
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::load_matrix_sync(a, As, 16);
        wmma::load_matrix_sync(b, Bs, 16);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < 256; i += 32) {
        int r = i / 16, c = i % 16;
        if (tm + r < M && tn + c < N)
            C[(size_t)(tm + r) * N + tn + c] = __float2half(Cs[i]);
    }
}

static inline void launch_cuda_core_gemm(const __half *A, const __half *B, __half *C, int M, int N, int K,
                                         cudaStream_t s)
{
    cuda_core_gemm<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, s>>>(A, B, C, M, N, K);
}

static inline void launch_tensor_core_gemm(const __half *A, const __half *B, __half *C, int M, int N, int K,
                                           cudaStream_t s)
{
    tensor_core_gemm<<<dim3((N + 15) / 16, (M + 15) / 16), 32, 0, s>>>(A, B, C, M, N, K);
}
