// paged_attention.cu: reference solution of the paged_attention lab: one decode step over a
// paged KV cache, flash-decoding style (split the context, then combine), on Tensor Cores.
//
// Decode attention reads every K and V row of the context once and does about 2 FLOPs per
// byte: it is bound by memory bandwidth, so the game is to keep enough bytes in flight to
// saturate HBM while spending as few instructions per byte as possible.
//
// Kernel 1, one CTA of 4 warps per (sequence, kv head, partition of the context):
// - GQA: the CTA computes all the query heads that share the kv head (up to 16), so each
//   K/V row is read once for all of them. Those heads are the 16 rows of an MMA tile.
// - Tensor Cores (mma.sync m16n8k16, fp16 in, fp32 accumulate): S = Q K^T for 16 tokens is
//   16 MMAs at head_dim 128, O += P V another 16. On CUDA cores the same work is ~1000
//   instructions per 16 tokens (FMAs plus the shuffles of a dot product spread over 16
//   lanes); that, not the bytes, kept a CUDA-core version at 93% of the copy bandwidth with
//   4 heads per kv head (bench/dev/variants/paged_attention_cudacore.cu).
// - The FlashAttention-2 register trick: the S accumulator fragment has exactly the layout
//   of the A operand of the P V MMA, so the probabilities never leave registers.
// - cp.async pipeline, per warp: each warp streams its own 16-token tiles (K and V, 8 KB at
//   head_dim 128) into shared memory, STAGES deep, so ~16 KB per warp are in flight while it
//   computes on an older tile. Warps never wait for each other inside the loop. Rows past
//   the context are zero-filled (cp.async src-size 0): garbage V rows times p = 0 could
//   still be NaN.
// - Swizzled shared memory: 16-byte chunk c of row r is stored at chunk c ^ (r % 8), so the
//   8 rows an ldmatrix reads at one column hit 8 different bank groups (no conflicts).
// - ldmatrix loads the MMA operands: K rows as they are (B of Q K^T is K^T, "col" layout
//   = K's rows), V with .trans (B of P V is V, needed column by column).
// - Online softmax per warp (max and sum per head, in the log2 domain: scale * log2(e) is
//   applied to the fp32 scores, then exp2f); the accumulator is rescaled only when some
//   row's maximum grew. The 4 warps merge their states once, through shared memory.
// - Paging: the partition's block-table entries are copied to shared memory once; row t of
//   the partition is slot t % block_size of block blk[t / block_size].
// Kernel 2, one CTA per (sequence, head) with several partitions: rescale each partition by
//   exp2(m_p - M), add, divide by the rescaled sum.
// Precision: scores are exact fp16 products summed in fp32; p is rounded to fp16 for the
// P V MMA (2^-11 relative), which the lab's tolerance admits (lab.yaml).
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

#define PA_WARPS 4
#define PA_THREADS (PA_WARPS * 32)
#define PA_TILE 16 // tokens per warp tile: the N of Q K^T, the K of P V
#ifndef PA_STAGES
#define PA_STAGES 3 // tiles in a warp's cp.async ring
#endif
#ifndef PA_PART
#define PA_PART 0 // tokens per partition; 0: chosen from the grid size (choose_partition)
#endif
#ifndef PA_KV_FAST
#define PA_KV_FAST 1
#endif
#ifndef PA_FUSED
#define PA_FUSED 0
#endif
#define PA_MAX_PART 8192 // bounds the block-table slice in shared memory

struct pa_partials {
    float *out;  // [seqs][heads][max_parts][head_dim], unnormalised, relative to m
    float *m;    // [seqs][heads][max_parts], log2 domain
    float *l;    // [seqs][heads][max_parts]
    unsigned *counters; // [seqs][kv heads x chunks]: partitions done (PA_FUSED)
    int max_parts;
};

// ---- PTX wrappers ----

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// 16 bytes global -> shared, bypassing L1; src_bytes 0 writes zeros.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// c += a (16x16, row-major) * b (16x8, column-major); fp16 in, fp32 accumulate.
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&h);
}

// Byte offset of 16-byte chunk c of row r in a swizzled [rows][D] fp16 tile.
template <int D> __device__ __forceinline__ uint32_t swz(int r, int c)
{
    return (uint32_t)(r * D + ((c ^ (r & 7)) << 3)) * 2u;
}

