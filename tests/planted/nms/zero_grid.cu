// expect: cuda_error
// expect-message: CUDA error
/* zero_grid.cu: a planted bad solution to the nms lab.
 * What is wrong: it does not handle n = 0, so it launches kernels with a grid of
 * (0 + 255) / 256 = 0 blocks, which CUDA rejects ("invalid configuration argument").
 * Every other case would pass: a simple, correct GPU NMS.
 * (The first empty launch comes before the CUB sort, whose error checking consumes the
 * pending error and returns it, ignored here; the gather after the sort fails again and
 * leaves the error for the grader.) */
#include <cub/device/device_radix_sort.cuh>

#include "cudalab_lab.h"

#define T 1024

__device__ __forceinline__ float iou_of(float4 a, float4 b)
{
    float aa = fmaxf(a.z - a.x, 0.f) * fmaxf(a.w - a.y, 0.f);
    float ab = fmaxf(b.z - b.x, 0.f) * fmaxf(b.w - b.y, 0.f);
    float iw = fmaxf(fminf(a.z, b.z) - fmaxf(a.x, b.x), 0.f);
    float ih = fmaxf(fminf(a.w, b.w) - fmaxf(a.y, b.y), 0.f);
    float inter = iw * ih, uni = aa + ab - inter;
    return uni > 0.f ? inter / uni : 0.f;
}

__global__ void iota_kernel(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = i;
}

/* the boxes in sorted order, contiguous for the visit loop */
__global__ void gather_kernel(const float4 *boxes, const int *order, float4 *sorted, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        sorted[i] = boxes[order[i]];
}

__global__ void __launch_bounds__(T) visit_kernel(const float4 *boxes, const int *order, int n, float t,
                                                  int *keep, int *num_kept)
{
    extern __shared__ unsigned removed[];
    for (int w = threadIdx.x; w < (n + 31) / 32; w += T)
        removed[w] = 0;
    int k = 0;
    for (int r = 0; r < n; r++) {
        __syncthreads();
        if ((removed[r >> 5] >> (r & 31)) & 1)
            continue;
        if (threadIdx.x == 0)
            keep[k] = order[r];
        k++;
        float4 a = boxes[r];
        for (int j = r + 1 + threadIdx.x; j < n; j += T)
            if (!((removed[j >> 5] >> (j & 31)) & 1) && iou_of(a, boxes[j]) > t)
                atomicOr(&removed[j >> 5], 1u << (j & 31));
    }
    if (threadIdx.x == 0)
        *num_kept = k;
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold,
                    int *keep, int *num_kept, cudaStream_t stream)
{
    /* BUG: no early return for n == 0: the iota launch below gets a grid of 0 blocks */
    size_t tmp_bytes = 0;
    cub::DeviceRadixSort::SortPairsDescending(nullptr, tmp_bytes, scores, (float *)nullptr,
                                              (int *)nullptr, (int *)nullptr, n, 0, 32, stream);
    size_t nb = ((size_t)n * 4 + 255) & ~(size_t)255;
    size_t bb = ((size_t)n * 16 + 255) & ~(size_t)255;
    char *p = (char *)cudalab_scratch(3 * nb + bb + tmp_bytes);
    if (!p)
        return;
    float *keys = (float *)p;
    int *idx = (int *)(p + nb), *order = (int *)(p + 2 * nb);
    iota_kernel<<<(n + 255) / 256, 256, 0, stream>>>(idx, n);
    float4 *sorted = (float4 *)(p + 3 * nb);
    cub::DeviceRadixSort::SortPairsDescending(p + 3 * nb + bb, tmp_bytes, scores, keys, idx, order, n, 0,
                                              32, stream);
    gather_kernel<<<(n + 255) / 256, 256, 0, stream>>>((const float4 *)boxes, order, sorted, n);
    size_t smem = (size_t)(n + 31) / 32 * 4;
    if (smem > 48 * 1024)
        cudaFuncSetAttribute(visit_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    visit_kernel<<<1, T, smem, stream>>>(sorted, order, n, iou_threshold, keep, num_kept);
}
