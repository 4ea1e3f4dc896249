// 01_one_block_walk.cu: nms ladder, step 1: sort, then one block walks the boxes in score
// order and tests each against every box kept so far.
//
// What it does: CUB's radix sort orders (score, index) pairs by descending score; radix
// sort is stable, so equal scores keep ascending index order - the lab's tie rule for
// free. The boxes are gathered in that order. Then ONE block of 1024 threads visits the
// sorted boxes one at a time: the threads split the kept list, each tests its share
// (IoU > t, the README's fp32 formula with IEEE division), and __syncthreads_or tells
// everyone whether any kept box suppresses this one; if none does, thread 0 appends it.
// Why it is slow: greedy NMS is a chain of decisions, and this walks the chain one box at
// a time: n iterations of two block barriers each, on one SM of the GPU, and every
// iteration re-reads the kept boxes (O(n x kept) tests in total).
// In a profiler: Nsight Systems shows the walk kernel as one long bar after a short sort;
// Nsight Compute shows one block ("Launch Statistics": grid size 1) stalled at barriers.
#include <stdint.h>
#include <stdio.h>

#include <cub/device/device_radix_sort.cuh>

#include "cudalab_lab.h"

#define WALK_THREADS 1024

static size_t align_up(size_t v) { return (v + 255) & ~(size_t)255; }

__global__ void iota_kernel(int *idx, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        idx[i] = i;
}

__device__ __forceinline__ float area_of(float4 b)
{
    return __fmul_rn(fmaxf(__fsub_rn(b.z, b.x), 0.0f), fmaxf(__fsub_rn(b.w, b.y), 0.0f));
}

// IoU(a, b) > t, the README's fp32 formula exactly (no FMA contraction, IEEE division).
__device__ __forceinline__ bool suppresses(float4 a, float aa, float4 b, float ab, float t)
{
    const float iw = fmaxf(__fsub_rn(fminf(a.z, b.z), fmaxf(a.x, b.x)), 0.0f);
    const float ih = fmaxf(__fsub_rn(fminf(a.w, b.w), fmaxf(a.y, b.y)), 0.0f);
    const float inter = __fmul_rn(iw, ih);
    const float uni = __fsub_rn(__fadd_rn(aa, ab), inter);
    return (uni > 0.0f ? __fdiv_rn(inter, uni) : 0.0f) > t;
}

// kbox / karea: the kept boxes so far (scratch, room for n).
__global__ void __launch_bounds__(WALK_THREADS)
    walk_kernel(const float *__restrict__ boxes, const int *__restrict__ order, int n, float t, float4 *kbox,
                float *karea, int *__restrict__ keep, int *__restrict__ num_kept)
{
    __shared__ int count;
    if (threadIdx.x == 0)
        count = 0;
    __syncthreads();
    for (int r = 0; r < n; r++) {
        const float *p = boxes + 4 * (size_t)order[r];
        const float4 b = make_float4(p[0], p[1], p[2], p[3]);
        const float ab = area_of(b);
        const int kept = count;
        bool hit = false;
        for (int j = threadIdx.x; j < kept && !hit; j += WALK_THREADS)
            hit = suppresses(kbox[j], karea[j], b, ab, t);
        // the barrier also ends every thread's read of `count` before thread 0 changes it
        if (!__syncthreads_or(hit) && threadIdx.x == 0) {
            kbox[kept] = b;
            karea[kept] = ab;
            keep[kept] = order[r];
            count = kept + 1;
        }
        __syncthreads(); // the new kept box and count are visible to the whole block
    }
    if (threadIdx.x == 0)
        *num_kept = count;
}

static void report(const char *what, cudaError_t err)
{
    if (err != cudaSuccess)
        fprintf(stderr, "nms: %s: %s\n", what, cudaGetErrorString(err));
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold, int *keep, int *num_kept,
                    cudaStream_t stream)
{
    if (n <= 0) {
        report("memset", cudaMemsetAsync(num_kept, 0, sizeof(int), stream));
        return;
    }
    size_t sort_bytes = 0;
    report("sort size", cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, (const float *)nullptr,
                                                                  (float *)nullptr, (const int *)nullptr,
                                                                  (int *)nullptr, n, 0, 32, stream));
    const size_t b4 = align_up((size_t)n * 4), b16 = align_up((size_t)n * 16);
    char *p = (char *)cudalab_scratch(4 * b4 + b16 + align_up(sort_bytes));
    if (!p) {
        fprintf(stderr, "nms: no scratch memory for n = %d\n", n);
        return;
    }
    float *keys_out = (float *)p;  p += b4;
    int *idx_in = (int *)p;        p += b4;
    int *idx_out = (int *)p;       p += b4;
    float *karea = (float *)p;     p += b4;
    float4 *kbox = (float4 *)p;    p += b16;
    void *sort_tmp = p;

    iota_kernel<<<(n + 255) / 256, 256, 0, stream>>>(idx_in, n);
    report("iota", cudaPeekAtLastError());
    report("sort", cub::DeviceRadixSort::SortPairsDescending(sort_tmp, sort_bytes, scores, keys_out, idx_in, idx_out,
                                                             n, 0, 32, stream));
    walk_kernel<<<1, WALK_THREADS, 0, stream>>>(boxes, idx_out, n, iou_threshold, kbox, karea, keep, num_kept);
    report("walk", cudaPeekAtLastError());
}