// ---- kernel 1: one partition of one sequence, for the query heads of one kv head ----

// Shared memory: the warps' cp.async rings (PA_WARPS x PA_STAGES x {K, V} x 16 x D fp16),
// reused for the merge once the rings are drained, then the block-table slice.
template <int D> __host__ __device__ constexpr int ring_bytes() { return PA_WARPS * PA_STAGES * 2 * PA_TILE * D * 2; }

template <int D>
__global__ void __launch_bounds__(PA_THREADS) pa_partition_kernel(const paged_attention_args a, pa_partials part,
                                                                   int part_tokens, int log2_bs, int heads_per_cta)
{
    constexpr int CPR = D / 8; // 16-byte chunks per row
    extern __shared__ __align__(16) unsigned char smem[];
    int *s_blk = reinterpret_cast<int *>(smem + ring_bytes<D>());

#if PA_KV_FAST
    const int seq = blockIdx.z, p = blockIdx.y, gx = blockIdx.x, ngx = gridDim.x;
#else
    const int seq = blockIdx.z, p = blockIdx.x, gx = blockIdx.y, ngx = gridDim.y;
#endif
    const int ctx = a.context_lens[seq];
    const int start = p * part_tokens;
    if (start >= ctx)
        return;
    const int end = min(start + part_tokens, ctx), ntok = end - start;
    const int nparts = (ctx + part_tokens - 1) / part_tokens;
    const int G = a.num_heads / a.num_kv_heads, chunks = G / heads_per_cta;
    const int g = gx / chunks;                           // kv head
    const int h0 = g * G + (gx % chunks) * heads_per_cta; // first query head of the CTA
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float c = a.scale * 1.4426950408889634f; // scores in the log2 domain

    // block-table entries of the partition
    const int *table = a.block_tables + (size_t)seq * a.max_blocks_per_seq;
    const int blk0 = start >> log2_bs, nblk = ((end - 1) >> log2_bs) - blk0 + 1;
    for (int i = threadIdx.x; i < nblk; i += PA_THREADS)
        s_blk[i] = table[blk0 + i];

    // Q as the A operand of m16n8k16: rows are query heads (rows >= heads_per_cta are 0)
    const int gr = lane / 4, tq = lane % 4; // fragment row group and column pair
    uint32_t qa[D / 16][4];
    {
        const __half *q = a.q + ((size_t)seq * a.num_heads + h0) * D;
        const bool lo = gr < heads_per_cta, hi = gr + 8 < heads_per_cta;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            int col = kk * 16 + 2 * tq;
            qa[kk][0] = lo ? *reinterpret_cast<const uint32_t *>(q + gr * D + col) : 0u;
            qa[kk][1] = hi ? *reinterpret_cast<const uint32_t *>(q + (gr + 8) * D + col) : 0u;
            qa[kk][2] = lo ? *reinterpret_cast<const uint32_t *>(q + gr * D + col + 8) : 0u;
            qa[kk][3] = hi ? *reinterpret_cast<const uint32_t *>(q + (gr + 8) * D + col + 8) : 0u;
        }
    }
    __syncthreads(); // s_blk

    // this warp's tiles: warp, warp + 4, ... (neighbouring warps read neighbouring rows)
    const int ntiles = (ntok + PA_TILE - 1) / PA_TILE;
    const int my_tiles = warp < ntiles ? (ntiles - warp + PA_WARPS - 1) / PA_WARPS : 0;
    unsigned char *ring = smem + warp * (PA_STAGES * 2 * PA_TILE * D * 2);
    const size_t row_stride = (size_t)a.num_kv_heads * D; // halves between slots of a block
    const __half *kbase = a.k_cache + (size_t)g * D, *vbase = a.v_cache + (size_t)g * D;
    const int bs_mask = (1 << log2_bs) - 1;

    auto load_tile = [&](int k) { // k-th tile of this warp into stage k % PA_STAGES
        const int t0 = (warp + k * PA_WARPS) * PA_TILE;
        unsigned char *sk = ring + (k % PA_STAGES) * (2 * PA_TILE * D * 2), *sv = sk + PA_TILE * D * 2;
#pragma unroll
        for (int i = 0; i < PA_TILE * CPR / 32; i++) {
            int id = i * 32 + lane, r = id / CPR, ch = id % CPR;
            int t = t0 + r;
            bool ok = t < ntok;
            size_t off = 0;
            if (ok) {
                int tok = start + t;
                size_t row = ((size_t)s_blk[(tok >> log2_bs) - blk0] << log2_bs) + (tok & bs_mask);
                off = row * row_stride + ch * 8;
            }
            cp_async16(smem_addr(sk) + swz<D>(r, ch), ok ? kbase + off : a.k_cache, ok ? 16 : 0);
            cp_async16(smem_addr(sv) + swz<D>(r, ch), ok ? vbase + off : a.v_cache, ok ? 16 : 0);
        }
    };

    float acc[D / 8][4]; // O: rows gr and gr + 8, columns n * 8 + 2 tq, +1
