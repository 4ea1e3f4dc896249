// paged_attention_knobs.cu: a second version of reference/paged_attention.cu with tuning
// knobs, kept as a record (bench/dev/NOTES.md has the numbers). It is NOT the reference:
// on the H100 (bench/dev/run_variants.sh, 2026-11-22) every setting tried was slower than
// or equal to the reference on the lab's bench shape, and adaptive partitions made one
// long sequence 1.6-2.5x slower (the combine kernel became latency-bound).
//
// Knobs (-D at compile time), each with its measured outcome on 64 seqs x 4096, 32/8 heads,
// dim 128 (reference: 0.4037 ms):
// - PA_CPASYNC=1 (default here): K/V staged in shared memory by cp.async.cg, double
//   buffered, so loads hold no registers while in flight; the first V copies are issued
//   before the softmax. 0.4391 ms: more bytes in flight did not help, the staging
//   round trip through shared memory and the lower occupancy (40 KB per CTA) cost more.
// - PA_UNROLL=4|8: loads in flight per lane. cp.async U4 0.4352 ms.
// - PA_CPASYNC=0 PA_UNROLL=8 PA_MIN_BLOCKS=5: register loads 8 deep, capped at 96 registers.
//   0.4010 ms, equal to the reference within noise.
// - PA_WARPS=8: 8 warps per CTA (shorter CTAs, smaller tail). 0.4367 ms (with cp.async).
// - PA_BUTTERFLY=0|1: reduce-scatter of the per-head dot products (GC-1 + log2(LPT/GC)
//   shuffles instead of GC*log2(LPT)). 0.4385 ms without it, 0.4391 with it (cp.async):
//   shuffles were not the bottleneck.
// - PA_ADAPTIVE=1: halve the partition (to 64 tokens) until the grid has 8 CTAs per SM.
//   1 x 32768 context: 0.124-0.19 ms instead of 0.0785 ms: 256 partitions per head make
//   the combine kernel (one thread per dim walking all partitions) the bottleneck.
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

// Tuning knobs (defaults measured best on an H100; bench/dev/run_device.sh builds variants)
#ifndef PA_WARPS
#define PA_WARPS 4 // warps per CTA
#endif
#ifndef PA_UNROLL
#define PA_UNROLL 8 // K/V loads in flight per lane
#endif
#ifndef PA_MIN_BLOCKS
#define PA_MIN_BLOCKS 1 // __launch_bounds__ minimum resident CTAs per SM
#endif
#ifndef PA_BUTTERFLY
#define PA_BUTTERFLY 1 // reduce-scatter the per-head dot products (fewer shuffles)
#endif
#ifndef PA_CPASYNC
#define PA_CPASYNC 1 // stage K/V in shared memory with cp.async (no registers held by loads)
#endif
#ifndef PA_ADAPTIVE
#define PA_ADAPTIVE 1 // shrink partitions when there are too few CTAs to fill the GPU
#endif
#define PA_THREADS (PA_WARPS * 32)
#define PA_PART_MAX 512 // tokens per partition (at most; a power of two)
#define PA_PART_MIN 64

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

