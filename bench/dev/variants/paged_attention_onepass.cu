// paged_attention_onepass.cu: a candidate for reference/paged_attention.cu: one pass over K
// and V with an online softmax, no barrier inside the token loop.
//
// The reference reads a partition's K rows (scores to shared memory), synchronises, takes
// the softmax, synchronises, then reads the V rows: between the phases a CTA has no loads
// in flight. Here every warp streams its own tokens, K and V of a token loaded together
// (16 bytes a lane each, UNROLL tokens deep), and folds each score into a running
// (max, sum, output) per query head (online softmax: rescale only when the max grows).
// The CTA's warps merge their states once at the end through shared memory.
//
// Grid: (partition, kv head x head group, sequence); a CTA owns PA1_PART tokens of one
// sequence for the G query heads that share one kv head. Lanes: a K/V row of D fp16 is
// D/8 lanes x 8 halves (one uint4); a warp load covers 32 / (D/8) tokens.
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

#ifndef PA1_PART
#define PA1_PART 512 // tokens per partition (CTA)
#endif
#define PA1_WARPS 4
#define PA1_THREADS (PA1_WARPS * 32)
#define PA1_UNROLL 4 // token loads in flight per lane (K and V each)

struct pa1_partials {
    float *out; // [seqs][heads][max_parts][D], unnormalised, relative to m
    float *m;   // [seqs][heads][max_parts], log2 domain
    float *l;   // [seqs][heads][max_parts]
    int max_parts;
};

__device__ __forceinline__ void pa1_unpack8(const uint4 &v, float f[8])
{
    const __half2 *h = reinterpret_cast<const __half2 *>(&v);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 x = __half22float2(h[i]);
        f[2 * i] = x.x;
        f[2 * i + 1] = x.y;
    }
}