#pragma unroll
    for (int n = 0; n < D / 8; n++)
        acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
    float m_lo = -INFINITY, m_hi = -INFINITY; // running max of rows gr, gr + 8 (log2 domain)
    float l_lo = 0.f, l_hi = 0.f;             // this lane's part of the running sums

#pragma unroll
    for (int k = 0; k < PA_STAGES - 1; k++) {
        if (k < my_tiles)
            load_tile(k);
        cp_async_commit();
    }
    const int lm = lane / 8, lr = lane % 8; // ldmatrix: which 8x8 matrix, which of its rows
    for (int k = 0; k < my_tiles; k++) {
        if (k + PA_STAGES - 1 < my_tiles)
            load_tile(k + PA_STAGES - 1);
        cp_async_commit();
        cp_async_wait<PA_STAGES - 1>();
        __syncwarp();
        const uint32_t sk = smem_addr(ring + (k % PA_STAGES) * (2 * PA_TILE * D * 2)), sv = sk + PA_TILE * D * 2;

        // S = Q K^T: s0 holds tokens 0-7 of the tile, s1 tokens 8-15
        float s0[4] = {0.f, 0.f, 0.f, 0.f}, s1[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t b[4];
            ldmatrix_x4(b, sk + swz<D>((lm / 2) * 8 + lr, kk * 2 + (lm & 1)));
            mma_16816(s0, qa[kk], b[0], b[1]);
            mma_16816(s1, qa[kk], b[2], b[3]);
        }

        // online softmax; lane holds tokens 2tq, 2tq+1 (s0) and 8+2tq, 9+2tq (s1)
        const int t0 = (warp + k * PA_WARPS) * PA_TILE + 2 * tq;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            bool ok0 = t0 + (i & 1) < ntok, ok1 = t0 + 8 + (i & 1) < ntok;
            s0[i] = ok0 ? s0[i] * c : -INFINITY;
            s1[i] = ok1 ? s1[i] * c : -INFINITY;
        }
        float mx_lo = fmaxf(fmaxf(s0[0], s0[1]), fmaxf(s1[0], s1[1]));
        float mx_hi = fmaxf(fmaxf(s0[2], s0[3]), fmaxf(s1[2], s1[3]));
#pragma unroll
        for (int off = 1; off < 4; off *= 2) {
            mx_lo = fmaxf(mx_lo, __shfl_xor_sync(0xffffffffu, mx_lo, off));
            mx_hi = fmaxf(mx_hi, __shfl_xor_sync(0xffffffffu, mx_hi, off));
        }
        const float mn_lo = fmaxf(m_lo, mx_lo), mn_hi = fmaxf(m_hi, mx_hi); // finite: the tile has a token
        const float al_lo = exp2f(m_lo - mn_lo), al_hi = exp2f(m_hi - mn_hi);
        m_lo = mn_lo;
        m_hi = mn_hi;
        float p0[4], p1[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            float mi = i < 2 ? mn_lo : mn_hi;
            p0[i] = exp2f(s0[i] - mi);
            p1[i] = exp2f(s1[i] - mi);
        }
        l_lo = l_lo * al_lo + (p0[0] + p0[1] + p1[0] + p1[1]);
        l_hi = l_hi * al_hi + (p0[2] + p0[3] + p1[2] + p1[3]);
        if (__any_sync(0xffffffffu, al_lo != 1.f || al_hi != 1.f)) {
#pragma unroll
            for (int n = 0; n < D / 8; n++) {
                acc[n][0] *= al_lo;
                acc[n][1] *= al_lo;
                acc[n][2] *= al_hi;
                acc[n][3] *= al_hi;
            }
        }

        // O += P V: P's A fragment is the S accumulator, rounded to fp16
        const uint32_t pa[4] = {pack_half2(p0[0], p0[1]), pack_half2(p0[2], p0[3]), pack_half2(p1[0], p1[1]),
                                pack_half2(p1[2], p1[3])};
