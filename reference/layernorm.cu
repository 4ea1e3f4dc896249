/* reference/layernorm.cu: LayerNorm over the rows of a rows x cols fp32 matrix, at copy
 * bandwidth.
 *
 * Per row: mean = sum(x) / n, var = sum((x - mean)^2) / n (biased, like PyTorch),
 * rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * gamma + beta; mean and rstd are
 * outputs too (a training backward pass needs them).
 *
 * Variance: never E[x^2] - E[x]^2 in fp32. For a row near 1e4 with unit noise, E[x^2] is
 * 1e8, where one fp32 ulp is 8: the difference of two such numbers is rounding noise and
 * may be negative (rstd = NaN). The two-pass form sums (x - mean)^2, small numbers, and
 * costs no extra memory traffic here because the row is still in registers after the
 * mean. It is also "corrected": var = (sum d^2 - (sum d)^2 / n) / n with d = x - mean;
 * the second term removes the effect of the mean's own rounding error, so a constant row
 * gets var = 0 exactly enough that rstd = 1 / sqrt(eps). (Welford's one-pass update is the
 * other good answer. Partial statistics (count, mean, M2) of disjoint pieces of a row
 * merge exactly with Chan's formula, as the cluster and split-row paths do.)
 *
 * Memory: each x is read once and each y written once (16-byte loads and stores when
 * cols % 4 == 0 and the pointers are aligned). How a row is spread over threads depends
 * on its width, so that each SM has enough bytes in flight:
 *  - cols <= 1024: a warp per row (4 per block), reductions with warp shuffles only, one
 *    warp per row launched (no loop over rows): the hardware hands out blocks as SMs free
 *    up, so no SM is left with a row more than the others at the end. gamma and beta (8 KB,
 *    L1 hits) are loaded into registers right after the mean, so their latency passes
 *    during the variance's shuffles rather than at the stores, where a warp has nothing in
 *    flight (the reason is at the kernel); that measured better than reading them at the
 *    stores, and than copying them into shared memory once per block (that needs a barrier
 *    and smem, and a persistent grid to pay off);
 *  - cols <= 16384: a block per row (256 to 1024 threads x 4 float4 each, the row in
 *    registers), one block per row, gamma and beta through L1/L2 as above;
 *  - cols <= 32768 (128 KB a row): a 1024-thread block per row with 4 float4 a thread in
 *    registers and 4 in shared memory (64 KB, loaded with cp.async: global to shared
 *    memory without occupying registers). Registers alone hold one such row per SM,
 *    and that SM then has nothing in flight while it reduces and writes; with half the
 *    row in shared memory two blocks fit per SM, and one block's loads overlap the other's
 *    reductions and stores. Where two do not fit (less shared memory than an H100), the
 *    row goes into the registers of one 1024-thread block;
 *  - up to 65536 columns on Hopper (sm_90): a thread-block cluster per row. Each block
 *    holds a slice in registers and reduces it to (count, mean, M2); the blocks exchange
 *    these through distributed shared memory after one cluster barrier and merge them
 *    with Chan's formula (below). The grid is persistent (as many clusters as fit, each
 *    looping over rows) so each block loads its slice of gamma and beta into shared
 *    memory once;
 *  - beyond, before Hopper, or cols % 4 != 0 and > 1024: split rows, two kernels:
 *    per-chunk (count, mean, M2), merged per row with Chan's parallel formula, then a
 *    second read of x to write y.
 * Measured (H100, variant harness, 2026-11-26; % of cudaMemcpy D2D, 3037 GB/s; bytes as
 * the lab counts them: x, y, gamma, beta, mean, rstd):
 *   65536 x 1024:  warp per row, persistent grid, gamma/beta in smem 94.3% -> one warp per
 *                  row launched, gamma/beta via __ldg at the stores 97.0% -> gamma/beta in
 *                  registers after the mean, 4 blocks per SM 98.0% (2026-11-27: 96.8% for
 *                  the version before in the same process);
 *   16384 x 4096:  256 x 4 block, persistent, gamma/beta in smem 92.5% -> one block per
 *                  row, gamma/beta via __ldg 98.1% (128 x 8: 97.2%);
 *   2048 x 32768:  1024 x 8 block, row in registers 90.4% -> 1024 x (4 regs + 4 smem)
 *                  94.5% (512 x (4 + 12): 94.3%; clusters of 2-8 blocks: 73-87%).
 * At 32768 columns softmax's same kernel reaches 98.9%: what layernorm adds is gamma and
 * beta, 256 KB of L2 reads for every 256 KB of DRAM traffic (they do not fit in an SM's
 * shared memory next to the row), and one more block reduction.
 *
 * Which path runs where: rows of 16385 to 32768 columns take the registers + shared memory
 * path where the GPU fits two of its blocks per SM (the host asks the occupancy API once:
 * yes on an H100 or an A100, no on sm_75, sm_86, sm_89 and sm_120 with 64-100 KB of
 * shared memory an SM) and the kernels were built for sm_80 or newer, else one 1024-thread
 * block with the row in registers (so compute_75 PTX on an H100 tests that one). sm_90 and
 * newer (Hopper, Blackwell) run the cluster path for rows of 32769 to 65536 columns
 * (__CUDA_ARCH__ >= 900, and the host checks both the compute capability and what the
 * kernels were built for); sm_75 to sm_89, and PTX of an older architecture JIT-compiled on
 * a newer GPU, split those rows (two kernels). The other paths are the same on every GPU
 * from sm_75 on. */
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <cooperative_groups.h>

