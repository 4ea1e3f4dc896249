// paged_attention_cudacore.cu: the paged_attention lab's first reference (93.5% of the copy
// bandwidth; replaced by reference/paged_attention.cu): one decode step over a paged KV
// cache on CUDA cores, flash-decoding style (split the context, then combine).
//
// Decode attention reads every K and V row of the context once and does about 2 FLOPs per
// byte read (q . k and p * v): it is bound by memory bandwidth, so the whole game is to
// read the unique K/V bytes once, at full bandwidth, with enough parallelism.
//
// Kernel 1, one CTA per (sequence, kv head, partition of 512 tokens):
// - GQA: the CTA computes all query heads that share the kv head (up to 8 at once), so
//   each K/V row is read once for all of them instead of once per query head.
// - 16-byte loads: a K or V row of head_dim fp16 is read by head_dim/8 lanes, 8 halves
//   (one uint4) per lane, coalesced (16 lanes x 16 B = one 256-byte row for dim 128).
//   Loads use the streaming hint (__ldcs): each byte is used once, so keep it out of L1.
// - Loads in flight: the token loop is unrolled 4 deep, all 4 loads are issued before the
//   first use, so each warp keeps 4 x 512 B in the air (bandwidth = bytes in flight /
//   latency).
// - Paging: the partition's block-table entries are copied to shared memory once; token
//   t of the partition is in physical block blk[t >> log2(block_size)], slot t & (bs-1).
// - Scores: each lane's partial dot product is summed over the lanes of its row with
//   __shfl_xor_sync, and stored in shared memory (one float per token and head).
//   scale * log2(e) is folded into q so the softmax uses exp2f.
// - Softmax in the partition: subtract the partition maximum before exp2 (scores of
//   +-100 would overflow fp32's exp otherwise), keep (max, sum) per head.
// - V pass: the same token-to-lane mapping, out += p_t * v_t in fp32 registers, then the
//   token slots are summed: shuffles inside a warp, shared memory across warps.
// - One partition (short contexts): normalise and write out directly; no second pass.
// Kernel 2, one CTA per (sequence, head) with several partitions: rescale each partition by
//   exp2(m_p - M) where M is the largest maximum, add, divide by the rescaled sum. The
//   partials are ~1% of the K/V bytes at 512 tokens per partition.
// Measured on an H100 (docs/PERFORMANCE.md): 93.5% of the copy bandwidth with GQA, 100% with
// MHA. Tried and not faster: cp.async staging of K/V, 8 loads in flight per lane, a
// reduce-scatter of the per-head dot products, 8 warps per CTA, smaller partitions for
// short grids (bench/dev/NOTES.md), nor a one-pass online-softmax kernel
// (bench/dev/variants/paged_attention_onepass.cu: instruction-bound at 73%).
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

#ifndef PA_WARPS
#define PA_WARPS 4
#endif
#define PA_THREADS (PA_WARPS * 32)
#ifndef PA_PART
#define PA_PART 512 // tokens per partition
#endif
#ifndef PA_UNROLL
#define PA_UNROLL 4
#endif

struct pa_partials {
    float *out;  // [seqs][heads][max_parts][head_dim], unnormalised, relative to m
    float *m;    // [seqs][heads][max_parts], log2 domain
    float *l;    // [seqs][heads][max_parts]
    int max_parts;
};

__device__ __forceinline__ void unpack8(const uint4 &v, float f[8])
{
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 x = __half22float2(h[i]);
        f[2 * i] = x.x;
        f[2 * i + 1] = x.y;
    }
}

