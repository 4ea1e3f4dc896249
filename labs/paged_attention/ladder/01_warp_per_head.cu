// 01_warp_per_head.cu: paged_attention ladder, step 1: one warp per (sequence, query head),
// one token at a time, online softmax.
//
// What it does: lane l owns head_dim / 32 consecutive dimensions (2 or 4 halves). For each
// token t of the context, the warp finds its physical block in the block table
// (block_tables[s][t / block_size], slot t % block_size), reads the K row of its kv head
// (a contiguous 128 or 256 bytes across the warp), adds up q . k with a shuffle
// butterfly, and folds the score into a running softmax: when the maximum rises from m to
// m', the sum and the output accumulator are rescaled by exp(m - m') first, so nothing
// overflows whatever the logits (the "large logits" case reaches +-100). The V row is
// accumulated with weight p = exp(score - m). out = acc / sum, rounded to fp16. Table
// entries past the context are never read.
// Why it is slow: each warp walks its context strictly one token after another, and each
// token waits for two DRAM round trips and a shuffle reduction: the kernel is bound by
// latency, not bandwidth. With GQA, the query heads of a group each read the same K and V
// rows again. The bench shape has only 64 x 32 = 2048 warps: 15 per SM.
// In a profiler: DRAM throughput is a small fraction of peak; "Warp State Statistics" is
// dominated by "long scoreboard" stalls; "Occupancy" is low.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define WARPS 4 // query heads per block

template <int D>
__global__ void __launch_bounds__(WARPS * 32) pa_warp_per_head(paged_attention_args a)
{
    constexpr int PER_LANE = D / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t item = (int64_t)blockIdx.x * WARPS + warp; // (sequence, head)
    if (item >= (int64_t)a.num_seqs * a.num_heads)
        return;
    const int s = (int)(item / a.num_heads), h = (int)(item % a.num_heads);
    const int g = h / (a.num_heads / a.num_kv_heads);
    const int ctx = a.context_lens[s];
    const int *table = a.block_tables + (size_t)s * a.max_blocks_per_seq;

    float q[PER_LANE], acc[PER_LANE];
    const __half *qp = a.q + ((size_t)s * a.num_heads + h) * D + lane * PER_LANE;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
        q[i] = __half2float(qp[i]) * a.scale;
        acc[i] = 0.0f;
    }
    float m = -INFINITY, sum = 0.0f;
    for (int t = 0; t < ctx; t++) {
        const int block = table[t / a.block_size], slot = t % a.block_size;
        const size_t row = (((size_t)block * a.block_size + slot) * a.num_kv_heads + g) * D + lane * PER_LANE;
        float dot = 0.0f;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++)
            dot += q[i] * __half2float(a.k_cache[row + i]);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            dot += __shfl_xor_sync(0xffffffffu, dot, o);
        const float m_new = fmaxf(m, dot);
        const float corr = expf(m - m_new), p = expf(dot - m_new); // corr = 0 on the first token
        sum = sum * corr + p;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++)
            acc[i] = acc[i] * corr + p * __half2float(a.v_cache[row + i]);
        m = m_new;
    }
    __half *op = a.out + ((size_t)s * a.num_heads + h) * D + lane * PER_LANE;
    const float inv = 1.0f / sum;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++)
        op[i] = __float2half_rn(acc[i] * inv);
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    const int64_t items = (int64_t)a.num_seqs * a.num_heads;
    if (items <= 0)
        return;
    const unsigned blocks = (unsigned)((items + WARPS - 1) / WARPS);
    if (a.head_dim == 128)
        pa_warp_per_head<128><<<blocks, WARPS * 32, 0, stream>>>(a);
    else if (a.head_dim == 64)
        pa_warp_per_head<64><<<blocks, WARPS * 32, 0, stream>>>(a);
    else
        fprintf(stderr, "paged_attention: head_dim %d is not 64 or 128\n", a.head_dim);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "paged_attention: launch failed: %s\n", cudaGetErrorString(err));
}
