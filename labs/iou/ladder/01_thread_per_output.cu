// 01_thread_per_output.cu: iou ladder, step 1: one thread per output element.
//
// What it does: a 1-D grid-stride loop over the m x n outputs (64-bit indices); thread k
// loads box a[k / n] and box b[k % n] (four floats each), computes the README's formula and
// stores one float. Every rounding is spelled out (__fsub_rn, __fmul_rn, __fadd_rn: no
// FMA contraction), so the only difference from the CPU reference is none at all with
// IEEE division (__fdiv_rn). A clamped overlap is exactly 0, and so is 0 / 0 (union 0).
// Why it is slow: the kernel writes 819 MB and reads under 1 MB at 4096 x 50000, so it is
// bound by store bandwidth - but each output costs eight loads (from L1/L2), a 64-bit
// division and modulo for the indices, and an IEEE division (about 8 instructions with a
// slow path): the SM issue rate, not DRAM, sets the pace.
// In a profiler: "Compute Workload Analysis" shows high issue-slot use, "Memory Workload
// Analysis" DRAM write throughput well below the copy rate; the source view shows the
// integer division and the division's slow-path call.
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

__device__ __forceinline__ float area_of(float x1, float y1, float x2, float y2)
{
    return __fmul_rn(fmaxf(__fsub_rn(x2, x1), 0.0f), fmaxf(__fsub_rn(y2, y1), 0.0f));
}

__global__ void iou_naive(const float *__restrict__ a, int m, const float *__restrict__ b, int n, float *__restrict__ out)
{
    const int64_t total = (int64_t)m * n;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += stride) {
        const int64_t i = k / n, j = k % n;
        const float *p = a + 4 * i, *q = b + 4 * j;
        const float iw = fmaxf(__fsub_rn(fminf(p[2], q[2]), fmaxf(p[0], q[0])), 0.0f);
        const float ih = fmaxf(__fsub_rn(fminf(p[3], q[3]), fmaxf(p[1], q[1])), 0.0f);
        const float inter = __fmul_rn(iw, ih);
        const float uni = __fsub_rn(__fadd_rn(area_of(p[0], p[1], p[2], p[3]), area_of(q[0], q[1], q[2], q[3])), inter);
        out[k] = uni > 0.0f ? __fdiv_rn(inter, uni) : 0.0f;
    }
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out, cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    const int64_t total = (int64_t)m * n;
    int64_t blocks = (total + 255) / 256;
    if (blocks > 65536 * 8)
        blocks = 65536 * 8;
    iou_naive<<<(unsigned)blocks, 256, 0, stream>>>(a, m, b, n, out);
    cudaError_t err = cudaPeekAtLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "box_iou: launch failed: %s\n", cudaGetErrorString(err));
}