#include "cudalab_lab.h"

namespace cg = cooperative_groups;

/* Threads an SM can hold (a launch bound asking for more is ignored, with a warning). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define SM_THREADS 1536
#else
#define SM_THREADS 2048
#endif
#define RS_THREADS 1024 /* rows up to 32768 columns: threads, float4 in registers, in smem */
#define RS_REG 4
#define RS_SMEM 4
#define WIDE_THREADS 256 /* one block of a cluster: threads x float4 per thread */
#define WIDE_NV 8
#define MAX_CLUSTER 8
#ifdef CL_NO_CLUSTER /* compile with -DCL_NO_CLUSTER to time the pre-Hopper path */
#define NO_CLUSTER 1
#else
#define NO_CLUSTER 0
#endif
#define WARP_BLOCK 128 /* 4 warps, a row each */
#define SPLIT_THREADS 256
#define SPLIT_PER_THREAD 16
#define SPLIT_CHUNK (SPLIT_THREADS * SPLIT_PER_THREAD)

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* Block-wide sum of one value (a), or of two values at once (a, b); every thread gets the
 * result. Each call site passes its own slots, so only one barrier is needed per call. */
template <int THREADS>
__device__ __forceinline__ float block_sum(float a, float *red)
{
    a = warp_sum(a);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = a;
    __syncthreads();
    a = (threadIdx.x & 31) < THREADS / 32 ? red[threadIdx.x & 31] : 0.f;
    return warp_sum(a);
}

template <int THREADS>
__device__ __forceinline__ void block_sum2(float &a, float &b, float *red_a, float *red_b)
{
    a = warp_sum(a);
    b = warp_sum(b);
    if ((threadIdx.x & 31) == 0)
        red_a[threadIdx.x >> 5] = a, red_b[threadIdx.x >> 5] = b;
    __syncthreads();
    const bool in = (threadIdx.x & 31) < THREADS / 32;
    a = warp_sum(in ? red_a[threadIdx.x & 31] : 0.f);
    b = warp_sum(in ? red_b[threadIdx.x & 31] : 0.f);
}

/* (sum d^2 - (sum d)^2 / n) / n, the corrected two-pass variance, as rstd. */
__device__ __forceinline__ float rstd_from(float sdd, float sd, int n, float eps)
{
    const float var = fmaxf((sdd - sd * sd / (float)n) / (float)n, 0.f);
    return rsqrtf(var + eps);
}

__device__ __forceinline__ float4 norm4(float4 d, float r, float4 g, float4 b)
{
    return make_float4(fmaf(d.x * r, g.x, b.x), fmaf(d.y * r, g.y, b.y), fmaf(d.z * r, g.z, b.z),
                       fmaf(d.w * r, g.w, b.w));
}

