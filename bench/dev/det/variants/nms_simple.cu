/* nms_simple.cu: a straightforward, correct GPU NMS, for calibrating the nms lab's tiers.
 *
 * CUB stable sort, then ONE block visits the sorted boxes one by one: a kept box's IoU with
 * every later, still-alive box is tested by the 1024 threads in parallel, and hits are
 * marked in a removed bitmask in shared memory. Correct, but the visit loop costs a
 * __syncthreads per box and a pass over the rest of the list per kept box: this is what
 * a first GPU version of greedy NMS looks like. */
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
        float4 a = boxes[order[r]];
        for (int j = r + 1 + threadIdx.x; j < n; j += T)
            if (!((removed[j >> 5] >> (j & 31)) & 1) && iou_of(a, boxes[order[j]]) > t)
                atomicOr(&removed[j >> 5], 1u << (j & 31));
    }
    if (threadIdx.x == 0)
        *num_kept = k;
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold,
                    int *keep, int *num_kept, cudaStream_t stream)
{
    if (n <= 0) {
        cudaMemsetAsync(num_kept, 0, sizeof(int), stream);
        return;
    }
    size_t tmp_bytes = 0;
    cub::DeviceRadixSort::SortPairsDescending(nullptr, tmp_bytes, scores, (float *)nullptr,
                                              (int *)nullptr, (int *)nullptr, n, 0, 32, stream);
    size_t nb = ((size_t)n * 4 + 255) & ~(size_t)255;
    char *p = (char *)cudalab_scratch(3 * nb + tmp_bytes);
    if (!p)
        return;
    float *keys = (float *)p;
    int *idx = (int *)(p + nb), *order = (int *)(p + 2 * nb);
    iota_kernel<<<(n + 255) / 256, 256, 0, stream>>>(idx, n);
    cub::DeviceRadixSort::SortPairsDescending(p + 3 * nb, tmp_bytes, scores, keys, idx, order, n, 0,
                                              32, stream);
    size_t smem = (size_t)(n + 31) / 32 * 4;
    if (smem > 48 * 1024)
        cudaFuncSetAttribute(visit_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    visit_kernel<<<1, T, smem, stream>>>((const float4 *)boxes, order, n, iou_threshold, keep, num_kept);
}