#pragma unroll
        for (int dp = 0; dp < D / 16; dp++) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, sv + swz<D>((lm & 1) * 8 + lr, dp * 2 + lm / 2));
            mma_16816(acc[2 * dp], pa, b[0], b[1]);
            mma_16816(acc[2 * dp + 1], pa, b[2], b[3]);
        }
        __syncwarp(); // every lane is done with this stage before it is refilled
    }
    cp_async_wait<0>();
    __syncthreads(); // the rings become the merge area

    // ---- merge the warps: m, l and O of each through shared memory ----
    float *s_o = reinterpret_cast<float *>(smem);    // [PA_WARPS][16][D]
    float *s_m = s_o + PA_WARPS * 16 * D, *s_l = s_m + PA_WARPS * 16; // [PA_WARPS][16]
#pragma unroll
    for (int off = 1; off < 4; off *= 2) {
        l_lo += __shfl_xor_sync(0xffffffffu, l_lo, off);
        l_hi += __shfl_xor_sync(0xffffffffu, l_hi, off);
    }
    if (tq == 0) {
        s_m[warp * 16 + gr] = m_lo;
        s_m[warp * 16 + gr + 8] = m_hi;
        s_l[warp * 16 + gr] = l_lo;
        s_l[warp * 16 + gr + 8] = l_hi;
    }
#pragma unroll
    for (int n = 0; n < D / 8; n++) {
        float *o = s_o + (warp * 16 + gr) * D + n * 8 + 2 * tq;
        *reinterpret_cast<float2 *>(o) = make_float2(acc[n][0], acc[n][1]);
        *reinterpret_cast<float2 *>(o + 8 * D) = make_float2(acc[n][2], acc[n][3]);
    }
    __syncthreads();

    for (int e = threadIdx.x; e < heads_per_cta * D; e += PA_THREADS) {
        const int j = e / D, d = e % D;
        float M = -INFINITY;
#pragma unroll
        for (int w = 0; w < PA_WARPS; w++)
            M = fmaxf(M, s_m[w * 16 + j]);
        float L = 0.f, o = 0.f;
#pragma unroll
        for (int w = 0; w < PA_WARPS; w++) {
            float wt = exp2f(s_m[w * 16 + j] - M); // 0 for a warp that had no tile
            L = fmaf(s_l[w * 16 + j], wt, L);
            o = fmaf(s_o[(w * 16 + j) * D + d], wt, o);
        }
        const size_t sh = (size_t)seq * a.num_heads + h0 + j;
        if (nparts == 1) {
            a.out[sh * D + d] = __float2half_rn(o / L);
        } else {
            const size_t pi = sh * part.max_parts + p;
            part.out[pi * D + d] = o;
            if (d == 0) {
                part.m[pi] = M;
                part.l[pi] = L;
            }
        }
    }
#if PA_FUSED
    if (nparts == 1)
        return;
    // The last CTA of the group to finish combines the partitions (no second kernel).
    __shared__ bool s_last;
    __threadfence(); // our partials are visible before we are counted
    __syncthreads();
    if (threadIdx.x == 0)
        s_last = atomicAdd(part.counters + (size_t)seq * ngx + gx, 1u) == (unsigned)nparts - 1;
    __syncthreads();
    if (!s_last)
        return;
    __threadfence();
    for (int e = threadIdx.x; e < heads_per_cta * D; e += PA_THREADS) {
        const int j = e / D, d = e % D;
        const size_t sh = (size_t)seq * a.num_heads + h0 + j;
        const float *pm = part.m + sh * part.max_parts, *pl = part.l + sh * part.max_parts;
        const float *po = part.out + sh * part.max_parts * D + d;
        float M = -INFINITY;
        for (int q = 0; q < nparts; q++)
            M = fmaxf(M, __ldcg(pm + q));
        float L = 0.f, o = 0.f;
#pragma unroll 4
        for (int q = 0; q < nparts; q++) {
            const float wt = exp2f(__ldcg(pm + q) - M);
            L = fmaf(__ldcg(pl + q), wt, L);
            o = fmaf(__ldcg(po + (size_t)q * D), wt, o);
        }
        a.out[sh * D + d] = __float2half_rn(o / L);
    }