/* ---- cols <= 1024: a warp per row, 4 rows per block ---- */

/* A lane's part of a row of n (VEC-wide) items: item k*32 + lane into dst[VEC*k..], zeros past
 * the end. STREAM: x, read once (__ldcs); otherwise gamma or beta, read by every row (__ldg). */
template <int NV, int VEC, bool STREAM>
__device__ __forceinline__ void lane_load(const float *__restrict__ p, int n, int lane, float (&dst)[NV * VEC])
{
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        if constexpr (VEC == 4) {
            const float4 *p4 = reinterpret_cast<const float4 *>(p) + i;
            const float4 t = i < n ? (STREAM ? __ldcs(p4) : __ldg(p4)) : make_float4(0.f, 0.f, 0.f, 0.f);
            dst[4 * k] = t.x, dst[4 * k + 1] = t.y, dst[4 * k + 2] = t.z, dst[4 * k + 3] = t.w;
        } else {
            dst[k] = i < n ? (STREAM ? __ldcs(p + i) : __ldg(p + i)) : 0.f;
        }
    }
}

/* VEC = 4: lane holds float4 k*32 + lane, k < NV; VEC = 1: element k*32 + lane.
 * gamma and beta are loaded into registers right after the mean, so their latency (L1 hits:
 * 8 KB at 1024 columns) passes during the variance's shuffles instead of at the stores: a
 * warp that is storing has nothing in flight, so every cycle added there costs bandwidth.
 * That needs 128 registers a thread at NV = 8 (4 blocks of 128 threads per SM, half the
 * warps of the 64-register version) and is still faster: 65536 x 1024 on an H100, 96.8 ->
 * 98.0% of the copy bandwidth (gamma and beta read at the stores, 8 blocks per SM; the same
 * kernel without gamma and beta at all: 98.7%). */
template <int NV, int VEC>
__global__ void __launch_bounds__(WARP_BLOCK, VEC == 4 ? 4 : 1)
    layernorm_warp(const float *__restrict__ x, const float *__restrict__ gamma,
                   const float *__restrict__ beta, float *__restrict__ y, float *__restrict__ mean,
                   float *__restrict__ rstd, int rows, int cols, float eps)
{
    const int lane = threadIdx.x & 31, n = cols / VEC;
    const int row = blockIdx.x * (WARP_BLOCK / 32) + (threadIdx.x >> 5);
    if (row >= rows)
        return;
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float v[NV * VEC], g[NV * VEC], b[NV * VEC];
    lane_load<NV, VEC, true>(xr, n, lane, v);
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < NV * VEC; j++)
        s += v[j];
    const float mu = warp_sum(s) / (float)cols;
    lane_load<NV, VEC, false>(gamma, n, lane, g);
    lane_load<NV, VEC, false>(beta, n, lane, b);
    float sdd = 0.f, sd = 0.f;
#pragma unroll
    for (int k = 0; k < NV; k++)
        if (k * 32 + lane < n)
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                v[k * VEC + j] -= mu;
                sd += v[k * VEC + j];
                sdd = fmaf(v[k * VEC + j], v[k * VEC + j], sdd);
            }
    const float r = rstd_from(warp_sum(sdd), warp_sum(sd), cols, eps);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        if (i < n) {
            if constexpr (VEC == 4) {
                const int j = 4 * k;
                __stcs(reinterpret_cast<float4 *>(yr) + i,
                       norm4(make_float4(v[j], v[j + 1], v[j + 2], v[j + 3]), r,
                             make_float4(g[j], g[j + 1], g[j + 2], g[j + 3]),
                             make_float4(b[j], b[j + 1], b[j + 2], b[j + 3])));
            } else {
                __stcs(yr + i, fmaf(v[k] * r, g[k], b[k]));
            }
        }
    }
    if (lane == 0)
        mean[row] = mu, rstd[row] = r;
}

/* ---- wide rows: a block, or a cluster of blocks, per row; cols % 4 == 0 ---- */

struct stats { /* Welford / Chan state of a set of values */
    float n, mean, m2;
};