template <int D, int G>
__global__ void __launch_bounds__(PA1_THREADS)
pa1_partition_kernel(const paged_attention_args a, pa1_partials part, int log2_bs, int groups)
{
    constexpr int R = D / 8;    // lanes per row
    constexpr int TPL = 32 / R; // tokens per warp load
    const int seq = blockIdx.z, kvh = blockIdx.y / groups, grp = blockIdx.y % groups, p = blockIdx.x;
    const int ctx = a.context_lens[seq];
    const int t0 = p * PA1_PART;
    if (t0 >= ctx)
        return;
    const int t1 = min(ctx, t0 + PA1_PART);
    const int nparts = (ctx + PA1_PART - 1) / PA1_PART;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int sub = lane / R, col = (lane % R) * 8;
    const int heads_per_kv = a.num_heads / a.num_kv_heads;
    const int h0 = kvh * heads_per_kv + grp * G;

    // the partition's block-table entries, once
    __shared__ int s_blk[PA1_PART / 8 + 2];
    const int bs_mask = (1 << log2_bs) - 1;
    const int first_blk = t0 >> log2_bs, nblk = ((t1 - 1) >> log2_bs) - first_blk + 1;
    for (int i = threadIdx.x; i < nblk; i += PA1_THREADS)
        s_blk[i] = a.block_tables[(size_t)seq * a.max_blocks_per_seq + first_blk + i];

    // q of the G heads, this lane's 8 dims, with scale * log2(e) folded in (exp2 below)
    const float qscale = a.scale * 1.4426950408889634f;
    float q[G][8];
#pragma unroll
    for (int g = 0; g < G; g++) {
        const uint4 v = *reinterpret_cast<const uint4 *>(a.q + ((size_t)seq * a.num_heads + h0 + g) * D + col);
        pa1_unpack8(v, q[g]);
#pragma unroll
        for (int i = 0; i < 8; i++)
            q[g][i] *= qscale;
    }
    float m[G], l[G], acc[G][8];
#pragma unroll
    for (int g = 0; g < G; g++) {
        m[g] = -INFINITY;
        l[g] = 0.f;
#pragma unroll
        for (int i = 0; i < 8; i++)
            acc[g][i] = 0.f;
    }
    __syncthreads();

    const size_t row_stride = (size_t)a.num_kv_heads * D; // halves between two slots of a block
    const __half *kbase = a.k_cache + (size_t)kvh * D + col;
    const __half *vbase = a.v_cache + (size_t)kvh * D + col;
    constexpr int STEP = PA1_WARPS * TPL; // tokens per CTA-wide load
    // the trip count is the warp's (not the lane's): every lane reaches every shuffle
    for (int wbase = t0 + warp * TPL; wbase < t1; wbase += STEP * PA1_UNROLL) {
        const int base = wbase + sub;
        uint4 kr[PA1_UNROLL], vr[PA1_UNROLL];
#pragma unroll
        for (int u = 0; u < PA1_UNROLL; u++) { // all loads first: 2 x UNROLL x 16 B in flight
            const int t = base + u * STEP;
            if (t < t1) {
                const size_t slot = (size_t)s_blk[(t >> log2_bs) - first_blk] * (size_t)(bs_mask + 1) + (t & bs_mask);
                kr[u] = __ldcs(reinterpret_cast<const uint4 *>(kbase + slot * row_stride));
                vr[u] = __ldcs(reinterpret_cast<const uint4 *>(vbase + slot * row_stride));
            } else {
                kr[u] = make_uint4(0, 0, 0, 0);
                vr[u] = make_uint4(0, 0, 0, 0);
            }
        }
#pragma unroll
        for (int u = 0; u < PA1_UNROLL; u++) {
            const bool valid = base + u * STEP < t1;
            float k[8], v[8];
            pa1_unpack8(kr[u], k);
            pa1_unpack8(vr[u], v);
#pragma unroll
            for (int g = 0; g < G; g++) {
                float s = 0.f;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    s = fmaf(q[g][i], k[i], s);
#pragma unroll
                for (int o = R / 2; o > 0; o >>= 1) // the R lanes of this token's row
                    s += __shfl_xor_sync(0xffffffffu, s, o);
                if (!valid)
                    continue;
                if (s > m[g]) { // the max grew: rescale what was summed so far
                    const float c = exp2f(m[g] - s);
                    l[g] *= c;
#pragma unroll
                    for (int i = 0; i < 8; i++)
                        acc[g][i] *= c;
                    m[g] = s;
                }
                const float e = exp2f(s - m[g]);
                l[g] += e;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    acc[g][i] = fmaf(e, v[i], acc[g][i]);
            }
        }
    }

    // merge the TPL token slots of the warp (lanes col-aligned across subs)
#pragma unroll
    for (int o = R; o < 32; o <<= 1) {
#pragma unroll
        for (int g = 0; g < G; g++) {
            const float mo = __shfl_xor_sync(0xffffffffu, m[g], o);
            const float lo = __shfl_xor_sync(0xffffffffu, l[g], o);
            const float mn = fmaxf(m[g], mo);
            const float cs = mn == -INFINITY ? 0.f : exp2f(m[g] - mn), co = mn == -INFINITY ? 0.f : exp2f(mo - mn);
            l[g] = l[g] * cs + lo * co;
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const float ao = __shfl_xor_sync(0xffffffffu, acc[g][i], o);
                acc[g][i] = acc[g][i] * cs + ao * co;
            }
            m[g] = mn;
        }
    }

    // merge the warps through shared memory
    __shared__ float s_m[PA1_WARPS][G], s_l[PA1_WARPS][G];
    __shared__ float s_acc[PA1_WARPS][G][D];
    if (lane < R) {
#pragma unroll
        for (int g = 0; g < G; g++) {
#pragma unroll
            for (int i = 0; i < 8; i++)
                s_acc[warp][g][col + i] = acc[g][i];
            if (lane == 0) {
                s_m[warp][g] = m[g];
                s_l[warp][g] = l[g];
            }
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < G * D; e += PA1_THREADS) {
        const int g = e / D, d = e % D;
        float M = -INFINITY;
#pragma unroll
        for (int w = 0; w < PA1_WARPS; w++)
            M = fmaxf(M, s_m[w][g]);
        float L = 0.f, o = 0.f;
#pragma unroll
        for (int w = 0; w < PA1_WARPS; w++) {
            const float c = s_m[w][g] == -INFINITY ? 0.f : exp2f(s_m[w][g] - M);
            L = fmaf(s_l[w][g], c, L);
            o = fmaf(s_acc[w][g][d], c, o);
        }
        const size_t sh = (size_t)seq * a.num_heads + h0 + g;
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
}

// Combines the partitions of one (sequence, head); blockDim.x = head_dim. The loads of
// different partitions are independent, so the loop is unrolled to keep several in flight.
__global__ void pa1_reduce_kernel(const paged_attention_args a, pa1_partials part)
{
    const int seq = blockIdx.y, h = blockIdx.x, d = threadIdx.x;
    const int ctx = a.context_lens[seq];
    const int nparts = (ctx + PA1_PART - 1) / PA1_PART;
    if (nparts <= 1)
        return; // written by the partition kernel
    const size_t sh = (size_t)seq * a.num_heads + h;
    const float *m = part.m + sh * part.max_parts, *l = part.l + sh * part.max_parts;
    const float *o = part.out + sh * part.max_parts * a.head_dim + d;
    float M = -INFINITY;
    for (int p = 0; p < nparts; p++)
        M = fmaxf(M, m[p]);
    float L = 0.f, acc = 0.f;
#pragma unroll 8
    for (int p = 0; p < nparts; p++) {
        const float w = exp2f(m[p] - M);
        L = fmaf(l[p], w, L);
        acc = fmaf(o[(size_t)p * a.head_dim], w, acc);
    }
    a.out[sh * a.head_dim + d] = __float2half_rn(acc / L);
}

template <int D, int G>
static void pa1_launch(const paged_attention_args &a, const pa1_partials &part, int log2_bs, cudaStream_t stream)
{
    const int groups = a.num_heads / a.num_kv_heads / G;
    dim3 grid(part.max_parts, a.num_kv_heads * groups, a.num_seqs);
    pa1_partition_kernel<D, G><<<grid, PA1_THREADS, 0, stream>>>(a, part, log2_bs, groups);
}

template <int D>
static void pa1_launch_dim(const paged_attention_args &a, const pa1_partials &part, int log2_bs, cudaStream_t stream)
{
    const int G = a.num_heads / a.num_kv_heads;
    if (G % 8 == 0)
        pa1_launch<D, 8>(a, part, log2_bs, stream);
    else if (G % 4 == 0)
        pa1_launch<D, 4>(a, part, log2_bs, stream);
    else if (G % 2 == 0)
        pa1_launch<D, 2>(a, part, log2_bs, stream);
    else
        pa1_launch<D, 1>(a, part, log2_bs, stream);
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    int log2_bs = 0;
    while ((1 << log2_bs) < a.block_size)
        log2_bs++;
    if ((1 << log2_bs) != a.block_size || a.block_size < 8 || (a.head_dim != 64 && a.head_dim != 128)) {
        fprintf(stderr, "paged_attention: needs a power-of-two block size >= 8 and head_dim 64 or 128\n");
        return;
    }
    const long long max_ctx = (long long)a.max_blocks_per_seq * a.block_size;
    pa1_partials part;
    part.max_parts = (int)((max_ctx + PA1_PART - 1) / PA1_PART);
    const size_t rows = (size_t)a.num_seqs * a.num_heads * part.max_parts;
    const size_t bytes = rows * (a.head_dim + 2) * sizeof(float);
    float *scratch = part.max_parts > 1 ? static_cast<float *>(cudalab_scratch(bytes)) : nullptr;
    if (part.max_parts > 1 && !scratch) {
        fprintf(stderr, "paged_attention: no scratch memory (%zu bytes)\n", bytes);
        return;
    }
    part.out = scratch;
    part.m = scratch ? scratch + rows * a.head_dim : nullptr;
    part.l = scratch ? part.m + rows : nullptr;
    if (a.head_dim == 128)
        pa1_launch_dim<128>(a, part, log2_bs, stream);
    else
        pa1_launch_dim<64>(a, part, log2_bs, stream);
    if (part.max_parts > 1)
        pa1_reduce_kernel<<<dim3(a.num_heads, a.num_seqs), a.head_dim, 0, stream>>>(a, part);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "paged_attention: launch failed: %s\n", cudaGetErrorString(err));
}