// D: head_dim; GC: query heads per CTA (all of a group, or a chunk of it)
template <int D, int GC>
__global__ void __launch_bounds__(PA_THREADS) pa_partition_kernel(const paged_attention_args a, pa_partials part,
                                                                   int log2_bs, int chunks)
{
    constexpr int LPT = D / 8;         // lanes per token row
    constexpr int TPW = 32 / LPT;      // tokens per warp step
    constexpr int TPC = PA_WARPS * TPW; // tokens per CTA step
    extern __shared__ float smem[];
    float *s_score = smem;                              // [GC][PA_PART]
    float *s_red = smem;                                // [PA_WARPS][GC][D], reuses s_score after the V pass
    int *s_blk = (int *)(smem + (GC * PA_PART > PA_WARPS * GC * D ? GC * PA_PART : PA_WARPS * GC * D));
    __shared__ float s_max[GC], s_sum[GC];

    const int seq = blockIdx.z;
    const int g = blockIdx.y / chunks, chunk = blockIdx.y % chunks;
    const int p = blockIdx.x;
    const int ctx = a.context_lens[seq];
    const int start = p * PA_PART;
    if (start >= ctx)
        return;
    const int end = min(start + PA_PART, ctx);
    const int ntok = end - start;
    const int nparts = (ctx + PA_PART - 1) / PA_PART;
    const int G = a.num_heads / a.num_kv_heads;
    const int h0 = g * G + chunk * GC; // first query head of this CTA

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int sl = lane % LPT;   // which 8 dims of the row
    const int slot = lane / LPT; // which token of the warp step
    const int bs_mask = (1 << log2_bs) - 1;

    // block-table entries of the partition
    const int *table = a.block_tables + (size_t)seq * a.max_blocks_per_seq;
    const int blk0 = start >> log2_bs, nblk = ((end - 1) >> log2_bs) - blk0 + 1;
    for (int i = threadIdx.x; i < nblk; i += PA_THREADS)
        s_blk[i] = table[blk0 + i];

    // q of the GC heads, our 8 dims, pre-scaled by scale * log2(e)
    float q[GC][8];
    const float qscale = a.scale * 1.4426950408889634f;
#pragma unroll
    for (int j = 0; j < GC; j++) {
        uint4 raw = *reinterpret_cast<const uint4 *>(a.q + ((size_t)seq * a.num_heads + h0 + j) * D + sl * 8);
        unpack8(raw, q[j]);
#pragma unroll
        for (int i = 0; i < 8; i++)
            q[j][i] *= qscale;
    }
    __syncthreads();

    const size_t row_stride = (size_t)a.num_kv_heads * D; // halves between slots of a block
    const __half *kbase = a.k_cache + (size_t)g * D + sl * 8;
    const __half *vbase = a.v_cache + (size_t)g * D + sl * 8;

    // ---- scores: s[j][t] = q_j . k_t (log2 domain) ----
    for (int base = warp * TPW; base < ntok; base += TPC * PA_UNROLL) {
        uint4 kv[PA_UNROLL];
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot; // token within the partition
            kv[u] = make_uint4(0, 0, 0, 0);
            if (t < ntok) {
                int tok = start + t;
                size_t row = ((size_t)s_blk[(tok >> log2_bs) - blk0] << log2_bs) + (tok & bs_mask);
                kv[u] = __ldcs(reinterpret_cast<const uint4 *>(kbase + row * row_stride));
            }
        }
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            float k[8];
            unpack8(kv[u], k);
            int t = base + u * TPC + slot;
#pragma unroll
            for (int j = 0; j < GC; j++) {
                float dot = 0.f;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    dot = fmaf(q[j][i], k[i], dot);
#pragma unroll
                for (int off = LPT / 2; off > 0; off /= 2)
                    dot += __shfl_xor_sync(0xffffffffu, dot, off);
                if (sl == 0 && t < ntok)
                    s_score[j * PA_PART + t] = dot;
            }
        }
    }
    __syncthreads();

    // ---- softmax inside the partition: one warp per head ----
    for (int j = warp; j < GC; j += PA_WARPS) {
        float *s = s_score + j * PA_PART;
        float mx = -INFINITY;
        for (int t = lane; t < ntok; t += 32)
            mx = fmaxf(mx, s[t]);
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
        float sum = 0.f;
        for (int t = lane; t < ntok; t += 32) {
            float e = exp2f(s[t] - mx);
            s[t] = e;
            sum += e;
        }
#pragma unroll
        for (int off = 16; off > 0; off /= 2)
            sum += __shfl_xor_sync(0xffffffffu, sum, off);
        if (lane == 0) {
            s_max[j] = mx;
            s_sum[j] = sum;
        }
    }
    __syncthreads();

    // ---- V pass: acc[j][i] = sum_t p[j][t] * v[t][i] ----
    float acc[GC][8];
#pragma unroll
    for (int j = 0; j < GC; j++)
#pragma unroll
        for (int i = 0; i < 8; i++)
            acc[j][i] = 0.f;
    for (int base = warp * TPW; base < ntok; base += TPC * PA_UNROLL) {
        uint4 vv[PA_UNROLL];
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot;
            vv[u] = make_uint4(0, 0, 0, 0);
            if (t < ntok) {
                int tok = start + t;
                size_t row = ((size_t)s_blk[(tok >> log2_bs) - blk0] << log2_bs) + (tok & bs_mask);
                vv[u] = __ldcs(reinterpret_cast<const uint4 *>(vbase + row * row_stride));
            }
        }
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot;
            if (t < ntok) {
                float v[8];
                unpack8(vv[u], v);
#pragma unroll
                for (int j = 0; j < GC; j++) {
                    float pj = s_score[j * PA_PART + t];
#pragma unroll
                    for (int i = 0; i < 8; i++)
                        acc[j][i] = fmaf(pj, v[i], acc[j][i]);
                }
            }
        }
    }
    // sum the token slots of the warp (lanes with the same sl)
#pragma unroll
    for (int off = LPT; off < 32; off *= 2)
#pragma unroll
        for (int j = 0; j < GC; j++)
#pragma unroll
            for (int i = 0; i < 8; i++)
                acc[j][i] += __shfl_xor_sync(0xffffffffu, acc[j][i], off);
    __syncthreads(); // s_score is about to be reused as s_red
    if (slot == 0)