/* Chan et al.: merge the statistics of two disjoint sets. */
__device__ __forceinline__ stats chan_merge(stats a, stats b)
{
    const float n = a.n + b.n;
    if (n == 0.f)
        return a;
    const float delta = b.mean - a.mean, wb = b.n / n;
    return stats{n, fmaf(delta, wb, a.mean), a.m2 + b.m2 + delta * delta * a.n * wb};
}

/* Block `rank` of a cluster owns float4 indices [rank * THREADS * NV, ...) of every row,
 * interleaved by thread. Each block reduces its slice to (count, mean, M2) with the
 * corrected two-pass method on its registers; the blocks of a cluster then read each
 * other's triple through distributed shared memory after one cluster barrier and merge
 * them with Chan's formula, in the same order in every block (same mean and rstd for all).
 * GB_SMEM: the slice of gamma and beta is loaded once per block into shared memory and the
 * grid may be persistent (blocks loop over rows: row = cluster index, step = number of
 * clusters); otherwise gamma and beta are read through L1/L2 when y is written.
 * Register budget: at most 64 registers a thread (1024 / THREADS blocks per SM), which
 * holds NV = 8 float4 without spilling and leaves room for several blocks per SM. */
template <int THREADS, int NV, bool GB_SMEM>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS)
    layernorm_block(const float *__restrict__ x, const float *__restrict__ gamma,
                    const float *__restrict__ beta, float *__restrict__ y, float *__restrict__ mean,
                    float *__restrict__ rstd, int rows, int cols, float eps)
{
    extern __shared__ float4 gb[]; /* GB_SMEM: [NV * THREADS] gamma, then beta */
    __shared__ float red_s[32], red_dd[32], red_d[32];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ stats part[2]; /* this block's statistics, double-buffered by row parity */
    cg::cluster_group cluster = cg::this_cluster();
    const int csize = (int)cluster.num_blocks(), rank = (int)cluster.block_rank();
#else
    const int csize = 1, rank = 0;
#endif
    const int n = cols / 4, first = rank * THREADS * NV, base = first + threadIdx.x;
    const float cnt = 4.f * (float)min(max(n - first, 0), THREADS * NV); /* values in the slice */
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    if constexpr (GB_SMEM) {
        /* Each thread later reads back exactly the slots it writes here: no barrier. */
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = base + k * THREADS;
            const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
            gb[k * THREADS + threadIdx.x] = i < n ? __ldg(g4 + i) : z;
            gb[(NV + k) * THREADS + threadIdx.x] = i < n ? __ldg(b4 + i) : z;
        }
    }

    int parity = 0;
    for (int row = blockIdx.x / csize; row < rows; row += gridDim.x / csize, parity ^= 1) {
        const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
        float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
        float4 v[NV];
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = base + k * THREADS;
            v[k] = i < n ? __ldcs(xr + i) : make_float4(0.f, 0.f, 0.f, 0.f);
            s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
        s = block_sum<THREADS>(s, red_s);
        const float mu = cnt > 0.f ? s / cnt : 0.f; /* this slice's mean */
        float sdd = 0.f, sd = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            if (base + k * THREADS < n) { /* v becomes x - mu */
                v[k].x -= mu, v[k].y -= mu, v[k].z -= mu, v[k].w -= mu;
                sd += (v[k].x + v[k].y) + (v[k].z + v[k].w);
                sdd = fmaf(v[k].x, v[k].x, fmaf(v[k].y, v[k].y, fmaf(v[k].z, v[k].z, fmaf(v[k].w, v[k].w, sdd))));
            }
        }
        block_sum2<THREADS>(sdd, sd, red_dd, red_d);
        stats st = cnt > 0.f ? stats{cnt, mu + sd / cnt, fmaxf(sdd - sd * sd / cnt, 0.f)} : stats{0.f, 0.f, 0.f};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (csize > 1) {
            if (threadIdx.x == 0)
                part[parity] = st;
            cluster.sync(); /* every block's statistics are in its shared memory */
            st = stats{0.f, 0.f, 0.f};
            for (int r = 0; r < csize; r++)
                st = chan_merge(st, *cluster.map_shared_rank(&part[parity], r));
        }