// cp.async: a 16-byte copy global -> shared that holds no register while in flight; the
// issuing thread waits for its own groups with cp.async.wait_group. .cg: L2 only.
__device__ __forceinline__ void cp_async16(void *smem_dst, const void *gmem_src)
{
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem_src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Sum over the LPT lanes of a row of GC partial dot products at once (reduce-scatter):
// at each of the first log2(GC) steps a lane keeps half of its values and sends the other
// half to its partner, so GC heads cost GC-1 + log2(LPT/GC) shuffles instead of
// GC * log2(LPT). The lane ends with the full sum of head butterfly_head(lane).
template <int LPT, int GC> __device__ __forceinline__ float butterfly_sum(float (&v)[GC], int lane)
{
#pragma unroll
    for (int c = GC, o = LPT / 2; c > 1; c /= 2, o /= 2) {
        const bool upper = lane & o;
#pragma unroll
        for (int j = 0; j < c / 2; j++) {
            float send = upper ? v[j] : v[j + c / 2];
            float keep = upper ? v[j + c / 2] : v[j];
            v[j] = keep + __shfl_xor_sync(0xffffffffu, send, o);
        }
    }
    float x = v[0];
#pragma unroll
    for (int o = LPT / GC / 2; o > 0; o /= 2)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

template <int LPT, int GC> __device__ __forceinline__ int butterfly_head(int lane)
{
    int j = 0;
#pragma unroll
    for (int c = GC, o = LPT / 2; c > 1; c /= 2, o /= 2)
        if (lane & o)
            j += c / 2;
    return j;
}

// D: head_dim; GC: query heads per CTA (all of a group, or a chunk of it)
template <int D, int GC>
__global__ void __launch_bounds__(PA_THREADS, PA_MIN_BLOCKS)
    pa_partition_kernel(const paged_attention_args a, pa_partials part, int log2_bs, int chunks, int psize)
{
    constexpr int LPT = D / 8;         // lanes per token row
    constexpr int TPW = 32 / LPT;      // tokens per warp step
    constexpr int TPC = PA_WARPS * TPW; // tokens per CTA step
    extern __shared__ float smem[];
    float *s_score = smem; // [GC][psize]
    float *s_red = smem;   // [PA_WARPS][GC][D], reuses s_score after the V pass
    const int area = GC * psize > PA_WARPS * GC * D ? GC * psize : PA_WARPS * GC * D;
    int *s_blk = (int *)(smem + area);
    // cp.async staging, [2 buffers][PA_UNROLL][PA_THREADS] x 16 bytes, each thread its own slots
    uint4 *s_stage = reinterpret_cast<uint4 *>(smem + area + (((psize >> log2_bs) + 2 + 3) & ~3));
    __shared__ float s_max[GC], s_sum[GC];

    const int seq = blockIdx.z;
    const int g = blockIdx.y / chunks, chunk = blockIdx.y % chunks;
    const int p = blockIdx.x;
    const int ctx = a.context_lens[seq];
    const int start = p * psize;
    if (start >= ctx)
        return;
    const int end = min(start + psize, ctx);
    const int ntok = end - start;
    const int nparts = (ctx + psize - 1) / psize;
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

    constexpr int STEP = TPC * PA_UNROLL; // tokens of the CTA per loop trip
    // address of this lane's 16 bytes of token t (in the partition) in a cache
    auto row_ptr = [&](const __half *cache_base, int t) {
        int tok = start + t;
        size_t row = ((size_t)s_blk[(tok >> log2_bs) - blk0] << log2_bs) + (tok & bs_mask);
        return reinterpret_cast<const uint4 *>(cache_base + row * row_stride);
    };
#if PA_CPASYNC
    // issue the copies of one loop trip into staging buffer buf, as one cp.async group
    auto issue = [&](const __half *cache_base, int base, int buf) {
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot;
            if (t < ntok)
                cp_async16(&s_stage[(buf * PA_UNROLL + u) * PA_THREADS + threadIdx.x], row_ptr(cache_base, t));
        }
        cp_async_commit();
    };
    if (warp * TPW < ntok)
        issue(kbase, warp * TPW, 0);
#endif

    // ---- scores: s[j][t] = q_j . k_t (log2 domain) ----
    int buf = 0;
    for (int base = warp * TPW; base < ntok; base += STEP, buf ^= 1) {
#if PA_CPASYNC
        // the next trip's copies go out before this trip's data is used (double buffering)
        if (base + STEP < ntok) {
            issue(kbase, base + STEP, buf ^ 1);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
#else
        uint4 kv[PA_UNROLL];
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot; // token within the partition
            kv[u] = t < ntok ? __ldcs(row_ptr(kbase, t)) : make_uint4(0, 0, 0, 0);
        }
#endif
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot;
            float k[8];
#if PA_CPASYNC
            unpack8(t < ntok ? s_stage[(buf * PA_UNROLL + u) * PA_THREADS + threadIdx.x] : make_uint4(0, 0, 0, 0), k);
#else
            unpack8(kv[u], k);
#endif
            float dot[GC];
#pragma unroll
            for (int j = 0; j < GC; j++) {
                dot[j] = 0.f;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    dot[j] = fmaf(q[j][i], k[i], dot[j]);
            }
#if PA_BUTTERFLY
            float x = butterfly_sum<LPT, GC>(dot, lane);
            if ((sl & (LPT / GC - 1)) == 0 && t < ntok)
                s_score[butterfly_head<LPT, GC>(lane) * psize + t] = x;
#else
#pragma unroll
            for (int j = 0; j < GC; j++) {
#pragma unroll
                for (int off = LPT / 2; off > 0; off /= 2)
                    dot[j] += __shfl_xor_sync(0xffffffffu, dot[j], off);
                if (sl == 0 && t < ntok)
                    s_score[j * psize + t] = dot[j];
            }
#endif
        }
    }
#if PA_CPASYNC
    if (warp * TPW < ntok) // the first V copies fly while the softmax runs
        issue(vbase, warp * TPW, 0);
#endif
    __syncthreads();

    // ---- softmax inside the partition: one warp per head ----
    for (int j = warp; j < GC; j += PA_WARPS) {
        float *s = s_score + j * psize;
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
    buf = 0;
    for (int base = warp * TPW; base < ntok; base += STEP, buf ^= 1) {
#if PA_CPASYNC
        if (base + STEP < ntok) {
            issue(vbase, base + STEP, buf ^ 1);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
#else
        uint4 vv[PA_UNROLL];
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot;
            vv[u] = t < ntok ? __ldcs(row_ptr(vbase, t)) : make_uint4(0, 0, 0, 0);
        }
#endif
#pragma unroll
        for (int u = 0; u < PA_UNROLL; u++) {
            int t = base + u * TPC + slot;
            if (t < ntok) {
                float v[8];
#if PA_CPASYNC
                unpack8(s_stage[(buf * PA_UNROLL + u) * PA_THREADS + threadIdx.x], v);
#else
                unpack8(vv[u], v);
#endif
#pragma unroll
                for (int j = 0; j < GC; j++) {
                    float pj = s_score[j * psize + t];
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
__global__ void pa_reduce_kernel(const paged_attention_args a, pa_partials part, int psize)
{
    const int seq = blockIdx.y, h = blockIdx.x, d = threadIdx.x;
    const int ctx = a.context_lens[seq];
    const int nparts = (ctx + psize - 1) / psize;
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
static void launch_partitions(const paged_attention_args &a, const pa_partials &part, int log2_bs, int psize,
                              cudaStream_t stream)
{
    int chunks = a.num_heads / a.num_kv_heads / GC;
    dim3 grid(part.max_parts, a.num_kv_heads * chunks, a.num_seqs);
    int score = GC * psize, red = PA_WARPS * GC * D;
    int blk_entries = ((psize >> log2_bs) + 2 + 3) & ~3;
    size_t smem = (size_t)(score > red ? score : red) * sizeof(float) + (size_t)blk_entries * sizeof(int);
#if PA_CPASYNC
    smem += (size_t)2 * PA_UNROLL * PA_THREADS * sizeof(uint4);
#endif
    static size_t smem_allowed = 48 * 1024; // per template instance: raise the opt-in limit once
    if (smem > smem_allowed) {
        cudaFuncSetAttribute(pa_partition_kernel<D, GC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        smem_allowed = smem;
    }
    pa_partition_kernel<D, GC><<<grid, PA_THREADS, smem, stream>>>(a, part, log2_bs, chunks, psize);
}

template <int D>
static void launch_dim(const paged_attention_args &a, const pa_partials &part, int log2_bs, int psize,
                       cudaStream_t stream)
{
    int G = a.num_heads / a.num_kv_heads;
    if (G % 8 == 0)
        launch_partitions<D, 8>(a, part, log2_bs, psize, stream);
    else if (G % 4 == 0)
        launch_partitions<D, 4>(a, part, log2_bs, psize, stream);
    else if (G % 2 == 0)
        launch_partitions<D, 2>(a, part, log2_bs, psize, stream);
    else
        launch_partitions<D, 1>(a, part, log2_bs, psize, stream);
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
    int G = a.num_heads / a.num_kv_heads;
    int gc = G % 8 == 0 ? 8 : G % 4 == 0 ? 4 : G % 2 == 0 ? 2 : 1;
    // partition size: 512 tokens, halved (down to 64) while the grid has fewer than
    // 8 CTAs per SM, so one long sequence still spreads over the whole GPU
    int psize = PA_PART_MAX;
#if PA_ADAPTIVE
    static int sms = 0;
    if (!sms) {
        int dev;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    }
    long long groups = (long long)a.num_seqs * a.num_kv_heads * (G / gc);
    while (psize > PA_PART_MIN && groups * ((max_ctx + psize - 1) / psize) < 8LL * sms)
        psize /= 2;
#endif
    pa_partials part;
    part.max_parts = (int)((max_ctx + psize - 1) / psize);
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
        launch_dim<128>(a, part, log2_bs, psize, stream);
    else
        launch_dim<64>(a, part, log2_bs, psize, stream);
    if (part.max_parts > 1)
        pa_reduce_kernel<<<dim3(a.num_heads, a.num_seqs), a.head_dim, 0, stream>>>(a, part, psize);
}