#pragma unroll
        for (int j = 0; j < GC; j++)
#pragma unroll
            for (int i = 0; i < 8; i++)
                s_red[(warp * GC + j) * D + sl * 8 + i] = acc[j][i];
    __syncthreads();

    // ---- across warps, then out (one partition) or the partials ----
    for (int e = threadIdx.x; e < GC * D; e += PA_THREADS) {
        int j = e / D, d = e % D;
        float o = 0.f;
#pragma unroll
        for (int w = 0; w < PA_WARPS; w++)
            o += s_red[(w * GC + j) * D + d];
        int h = h0 + j;
        size_t sh = (size_t)seq * a.num_heads + h;
        if (nparts == 1) {
            a.out[sh * D + d] = __float2half_rn(o / s_sum[j]);
        } else {
            size_t pi = sh * part.max_parts + p;
            part.out[pi * D + d] = o;
            if (d == 0) {
                part.m[pi] = s_max[j];
                part.l[pi] = s_sum[j];
            }
        }
    }
}

// Combines the partitions of one (sequence, head); blockDim.x = head_dim.
__global__ void pa_reduce_kernel(const paged_attention_args a, pa_partials part)
{
    const int seq = blockIdx.y, h = blockIdx.x, d = threadIdx.x;
    const int ctx = a.context_lens[seq];
    const int nparts = (ctx + PA_PART - 1) / PA_PART;
    if (nparts <= 1)
        return; // written by kernel 1
    const size_t sh = (size_t)seq * a.num_heads + h;
    const float *m = part.m + sh * part.max_parts, *l = part.l + sh * part.max_parts;
    float M = -INFINITY;
    for (int p = 0; p < nparts; p++)
        M = fmaxf(M, m[p]);
    float L = 0.f, o = 0.f;
    for (int p = 0; p < nparts; p++) {
        float w = exp2f(m[p] - M);
        L = fmaf(l[p], w, L);
        o = fmaf(part.out[(sh * part.max_parts + p) * a.head_dim + d], w, o);
    }
    a.out[sh * a.head_dim + d] = __float2half_rn(o / L);
}

template <int D, int GC>
static void launch_partitions(const paged_attention_args &a, const pa_partials &part, int log2_bs,
                              cudaStream_t stream)
{
    int chunks = a.num_heads / a.num_kv_heads / GC;
    dim3 grid(part.max_parts, a.num_kv_heads * chunks, a.num_seqs);
    int score = GC * PA_PART, red = PA_WARPS * GC * D;
    int blk_entries = (PA_PART >> log2_bs) + 2;
    size_t smem = (size_t)(score > red ? score : red) * sizeof(float) + (size_t)blk_entries * sizeof(int);
    pa_partition_kernel<D, GC><<<grid, PA_THREADS, smem, stream>>>(a, part, log2_bs, chunks);
}

template <int D>
static void launch_dim(const paged_attention_args &a, const pa_partials &part, int log2_bs, cudaStream_t stream)
{
    int G = a.num_heads / a.num_kv_heads;
    if (G % 8 == 0)
        launch_partitions<D, 8>(a, part, log2_bs, stream);
    else if (G % 4 == 0)
        launch_partitions<D, 4>(a, part, log2_bs, stream);
    else if (G % 2 == 0)
        launch_partitions<D, 2>(a, part, log2_bs, stream);
    else
        launch_partitions<D, 1>(a, part, log2_bs, stream);
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    int log2_bs = 0;
    while ((1 << log2_bs) < a.block_size)
        log2_bs++;
    if ((1 << log2_bs) != a.block_size || (a.head_dim != 64 && a.head_dim != 128)) {
        fprintf(stderr, "paged_attention: needs a power-of-two block size and head_dim 64 or 128\n");
        return;
    }
    long long max_ctx = (long long)a.max_blocks_per_seq * a.block_size;
    pa_partials part;
    part.max_parts = (int)((max_ctx + PA_PART - 1) / PA_PART);
    size_t rows = (size_t)a.num_seqs * a.num_heads * part.max_parts;
    size_t bytes = rows * (a.head_dim + 2) * sizeof(float);
    float *scratch = part.max_parts > 1 ? (float *)cudalab_scratch(bytes) : nullptr;
    if (part.max_parts > 1 && !scratch) {
        fprintf(stderr, "paged_attention: no scratch memory (%zu bytes)\n", bytes);
        return;
    }
    part.out = scratch;
    part.m = scratch ? scratch + rows * a.head_dim : nullptr;
    part.l = scratch ? part.m + rows : nullptr;

    if (a.head_dim == 128)
        launch_dim<128>(a, part, log2_bs, stream);
    else
        launch_dim<64>(a, part, log2_bs, stream);
    if (part.max_parts > 1)
        pa_reduce_kernel<<<dim3(a.num_heads, a.num_seqs), a.head_dim, 0, stream>>>(a, part);
}