#endif
        const float r = rsqrtf(st.m2 / (float)cols + eps);
        const float shift = st.mean - mu; /* v holds x - mu; x - mean = v - shift */
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = base + k * THREADS;
            if (i < n) {
                const float4 d = make_float4(v[k].x - shift, v[k].y - shift, v[k].z - shift, v[k].w - shift);
                if constexpr (GB_SMEM)
                    __stcs(yr + i, norm4(d, r, gb[k * THREADS + threadIdx.x], gb[(NV + k) * THREADS + threadIdx.x]));
                else
                    __stcs(yr + i, norm4(d, r, __ldg(g4 + i), __ldg(b4 + i)));
            }
        }
        if (rank == 0 && threadIdx.x == 0)
            mean[row] = st.mean, rstd[row] = r;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize > 1)
        cluster.sync(); /* the others may still read our part[] */
#endif
}

/* ---- rows up to T * (R + S) float4: a block per row, registers + shared memory ---- */

/* Copy 16 bytes global -> shared without a register (sm_80+: cp.async, bypassing L1);
 * before sm_80 (and in PTX for compute_75) an ordinary load and store. */
__device__ __forceinline__ void copy16_async(float4 *smem, const float4 *gmem)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
#else
    *smem = __ldcs(gmem);
#endif
}

/* Wait for this thread's copies (it only ever reads the slots it wrote itself). */
__device__ __forceinline__ void copy16_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_all;" ::: "memory");
#endif
}

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float4 sub4(float4 v, float m) { return make_float4(v.x - m, v.y - m, v.z - m, v.w - m); }
__device__ __forceinline__ float sq4(float4 d, float acc)
{
    return fmaf(d.x, d.x, fmaf(d.y, d.y, fmaf(d.z, d.z, fmaf(d.w, d.w, acc))));
}

/* Thread t holds float4 k*T + t (k < R) of the row in registers and float4 (R + k)*T + t
 * (k < S) in its shared slot k*T + t; the shared part is requested first, so all R + S
 * loads of a thread are in flight together. Corrected two-pass statistics as above; two
 * blocks per SM (32 registers a thread at T = 1024) where the SM holds 2 T threads. */
template <int T, int R, int S>
__global__ void __launch_bounds__(T, 2 * T <= SM_THREADS ? 2 : 1)
    layernorm_rs(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                 float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int cols, float eps)
{
    extern __shared__ float4 srow[]; /* S * T float4 */
    __shared__ float red_s[32], red_dd[32], red_d[32];
    const int row = blockIdx.x, n = cols / 4, t = threadIdx.x;
    const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
    float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int k = 0; k < S; k++) {
        const int i = (R + k) * T + t;
        if (i < n)
            copy16_async(&srow[k * T + t], xr + i);
        else
            srow[k * T + t] = z;
    }
    float4 v[R];
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < R; k++) {
        const int i = k * T + t;
        v[k] = i < n ? __ldcs(xr + i) : z;
        s += sum4(v[k]);
    }
    copy16_wait_all();
#pragma unroll
    for (int k = 0; k < S; k++)
        s += sum4(srow[k * T + t]);
    const float mu = block_sum<T>(s, red_s) / (float)cols;
    float sdd = 0.f, sd = 0.f; /* padding (zeros) is skipped: it is not x - mu */
#pragma unroll
    for (int k = 0; k < R; k++)
        if (k * T + t < n) {
            const float4 d = sub4(v[k], mu);
            sd += sum4(d), sdd = sq4(d, sdd);
        }
#pragma unroll
    for (int k = 0; k < S; k++)
        if ((R + k) * T + t < n) {
            const float4 d = sub4(srow[k * T + t], mu);
            sd += sum4(d), sdd = sq4(d, sdd);
        }
    block_sum2<T>(sdd, sd, red_dd, red_d);
    const float r = rstd_from(sdd, sd, cols, eps), m = mu + sd / (float)cols;
#pragma unroll
    for (int k = 0; k < R; k++) {
        const int i = k * T + t;
        if (i < n)
            __stcs(yr + i, norm4(sub4(v[k], m), r, __ldg(g4 + i), __ldg(b4 + i)));
    }