#endif
}

// ---- kernel 2: combine the partitions of one (sequence, head); blockDim.x = head_dim ----

__global__ void pa_reduce_kernel(const paged_attention_args a, pa_partials part, int part_tokens)
{
    const int seq = blockIdx.y, h = blockIdx.x, d = threadIdx.x;
    const int ctx = a.context_lens[seq];
    const int nparts = (ctx + part_tokens - 1) / part_tokens;
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

// ---- host side ----

// Largest divisor of the group size that fits the 16 rows of an MMA tile.
static int heads_per_cta(int group)
{
    for (int h = group < 16 ? group : 16; h > 1; h--)
        if (group % h == 0)
            return h;
    return 1;
}

// Tokens per partition: as long as possible (fewer partials to write and combine) while the
// grid still has several CTAs per resident slot, so the last wave is short. The host only
// knows the longest possible context, so short sequences simply have fewer partitions.
static int choose_partition(long long max_ctx, long long groups, int slots)
{
    if (PA_PART > 0)
        return PA_PART;
    int part = 256;
    while (part < max_ctx && part < PA_MAX_PART && groups * ((max_ctx + 2 * part - 1) / (2 * part)) >= 4LL * slots)
        part *= 2;
    return part;
}

template <int D>
static int launch(const paged_attention_args &a, int log2_bs, cudaStream_t stream)
{
    static int slots = 0; // resident CTAs on this GPU, measured once
    const int hpc = heads_per_cta(a.num_heads / a.num_kv_heads);
    const long long max_ctx = (long long)a.max_blocks_per_seq * a.block_size;
    if (!slots) {
        int dev = 0, sms = 0, per_sm = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        cudaFuncSetAttribute(pa_partition_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             ring_bytes<D>() + (PA_MAX_PART + 2) * (int)sizeof(int));
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pa_partition_kernel<D>, PA_THREADS,
                                                      ring_bytes<D>() + 1024);
        slots = (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    }
    const long long groups = (long long)a.num_seqs * a.num_kv_heads * (a.num_heads / a.num_kv_heads / hpc);
    const int part_tokens = choose_partition(max_ctx, groups, slots);

    pa_partials part;
    part.max_parts = (int)((max_ctx + part_tokens - 1) / part_tokens);
    const size_t rows = (size_t)a.num_seqs * a.num_heads * part.max_parts;
    float *scratch = nullptr;
    if (part.max_parts > 1 &&
        !(scratch = (float *)cudalab_scratch(rows * (D + 2) * sizeof(float) + groups * sizeof(unsigned)))) {
        fprintf(stderr, "paged_attention: no scratch memory for %zu partial rows\n", rows);
        return -1;
    }
    part.out = scratch;
    part.m = scratch ? scratch + rows * D : nullptr;
    part.l = scratch ? part.m + rows : nullptr;
    part.counters = scratch ? reinterpret_cast<unsigned *>(part.l + rows) : nullptr;
    if (PA_FUSED && scratch)
        cudaMemsetAsync(part.counters, 0, groups * sizeof(unsigned), stream);

    const int blk_entries = (part_tokens >> log2_bs) + 2;
    const size_t smem = ring_bytes<D>() + (size_t)blk_entries * sizeof(int);
#if PA_KV_FAST
    dim3 grid((unsigned)(groups / a.num_seqs), part.max_parts, a.num_seqs); // a sequence's kv heads side by side
#else
    dim3 grid(part.max_parts, (unsigned)(groups / a.num_seqs), a.num_seqs);
#endif
    pa_partition_kernel<D><<<grid, PA_THREADS, smem, stream>>>(a, part, part_tokens, log2_bs, hpc);
    if (!PA_FUSED && part.max_parts > 1)
        pa_reduce_kernel<<<dim3(a.num_heads, a.num_seqs), D, 0, stream>>>(a, part, part_tokens);
    return 0;
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
    if (a.head_dim == 128)
        launch<128>(a, log2_bs, stream);
    else
        launch<64>(a, log2_bs, stream);
}
