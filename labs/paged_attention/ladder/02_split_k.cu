// 02_split_k.cu: paged_attention ladder, step 2: split each context into partitions of 512
// tokens (flash-decoding), one warp per (sequence, head, partition), then combine.
//
// What changed: a warp now handles one partition of 512 tokens of one (sequence, query
// head) and leaves a partial result in scratch: its running max m_p, sum l_p and
// unnormalised output acc_p (fp32). A second kernel merges the partitions of each
// (sequence, head) with the online-softmax rule: M = max m_p, L = sum l_p exp(m_p - M),
// out = sum acc_p exp(m_p - M) / L. Inside a partition the loop is step 1's, with the
// scale * log2(e) folded into q so each exp is one exp2f.
// Why it is faster: the bench shape (64 sequences x 32 heads, 4096 tokens) becomes 16 384
// independent warps instead of 2048: every SM has as many warps as it can hold, so many
// more K and V loads are in flight while each warp waits on its own. The partials cost
// (head_dim + 2) floats per partition: small next to 512 tokens of K and V.
// Still wrong: with GQA (32 query heads over 8 kv heads) each K and V row is read by 4
// warps; each lane loads 4 or 8 bytes at a time.
// In a profiler: occupancy is at its limit and DRAM throughput several times step 1's;
// Nsight Systems shows the small combine kernel after the main one.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define WARPS 4   // warps per block
#define PART 512  // tokens per partition
#define LOG2E 1.4426950408889634f

// The partials of (sequence, head, partition) i: m[i], l[i], acc[i * D .. + D).
struct partials {
    float *m, *l, *acc;
    int max_parts;
};

template <int D>
__global__ void __launch_bounds__(WARPS * 32) pa_partition(paged_attention_args a, partials P)
{
    constexpr int PER_LANE = D / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t item = (int64_t)blockIdx.x * WARPS + warp; // ((sequence, head), partition)
    if (item >= (int64_t)a.num_seqs * a.num_heads * P.max_parts)
        return;
    const int64_t sh = item / P.max_parts;
    const int part = (int)(item % P.max_parts);
    const int s = (int)(sh / a.num_heads), h = (int)(sh % a.num_heads);
    const int g = h / (a.num_heads / a.num_kv_heads);
    const int ctx = a.context_lens[s];
    const int t0 = part * PART, t1 = min(ctx, t0 + PART);
    if (t0 >= ctx)
        return; // this sequence has fewer partitions
    const int *table = a.block_tables + (size_t)s * a.max_blocks_per_seq;

    float q[PER_LANE], acc[PER_LANE];
    const __half *qp = a.q + ((size_t)s * a.num_heads + h) * D + lane * PER_LANE;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
        q[i] = __half2float(qp[i]) * (a.scale * LOG2E); // scores in the log2 domain
        acc[i] = 0.0f;
    }
    float m = -INFINITY, sum = 0.0f;
    for (int t = t0; t < t1; t++) {
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
        const float corr = exp2f(m - m_new), p = exp2f(dot - m_new);
        sum = sum * corr + p;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++)
            acc[i] = acc[i] * corr + p * __half2float(a.v_cache[row + i]);
        m = m_new;
    }
#pragma unroll
    for (int i = 0; i < PER_LANE; i++)
        P.acc[item * D + lane * PER_LANE + i] = acc[i];
    if (lane == 0) {
        P.m[item] = m;
        P.l[item] = sum;
    }
}

// One warp per (sequence, head): merge its partitions' (m, l, acc) and write out.
template <int D>
__global__ void __launch_bounds__(WARPS * 32) pa_combine(paged_attention_args a, partials P)
{
    constexpr int PER_LANE = D / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t sh = (int64_t)blockIdx.x * WARPS + warp;
    if (sh >= (int64_t)a.num_seqs * a.num_heads)
        return;
    const int s = (int)(sh / a.num_heads);
    const int parts = (a.context_lens[s] + PART - 1) / PART;
    const int64_t first = sh * P.max_parts;
    float M = -INFINITY;
    for (int p = 0; p < parts; p++)
        M = fmaxf(M, P.m[first + p]);
    float L = 0.0f, out[PER_LANE] = {};
    for (int p = 0; p < parts; p++) {
        const float w = exp2f(P.m[first + p] - M);
        L += P.l[first + p] * w;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++)
            out[i] += P.acc[(first + p) * D + lane * PER_LANE + i] * w;
    }
    const float inv = 1.0f / L;
    __half *op = a.out + sh * D + lane * PER_LANE;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++)
        op[i] = __float2half_rn(out[i] * inv);
}

template <int D>
static void launch(const paged_attention_args &a, cudaStream_t stream)
{
    partials P;
    P.max_parts = (int)(((int64_t)a.max_blocks_per_seq * a.block_size + PART - 1) / PART);
    if (P.max_parts < 1)
        P.max_parts = 1;
    const int64_t items = (int64_t)a.num_seqs * a.num_heads * P.max_parts;
    float *scratch = (float *)cudalab_scratch((size_t)items * (D + 2) * sizeof(float));
    if (!scratch) {
        fprintf(stderr, "paged_attention: no scratch memory for the partials\n");
        return;
    }
    P.acc = scratch;
    P.m = scratch + items * D;
    P.l = P.m + items;
    pa_partition<D><<<(unsigned)((items + WARPS - 1) / WARPS), WARPS * 32, 0, stream>>>(a, P);
    const int64_t heads = (int64_t)a.num_seqs * a.num_heads;
    pa_combine<D><<<(unsigned)((heads + WARPS - 1) / WARPS), WARPS * 32, 0, stream>>>(a, P);
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    if ((int64_t)a.num_seqs * a.num_heads <= 0)
        return;
    if (a.head_dim == 128)
        launch<128>(a, stream);
    else if (a.head_dim == 64)
        launch<64>(a, stream);
    else
        fprintf(stderr, "paged_attention: head_dim %d is not 64 or 128\n", a.head_dim);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "paged_attention: launch failed: %s\n", cudaGetErrorString(err));
}