#pragma unroll
    for (int k = 0; k < S; k++) {
        const int i = (R + k) * T + t;
        if (i < n)
            __stcs(yr + i, norm4(sub4(srow[k * T + t], m), r, __ldg(g4 + i), __ldg(b4 + i)));
    }
    if (t == 0)
        mean[row] = m, rstd[row] = r;
}

/* ---- split rows: any width, any alignment ---- */

__device__ __forceinline__ stats warp_merge(stats v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = chan_merge(v, stats{__shfl_xor_sync(0xffffffffu, v.n, o),
                                __shfl_xor_sync(0xffffffffu, v.mean, o),
                                __shfl_xor_sync(0xffffffffu, v.m2, o)});
    return v;
}

/* Pass 1: block b computes (count, mean, M2) of chunk (b % chunks) of row (b / chunks),
 * two-pass over the chunk held in registers. */
__global__ void __launch_bounds__(SPLIT_THREADS)
    layernorm_split_stats(const float *__restrict__ x, stats *__restrict__ part, int cols, int chunks)
{
    __shared__ float red_s[32], red_dd[32], red_d[32];
    const size_t row = blockIdx.x / chunks;
    const int begin = (int)(blockIdx.x % chunks) * SPLIT_CHUNK;
    const int cnt = min(cols - begin, SPLIT_CHUNK);
    const float *xr = x + row * cols + begin;
    float v[SPLIT_PER_THREAD], s = 0.f;
#pragma unroll
    for (int k = 0; k < SPLIT_PER_THREAD; k++) {
        const int i = k * SPLIT_THREADS + threadIdx.x;
        v[k] = i < cnt ? __ldg(xr + i) : 0.f;
        s += v[k];
    }
    const float mu = block_sum<SPLIT_THREADS>(s, red_s) / (float)cnt;
    float sdd = 0.f, sd = 0.f;
#pragma unroll
    for (int k = 0; k < SPLIT_PER_THREAD; k++)
        if (k * SPLIT_THREADS + threadIdx.x < cnt) {
            const float d = v[k] - mu;
            sd += d;
            sdd = fmaf(d, d, sdd);
        }
    block_sum2<SPLIT_THREADS>(sdd, sd, red_dd, red_d);
    if (threadIdx.x == 0) /* corrected: the chunk mean's rounding error is taken out */
        part[blockIdx.x] = stats{(float)cnt, mu + sd / (float)cnt, fmaxf(sdd - sd * sd / (float)cnt, 0.f)};
}

/* Pass 2: merge the row's chunk statistics, write this block's chunk of y (and, for
 * chunk 0, mean and rstd). */
__global__ void __launch_bounds__(SPLIT_THREADS)
    layernorm_split_write(const float *__restrict__ x, const float *__restrict__ gamma,
                          const float *__restrict__ beta, const stats *__restrict__ part,
                          float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd,
                          int cols, int chunks, float eps)
{
    __shared__ stats red[32];
    const size_t row = blockIdx.x / chunks;
    const int chunk = (int)(blockIdx.x % chunks), begin = chunk * SPLIT_CHUNK;
    const int end = min(cols, begin + SPLIT_CHUNK);
    stats st{0.f, 0.f, 0.f};
    for (int c = threadIdx.x; c < chunks; c += SPLIT_THREADS)
        st = chan_merge(st, part[row * chunks + c]);
    st = warp_merge(st);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = st;
    __syncthreads();
    st = warp_merge((threadIdx.x & 31) < SPLIT_THREADS / 32 ? red[threadIdx.x & 31] : stats{0.f, 0.f, 0.f});
    const float mu = st.mean, r = rsqrtf(st.m2 / (float)cols + eps);
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    for (int i = begin + threadIdx.x; i < end; i += SPLIT_THREADS)
        __stcs(yr + i, fmaf((__ldcs(xr + i) - mu) * r, __ldg(gamma + i), __ldg(beta + i)));
    if (chunk == 0 && threadIdx.x == 0)
        mean[row] = mu, rstd[row] = r;
}

/* ---- dispatch ---- */

static int aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

struct device_info {
    int sms, clusters; /* clusters: the GPU has them and these kernels were built with them */
};

