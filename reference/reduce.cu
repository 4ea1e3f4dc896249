// reference/reduce.cu: sum of n floats in one pass, at the memory-bandwidth limit.
//
// A reduction does one add per 4 bytes read, so it is bound by DRAM bandwidth: the goal
// is to keep enough bytes in flight to saturate HBM, and to finish the reduction without
// a second pass over memory. What this kernel does, and why:
//
//  1. 16-byte loads (float4). One LDG.128 moves four floats: a quarter of the load
//     instructions, and more bytes in flight per thread. float4 needs a 16-byte-aligned
//     address, so a misaligned head (at most 3 floats) is summed with scalar loads.
//  2. A grid that fills the GPU at most once (SMs x resident blocks) and a grid-stride
//     loop with four independent float4 loads per iteration: each thread has 64 bytes
//     in flight before it needs the first, which hides DRAM latency (memory-level
//     parallelism), and no block waits for a second wave. Where the size allows, the
//     grid is trimmed so every thread runs the same whole number of iterations (below).
//  3. Several accumulators per thread: independent add chains, and a short dependency
//     chain (about n / (4 x threads) adds) for accuracy.
//  4. Warp shuffles (__shfl_down_sync) reduce 32 values in registers, without shared
//     memory or barriers; one shared slot per warp finishes the block.
//  5. One kernel, no second launch: each block stores its partial, makes it visible
//     device-wide (__threadfence), then takes a ticket (atomicAdd). The block that draws
//     the last ticket adds all partials in block order, so the result is the same bits
//     every run (unlike one atomicAdd per block, whose order varies). It resets the ticket
//     for the next call.
//
// Which path runs where: one path on every GPU from sm_75 on (no architecture-specific
// instructions); the grid is sized from the device's SM count and occupancy at run time.
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

// The entry point returns nothing: report a failed runtime call and give up (the grader
// then sees the unwritten output, and any sticky CUDA error, and says so).
#define CUDA_CHECK(call)                                                                    \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            fprintf(stderr, "reduce_sum: %s: %s\n", #call, cudaGetErrorString(err_));        \
            return;                                                                         \
        }                                                                                   \
    } while (0)

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// The block's sum, valid in thread 0. Callable twice per kernel: the leading barrier
// keeps the second call from overwriting slots the first is still reading.
__device__ __forceinline__ float block_sum(float v)
{
    __shared__ float warp_partial[kThreads / 32];
    __syncthreads();
    v = warp_sum(v);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        warp_partial[warp] = v;
    __syncthreads();
    v = threadIdx.x < kThreads / 32 ? warp_partial[threadIdx.x] : 0.0f;
    return warp == 0 ? warp_sum(v) : v;
}

__device__ __forceinline__ float sum4(float4 a) { return (a.x + a.y) + (a.z + a.w); }

__global__ void __launch_bounds__(kThreads)
reduce_kernel(const float *__restrict__ in, int64_t n, float *__restrict__ partial, unsigned *ticket,
              float *__restrict__ out)
{
    // float4 view of the 16-byte-aligned body
    int64_t head = (int64_t)(((16 - (reinterpret_cast<uintptr_t>(in) & 15)) & 15) / 4);
    if (head > n)
        head = n;
    const float4 *body = reinterpret_cast<const float4 *>(in + head);
    const int64_t n4 = (n - head) / 4;
    const int64_t tid = (int64_t)blockIdx.x * kThreads + threadIdx.x;
    const int64_t stride = (int64_t)gridDim.x * kThreads;

    float acc0 = 0.f, acc1 = 0.f, acc2 = 0.f, acc3 = 0.f;
    int64_t i = tid;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = body[i], b = body[i + stride], c = body[i + 2 * stride], d = body[i + 3 * stride];
        acc0 += sum4(a);
        acc1 += sum4(b);
        acc2 += sum4(c);
        acc3 += sum4(d);
    }
    for (; i < n4; i += stride)
        acc0 += sum4(body[i]);
    // the scalar head (before the aligned body) and tail (after it): at most 3 each
    const int64_t tail = head + n4 * 4;
    if (tid < head)
        acc1 += in[tid];
    if (tid < n - tail)
        acc2 += in[tail + tid];

    const float block = block_sum((acc0 + acc1) + (acc2 + acc3));

    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block;
        __threadfence(); // the partial is visible to every block before the ticket is
        is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last)
        return;
    // the last block: add the partials in block order (deterministic); __ldcg reads
    // from L2, where the other blocks' stores are, never from a stale L1 line
    float s = 0.f;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += kThreads)
        s += __ldcg(&partial[b]);
    s = block_sum(s);
    if (threadIdx.x == 0) {
        *out = s;
        *ticket = 0; // ready for the next call
    }
}

// The grid for n floats: no more blocks than there are float4s to give them, at most one
// wave. Even work: the largest grid of at most one wave (and more than half of one) for
// which the float4s divide into whole main-loop iterations (4 float4 per thread), so that
// no thread runs the remainder loop and every block finishes at the same time. For 2^28
// floats on an H100 that is 1024 blocks instead of 1056: 0.3470 against 0.3511 ms, the
// difference between trailing CUB and beating it (H100, docs/PERFORMANCE.md). The answer
// for the last n is kept: callers repeat the same size, and the search is a few hundred
// divisions of host time per call.
int grid_for(int64_t n, int max_blocks)
{
    static int64_t last_n = -1;
    static int last_blocks = 1;
    if (n == last_n)
        return last_blocks;
    const int64_t want = (n / 4 + kThreads - 1) / kThreads;
    int blocks = (int)(want < 1 ? 1 : want < max_blocks ? want : max_blocks);
    const int64_t n4 = n / 4;
    for (int b = blocks; b > blocks / 2; b--)
        if (n4 % ((int64_t)b * kThreads * 4) == 0) {
            blocks = b;
            break;
        }
    last_n = n;
    last_blocks = blocks;
    return blocks;
}

} // namespace

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    // Resident blocks per SM, asked once: a grid is at most one full wave.
    static int max_blocks = 0;
    if (max_blocks == 0) {
        int device = 0, sms = 0, per_sm = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel, kThreads, 0));
        max_blocks = sms * (per_sm > 0 ? per_sm : 1);
    }
    const int blocks = grid_for(n, max_blocks);

    // scratch: [ticket, padded to 256 bytes][one partial per block]
    static void *last_scratch = nullptr;
    char *scratch = static_cast<char *>(cudalab_scratch(256 + sizeof(float) * (size_t)max_blocks));
    if (!scratch)
        return;
    unsigned *ticket = reinterpret_cast<unsigned *>(scratch);
    float *partial = reinterpret_cast<float *>(scratch + 256);
    if (scratch != last_scratch) { // fresh scratch memory holds garbage: zero the ticket once
        CUDA_CHECK(cudaMemsetAsync(ticket, 0, sizeof(unsigned), stream));
        last_scratch = scratch;
    }
    reduce_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partial, ticket, out);
    CUDA_CHECK(cudaGetLastError());
}