__global__ void arch_probe(void) {}

static device_info device(void)
{
    static device_info info = {0, -1};
    if (info.clusters < 0) {
        int dev = 0, major = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&info.sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
            info.sms = 1, major = 0;
        /* what the kernels were built for counts, not only the GPU: PTX for compute_75 runs
         * on an H100 too, and there the cluster code is compiled out (rows left unmerged) */
        cudaFuncAttributes a;
        info.clusters = major >= 9 && cudaFuncGetAttributes(&a, arch_probe) == cudaSuccess && a.ptxVersion >= 90;
    }
    return info;
}

/* How many blocks (csize 1) or clusters (csize > 1) of fn fit on the GPU at once. The
 * answer is cached per (fn, shared memory, cluster size): occupancy queries cost
 * microseconds of host time, which would show up in the timing of every call. */
static int resident(const void *fn, int threads, size_t smem, int csize)
{
    static struct { const void *fn; size_t smem; int csize, count; } cache[32];
    static int used = 0;
    for (int i = 0; i < used; i++)
        if (cache[i].fn == fn && cache[i].smem == smem && cache[i].csize == csize)
            return cache[i].count;
    int count = 0;
    if (smem > 48 * 1024)
        cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (csize == 1) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, fn, threads, smem) == cudaSuccess)
            count *= device().sms;
    } else {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)csize;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3((unsigned)csize * 1024);
        cfg.blockDim = dim3(threads);
        cfg.dynamicSmemBytes = smem;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        if (cudaOccupancyMaxActiveClusters(&count, fn, &cfg) != cudaSuccess)
            count = 0;
    }
    if (count < 1)
        count = 1;
    if (used < 32)
        cache[used].fn = fn, cache[used].smem = smem, cache[used].csize = csize,
        cache[used++].count = count;
    return count;
}

template <int NV, int VEC>
static cudaError_t launch_warp(const float *x, const float *g, const float *b, float *y, float *mean,
                               float *rstd, int rows, int cols, float eps, cudaStream_t stream)
{
    const int per = WARP_BLOCK / 32; /* rows per block */
    layernorm_warp<NV, VEC><<<(rows + per - 1) / per, WARP_BLOCK, 0, stream>>>(x, g, b, y, mean, rstd, rows,
                                                                                cols, eps);
    return cudaGetLastError();
}

template <int THREADS, int NV, bool GB_SMEM>
static cudaError_t launch_block(const float *x, const float *g, const float *b, float *y, float *mean,
                                float *rstd, int rows, int cols, float eps, int csize, int rows_each,
                                cudaStream_t stream)
{
    /* rows_each: -1 persistent (as many blocks or clusters as fit), K > 0 K rows each */
    const void *fn = (const void *)layernorm_block<THREADS, NV, GB_SMEM>;
    const size_t smem = GB_SMEM ? 2 * (size_t)THREADS * NV * sizeof(float4) : 0;
    const int persistent = rows_each < 0;
    int clusters = persistent ? resident(fn, THREADS, smem, csize) : (rows + rows_each - 1) / rows_each;
    if (clusters > rows)
        clusters = rows;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)clusters * (unsigned)csize);
    cfg.blockDim = dim3(THREADS);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    if (csize > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)csize;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    if (!persistent && smem > 48 * 1024)
        resident(fn, THREADS, smem, csize); /* sets the shared-memory limit once */
    return cudaLaunchKernelEx(&cfg, layernorm_block<THREADS, NV, GB_SMEM>, x, g, b, y, mean, rstd,
                              rows, cols, eps);
}

/* The registers + shared memory path pays only if two blocks fit on an SM, and is taken
 * only where it was built for sm_80 or newer (cp.async): PTX for compute_75, JIT-compiled
 * on an H100 by the GPU suite, then runs the one-block path that a GPU with less shared
 * memory runs, so both are tested on one GPU. Asked once. */
template <int T, int R, int S> static int rs_two_per_sm(void)
{
    static int ok = -1;
    if (ok < 0) {
        const int smem = S * T * (int)sizeof(float4);
        int per_sm = 0;
        cudaFuncAttributes a;
        ok = cudaFuncGetAttributes(&a, layernorm_rs<T, R, S>) == cudaSuccess && a.ptxVersion >= 80 &&
             cudaFuncSetAttribute(layernorm_rs<T, R, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) ==
                     cudaSuccess &&
             cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, layernorm_rs<T, R, S>, T, smem) == cudaSuccess &&
             per_sm >= 2;
        cudaGetLastError(); /* a refused attribute is an answer, not an error to report later */
    }
    return ok;
}

template <int T, int R, int S>
static cudaError_t launch_rs(const float *x, const float *g, const float *b, float *y, float *mean, float *rstd,
                             int rows, int cols, float eps, cudaStream_t stream)
{
    layernorm_rs<T, R, S><<<rows, T, S * T * sizeof(float4), stream>>>(x, g, b, y, mean, rstd, cols, eps);
    return cudaGetLastError();
}

static cudaError_t launch_split(const float *x, const float *g, const float *b, float *y, float *mean,
                                float *rstd, int rows, int cols, float eps, cudaStream_t stream)
{
    const int chunks = (cols + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
    const size_t blocks = (size_t)rows * chunks;
    stats *part = (stats *)cudalab_scratch(blocks * sizeof(stats));
    if (!part) {
        fprintf(stderr, "layernorm: no scratch memory for %zu partials\n", blocks);
        return cudaSuccess;
    }
    layernorm_split_stats<<<(unsigned)blocks, SPLIT_THREADS, 0, stream>>>(x, part, cols, chunks);
    layernorm_split_write<<<(unsigned)blocks, SPLIT_THREADS, 0, stream>>>(x, g, b, part, y, mean,
                                                                          rstd, cols, chunks, eps);
    return cudaGetLastError();
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                          float *rstd, int rows, int cols, float eps, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    const int vec = cols % 4 == 0 && aligned16(x) && aligned16(y) && aligned16(gamma) && aligned16(beta);
    const int n4 = cols / 4;
    const int slice = WIDE_THREADS * WIDE_NV; /* float4 per cluster block */
    cudaError_t e;
#define ARGS x, gamma, beta, y, mean, rstd, rows, cols, eps
    if (vec && n4 <= 32)
        e = launch_warp<1, 4>(ARGS, stream);
    else if (vec && n4 <= 64)
        e = launch_warp<2, 4>(ARGS, stream);
    else if (vec && n4 <= 128)
        e = launch_warp<4, 4>(ARGS, stream);
    else if (vec && n4 <= 256)
        e = launch_warp<8, 4>(ARGS, stream);
    else if (!vec && cols <= 32)
        e = launch_warp<1, 1>(ARGS, stream);
    else if (!vec && cols <= 128)
        e = launch_warp<4, 1>(ARGS, stream);
    else if (!vec && cols <= 1024)
        e = launch_warp<32, 1>(ARGS, stream);
    else if (vec && n4 <= 256 * 4) /* one block per row, gamma and beta through L1/L2 */
        e = launch_block<256, 4, false>(ARGS, 1, 1, stream);
    else if (vec && n4 <= 512 * 4)
        e = launch_block<512, 4, false>(ARGS, 1, 1, stream);
    else if (vec && n4 <= 1024 * 4)
        e = launch_block<1024, 4, false>(ARGS, 1, 1, stream);
    else if (vec && n4 <= RS_THREADS * (RS_REG + RS_SMEM) && rs_two_per_sm<RS_THREADS, RS_REG, RS_SMEM>())
        e = launch_rs<RS_THREADS, RS_REG, RS_SMEM>(ARGS, stream);
    else if (vec && n4 <= 1024 * 8) /* GPUs with less shared memory: the row in registers */
        e = launch_block<1024, 8, false>(ARGS, 1, 1, stream);
    else if (vec && device().clusters && !NO_CLUSTER && n4 <= MAX_CLUSTER * slice)
        e = launch_block<WIDE_THREADS, WIDE_NV, true>(ARGS, (n4 + slice - 1) / slice, -1, stream);
    else
        e = launch_split(ARGS, stream);
#undef ARGS
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "layernorm: launch failed: %s\n", cudaGetErrorString(e));
}
