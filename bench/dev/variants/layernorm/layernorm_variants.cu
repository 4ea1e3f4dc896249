// layernorm_variants.cu: the layernorm reference next to candidate kernels, issue 17 (>= 97%
// of copy at 1024 / 4096 / 32768 columns). One process: cudaMemcpy D2D (the copy ceiling, 1 GiB
// as cudalab's probe, and 256 MiB as the lab's buffers), the reference's entry point, and
// each variant at every bench shape of labs/layernorm/lab.yaml, each output (y, mean, rstd)
// checked against an fp64 two-pass CPU LayerNorm with lab.yaml's tolerances (errors printed
// as fractions of the tolerance: <= 1 passes). Timed with bench/peers/cuda_timing.cuh (L2
// flushed before each run, median of 30). Bytes as grader/labs/layernorm.c counts them:
// (2 rows*cols + 2 cols + 2 rows) * 4 (x, y, gamma, beta, mean, rstd).
//
// First, before any timing, the reference (and each variant at its width) runs lab.yaml's
// correctness cases plus a few more (odd row counts at the bench widths, every width class of
// the reference), each printed with its error; WRONG is printed loudly and the exit status is 1.
//
// What the reference does at the bench widths (since 2026-11-26, reference/layernorm.cu):
//   1024:  one warp per row launched (4 per block), gamma/beta into registers after the mean
//          (since 2026-11-27, round 5; before, via __ldg at the store, as "warp/ldg k=1");
//   4096:  one 256 x 4-float4 block per row launched, gamma/beta via __ldg;
//   32768: layernorm_rs<1024, 4, 4>: 1024 threads, 4 float4 a thread in registers + 4 in
//          shared memory (cp.async), two blocks per SM; gamma/beta via __ldg (94.5%).
// Softmax's rs 512 4+12 reaches 98.9% at 32768; layernorm's same kernel 94.3%. What differs:
// gamma and beta (256 KB of L2 reads per row, next to 128 KB read + 128 KB written; they do
// not fit in shared memory next to the row), and one more block reduction (the variance: two
// barriers in total, like softmax's max and sum, so the reductions are not the difference).
// LN_ONLY=text runs only the variants whose name contains it (the reference always runs);
// LN_SENTINEL=1 keeps a one-thread kernel spinning on a second stream through each timed call;
// LN_VMM=1 allocates the timed buffers as the judge does (cuMemCreate/cuMemMap).
// Variants:
//   NEW early ...   ln_warp_early: one warp per row launched, gamma (and beta) loaded into
//                   registers with x, fewer blocks per SM for the registers (round 5,
//                   2026-11-27: 97.9% against 96.8% for the reference of then; loading them
//                   after the mean instead, 98.0%, is now the reference);
//   NEW rs early g/b: T R+S, first E   ln_rs_early: layernorm_rs with the gamma/beta of its
//                   first E chunks loaded into registers after the mean (round 5: 512 4+12
//                   first 2 94.9 / 95.2% against the reference's 94.3 / 94.6% in two runs;
//                   first 3 or 4, 2+14, 256 8+24: slower. Not taken: +0.6 points, and two
//                   blocks of 96 KB do not fit an A100's SM, which keeps rs 1024 4+4);
//   warp/ldg ...    a warp per row, gamma/beta via __ldg; k=K: K rows per warp, persistent:
//                   as many blocks as fit;
//   block TxNV ...  layernorm_block (a cluster of C of them per row for C > 1): "np" one
//                   block (cluster) per row, "persistent" as many as fit looping over rows;
//                   gb=smem / gb=ldg where gamma and beta come from; "old ref" the paths the
//                   reference took before;
//   rs T R+S        layernorm_rs in other shapes;
//   NEW rs ... stream next row k=K   K rows per block back to back; each thread refills its
//                   shared slot with the next row's float4 (cp.async) right after storing it,
//                   so the next row's loads overlap this row's stores and g/b reads;
//   NEW pair TxNV   two rows per block (one in registers, one in 128 KB of shared memory),
//                   one block per SM, normalised together: each gamma/beta float4 read once
//                   for two rows (half the L2 traffic of gamma/beta).
//   NEW cpipe2 C x TxNV PP  a persistent cluster of C blocks, each owning one column slice of
//                   every row its cluster takes, gamma/beta of the slice loaded once (registers),
//                   P rows of x in flight in registers, the slices' statistics exchanged with
//                   st.async into each block's shared memory (mbarrier completion, no cluster
//                   barrier per row), the next row's statistics sent before waiting for
//                   this row's; "g/b smem": the slice of gamma/beta in shared memory instead
//                   (fewer registers, more blocks per SM). Round 4 (2026-11-26, H100): 59-93%,
//                   the best 92.8% (8 x 128x8, P2, g/b in shared memory, 4 blocks per SM)
//                   against the reference's 94.5% in the same process: no gamma/beta traffic,
//                   but a cluster-wide exchange per row, and 62 resident clusters take 33 or
//                   34 of the 2048 rows each (3% lost to the last rows).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda.h>

#include "bench/peers/cuda_timing.cuh"
#include "reference/layernorm.cu"

// The runner exports this; the harness stands in for it.
extern "C" void *cudalab_scratch(size_t bytes)
{
    static void *p = nullptr;
    static size_t have = 0;
    if (bytes > have) {
        if (p)
            cudaFree(p);
        p = nullptr;
        have = 0;
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            return nullptr;
        have = bytes;
    }
    return p;
}

// ---- candidate: warp per row, gamma/beta through L1 (the softmax warp kernel's shape) ----

template <int NV, int MINB> /* MINB: blocks per SM asked of ptxas (64 registers at 8) */
__global__ void __launch_bounds__(WARP_BLOCK, MINB)
    ln_warp_ldg(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols,
                float eps)
{
    const int lane = threadIdx.x & 31, n = cols / 4;
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    for (int row = blockIdx.x * (WARP_BLOCK / 32) + (threadIdx.x >> 5); row < rows;
         row += gridDim.x * (WARP_BLOCK / 32)) {
        const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
        float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
        float4 v[NV];
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = k * 32 + lane;
            v[k] = i < n ? __ldcs(xr + i) : make_float4(0.f, 0.f, 0.f, 0.f);
            s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
        const float mu = warp_sum(s) / (float)cols;
        float sdd = 0.f, sd = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++)
            if (k * 32 + lane < n) {
                v[k].x -= mu, v[k].y -= mu, v[k].z -= mu, v[k].w -= mu;
                sd += (v[k].x + v[k].y) + (v[k].z + v[k].w);
                sdd = fmaf(v[k].x, v[k].x, fmaf(v[k].y, v[k].y, fmaf(v[k].z, v[k].z, fmaf(v[k].w, v[k].w, sdd))));
            }
        const float r = rstd_from(warp_sum(sdd), warp_sum(sd), cols, eps);
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = k * 32 + lane;
            if (i < n)
                __stcs(yr + i, norm4(v[k], r, __ldg(g4 + i), __ldg(b4 + i)));
        }
        if (lane == 0)
            mean[row] = mu, rstd[row] = r;
    }
}

// PR rows per warp at once (all their loads first), each gamma/beta float4 read once for the
// PR rows when they are written: the gamma/beta L1 traffic per row divided by PR. GB = false:
// a diagnostic with gamma 1 and beta 0 (no gamma/beta reads; wrong on purpose).
template <int NV, int PR, bool GB = true>
__global__ void __launch_bounds__(WARP_BLOCK)
    ln_warp_rows(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                 float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols,
                 float eps)
{
    const int lane = threadIdx.x & 31, n = cols / 4;
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const int row0 = (blockIdx.x * (WARP_BLOCK / 32) + (threadIdx.x >> 5)) * PR;
    float4 v[PR][NV];
    float mu[PR], r[PR];
#pragma unroll
    for (int p = 0; p < PR; p++) {
        const int row = min(row0 + p, rows - 1);
        const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = k * 32 + lane;
            v[p][k] = i < n ? __ldcs(xr + i) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }
#pragma unroll
    for (int p = 0; p < PR; p++) {
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++)
            s += (v[p][k].x + v[p][k].y) + (v[p][k].z + v[p][k].w);
        mu[p] = warp_sum(s) / (float)cols;
        float sdd = 0.f, sd = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++)
            if (k * 32 + lane < n) {
                float4 &w = v[p][k];
                w.x -= mu[p], w.y -= mu[p], w.z -= mu[p], w.w -= mu[p];
                sd += (w.x + w.y) + (w.z + w.w);
                sdd = fmaf(w.x, w.x, fmaf(w.y, w.y, fmaf(w.z, w.z, fmaf(w.w, w.w, sdd))));
            }
        r[p] = rstd_from(warp_sum(sdd), warp_sum(sd), cols, eps);
    }
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        if (i >= n)
            continue;
        const float4 g = GB ? __ldg(g4 + i) : make_float4(1.f, 1.f, 1.f, 1.f);
        const float4 b = GB ? __ldg(b4 + i) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int p = 0; p < PR; p++)
            if (row0 + p < rows)
                __stcs(reinterpret_cast<float4 *>(y + (size_t)(row0 + p) * cols) + i, norm4(v[p][k], r[p], g, b));
    }
    if (lane < PR && row0 + lane < rows) {
#pragma unroll
        for (int p = 0; p < PR; p++)
            if (p == lane)
                mean[row0 + p] = mu[p], rstd[row0 + p] = r[p];
    }
}

// One row per warp launched (the reference's shape), gamma and beta loaded earlier than at the
// store, so their L1 latency overlaps the x loads or the reductions instead of lengthening
// the store phase (while a warp stores it has nothing in flight). EARLY = 1: gamma issued
// with x, beta at the store; 2: both with x (both after the mean is the reference's
// layernorm_warp now). Costs registers: MINB blocks of 4 warps an SM asked of ptxas.
template <int EARLY, int MINB>
__global__ void __launch_bounds__(WARP_BLOCK, MINB)
    ln_warp_early(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                  float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols,
                  float eps)
{
    static_assert(EARLY == 1 || EARLY == 2, "EARLY: 1 or 2");
    constexpr int NV = 8;
    const int lane = threadIdx.x & 31, n = cols / 4;
    const int row = blockIdx.x * (WARP_BLOCK / 32) + (threadIdx.x >> 5);
    if (row >= rows)
        return;
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
    float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
    float4 v[NV], g[NV], b[NV];
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        v[k] = i < n ? __ldcs(xr + i) : make_float4(0.f, 0.f, 0.f, 0.f);
    }
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = min(k * 32 + lane, n - 1);
        g[k] = __ldg(g4 + i);
        if (EARLY == 2)
            b[k] = __ldg(b4 + i);
    }
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < NV; k++)
        s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    const float mu = warp_sum(s) / (float)cols;
    float sdd = 0.f, sd = 0.f;
#pragma unroll
    for (int k = 0; k < NV; k++)
        if (k * 32 + lane < n) {
            v[k].x -= mu, v[k].y -= mu, v[k].z -= mu, v[k].w -= mu;
            sd += (v[k].x + v[k].y) + (v[k].z + v[k].w);
            sdd = fmaf(v[k].x, v[k].x, fmaf(v[k].y, v[k].y, fmaf(v[k].z, v[k].z, fmaf(v[k].w, v[k].w, sdd))));
        }
    const float r = rstd_from(warp_sum(sdd), warp_sum(sd), cols, eps);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        if (i < n)
            __stcs(yr + i, norm4(v[k], r, g[k], EARLY == 1 ? __ldg(b4 + i) : b[k]));
    }
    if (lane == 0)
        mean[row] = mu, rstd[row] = r;
}

// ---- candidates at 32768: the reference's layernorm_rs (registers + shared memory) and ----
// ---- two ideas against the gamma/beta cost (256 KB of L2 reads per row) ----

// layernorm_rs with the gamma/beta of its first E float4 chunks (of R + S) loaded into
// registers right after the mean, so their L2 latency passes during the variance's block
// reduction instead of at the start of the stores (the lesson of 1024 columns, where the
// same move took the warp kernel from 96.8 to 98.0%). MINB blocks per SM for the registers.
template <int T, int R, int S, int E, int MINB>
__global__ void __launch_bounds__(T, MINB)
    ln_rs_early(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int cols, float eps)
{
    extern __shared__ float4 srow_e[];
    __shared__ float red_s[32], red_dd[32], red_d[32];
    const int row = blockIdx.x, n = cols / 4, t = threadIdx.x;
    const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
    float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
    auto idx = [&](int k) { return k * T + t; }; // chunk k of R + S: float4 k*T + t of the row
#pragma unroll
    for (int k = 0; k < S; k++) {
        const int i = idx(R + k);
        if (i < n)
            copy16_async(&srow_e[k * T + t], xr + i);
        else
            srow_e[k * T + t] = z;
    }
    float4 v[R], ge[E > 0 ? E : 1], be[E > 0 ? E : 1];
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < R; k++) {
        const int i = idx(k);
        v[k] = i < n ? __ldcs(xr + i) : z;
        s += sum4(v[k]);
    }
    copy16_wait_all();
#pragma unroll
    for (int k = 0; k < S; k++)
        s += sum4(srow_e[k * T + t]);
    const float mu = block_sum<T>(s, red_s) / (float)cols;
#pragma unroll
    for (int k = 0; k < E; k++) {
        const int i = min(idx(k), n - 1);
        ge[k] = __ldg(g4 + i), be[k] = __ldg(b4 + i);
    }
    float sdd = 0.f, sd = 0.f;
#pragma unroll
    for (int k = 0; k < R; k++)
        if (idx(k) < n) {
            const float4 d = sub4(v[k], mu);
            sd += sum4(d), sdd = sq4(d, sdd);
        }
#pragma unroll
    for (int k = 0; k < S; k++)
        if (idx(R + k) < n) {
            const float4 d = sub4(srow_e[k * T + t], mu);
            sd += sum4(d), sdd = sq4(d, sdd);
        }
    block_sum2<T>(sdd, sd, red_dd, red_d);
    const float r = rstd_from(sdd, sd, cols, eps), m = mu + sd / (float)cols;
#pragma unroll
    for (int k = 0; k < R + S; k++) {
        const int i = idx(k);
        if (i < n) {
            const float4 xv = k < R ? v[k < R ? k : 0] : srow_e[(k - R) * T + t];
            const float4 g = k < E ? ge[k < E ? k : 0] : __ldg(g4 + i);
            const float4 b = k < E ? be[k < E ? k : 0] : __ldg(b4 + i);
            __stcs(yr + i, norm4(sub4(xv, m), r, g, b));
        }
    }
    if (t == 0)
        mean[row] = m, rstd[row] = r;
}

// K rows per block, back to back: as soon as a thread has written slot k of row r (its own
// shared slot), it requests slot k of row r + 1 with cp.async, so the next row's shared part
// streams in during this row's stores (no extra shared memory, no barrier). Tests whether
// the gap to softmax is bytes in flight around the reductions/stores.
template <int T, int R, int S, int K>
__global__ void __launch_bounds__(T, 2 * T <= SM_THREADS ? 2 : 1)
    ln_rs_stream(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                 float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols,
                 float eps)
{
    extern __shared__ float4 srow[];
    __shared__ float red_s[32], red_dd[32], red_d[32];
    const int n = cols / 4, t = threadIdx.x, row0 = blockIdx.x * K;
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
    {
        const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row0 * cols);
#pragma unroll
        for (int k = 0; k < S; k++) {
            const int i = (R + k) * T + t;
            if (i < n)
                copy16_async(&srow[k * T + t], xr + i);
            else
                srow[k * T + t] = z; // padding: the same for every row
        }
    }
    for (int j = 0; j < K; j++) {
        const int row = row0 + j;
        if (row >= rows)
            break;
        const bool next = j + 1 < K && row + 1 < rows;
        const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
        const float4 *xn = xr + n; // the next row
        float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
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
        float sdd = 0.f, sd = 0.f;
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
        for (int k = 0; k < S; k++) { // the shared part first: its slots are refilled at once
            const int i = (R + k) * T + t;
            if (i < n) {
                __stcs(yr + i, norm4(sub4(srow[k * T + t], m), r, __ldg(g4 + i), __ldg(b4 + i)));
                if (next)
                    copy16_async(&srow[k * T + t], xn + i);
            }
        }
#pragma unroll
        for (int k = 0; k < R; k++) {
            const int i = k * T + t;
            if (i < n)
                __stcs(yr + i, norm4(sub4(v[k], m), r, __ldg(g4 + i), __ldg(b4 + i)));
        }
        if (t == 0)
            mean[row] = m, rstd[row] = r;
    }
}

// ---- DIAG: what gamma/beta cost the 32768-wide path (outputs wrong on purpose) ----
// layernorm_rs with gamma/beta read from 4 KB (MODE 1: index i % 256, L1-resident), not
// read at all (MODE 2: gamma 1, beta 0), or beta read from gamma's address (MODE 3: the same
// loads and latency as the reference, half its gamma/beta requests to L2). Not candidates:
// they say how much of the gap to softmax's 98.9% is the 256 KB of gamma/beta L2 reads per
// row (1024 4+4 on an H100, 2026-11-27: L1-resident 94.5%, MODE 3 95.2%, none 96.4%, the
// reference 94.5%: in that shape the loads cost, not L2).
template <int T, int R, int S, int MODE>
__global__ void __launch_bounds__(T, 2 * T <= SM_THREADS ? 2 : 1)
    ln_rs_diag(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
               float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols, float eps)
{
    (void)rows;
    extern __shared__ float4 srow[];
    __shared__ float red_s[32], red_dd[32], red_d[32];
    const int row = blockIdx.x, n = cols / 4, t = threadIdx.x;
    const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row * cols);
    float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f), one = make_float4(1.f, 1.f, 1.f, 1.f);
    auto gb = [&](int i, bool beta_) -> float4 {
        if (MODE == 2)
            return beta_ ? z : one;
        if (MODE == 3) // beta read from gamma's address: as many loads, half the L2 requests
            return __ldg(g4 + i);
        return __ldg((beta_ ? b4 : g4) + (i & 255));
    };
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
    float sdd = 0.f, sd = 0.f;
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
            __stcs(yr + i, norm4(sub4(v[k], m), r, gb(i, false), gb(i, true)));
    }
#pragma unroll
    for (int k = 0; k < S; k++) {
        const int i = (R + k) * T + t;
        if (i < n)
            __stcs(yr + i, norm4(sub4(srow[k * T + t], m), r, gb(i, false), gb(i, true)));
    }
    if (t == 0)
        mean[row] = m, rstd[row] = r;
}

// ---- NEW cluster pipe: gamma/beta held per block, rows in flight, statistics by st.async ----
// A cluster of C blocks, persistent; block `rank` owns float4 columns [rank*T*NV, +T*NV) of
// every row the cluster takes, and holds that slice of gamma and beta (registers, or shared
// memory with GBS) for the whole kernel: no gamma/beta traffic per row (the reference reads
// 256 KB from L2 per row of 32768). Each thread keeps P rows of its NV float4 in registers, so
// P rows of x are in flight while a row is reduced and written. Per row a block reduces its
// slice to (n, mean, M2) (two block reductions, corrected two-pass), then thread k sends it to
// block k of the cluster with st.async (a remote shared-memory store that completes on the
// receiver's mbarrier): no cluster barrier per row, so no fence that would wait for the loads
// in flight. Every block merges the C slices in the same order (Chan), so all agree on mean
// and rstd. The statistics of row j+1 are reduced and sent before the block waits for row j's,
// so one row's DSMEM round trip overlaps the next row's reductions (4 slots: a fast block may
// be up to three rows ahead in sending). A first version that waited for row j's statistics
// before reducing row j+1 measured 59-86% (same shapes, H100, round 4).
__device__ __forceinline__ uint32_t cp_smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }
template <int T, int NV, int P, int C, int MINB, bool GBS = false>
__global__ void __launch_bounds__(T, MINB)
    ln_cpipe2(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
              float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols, float eps)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int S = 4;
    __shared__ float red_s[32], red_dd[32], red_d[32];
    __shared__ __align__(16) float4 part[S][C]; // [slot][sender rank]: (n, mean, m2, -)
    __shared__ __align__(8) unsigned long long mbar[S];
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank(), t = threadIdx.x;
    const int n = cols / 4, first = rank * T * NV, base = first + t;
    const float cnt = 4.f * (float)min(max(n - first, 0), T * NV);
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    // GBS: the slice of gamma and beta in shared memory (each thread reads back the slots it
    // wrote: no barrier), else in registers
    extern __shared__ float4 gbs[]; // GBS: [NV][T] gamma, then [NV][T] beta
    float4 g[GBS ? 1 : NV], b[GBS ? 1 : NV];
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = base + k * T;
        if constexpr (GBS) {
            gbs[k * T + t] = i < n ? __ldg(g4 + i) : z;
            gbs[(NV + k) * T + t] = i < n ? __ldg(b4 + i) : z;
        } else {
            g[k] = i < n ? __ldg(g4 + i) : z;
            b[k] = i < n ? __ldg(b4 + i) : z;
        }
    }
    if (t == 0) {
        for (int q = 0; q < S; q++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(cp_smem(&mbar[q])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster.sync(); // every block's barriers are initialised before anyone sends

    const int cid = blockIdx.x / C, ncl = gridDim.x / C;
    const int J = rows > cid ? (rows - cid + ncl - 1) / ncl : 0; // rows of this cluster
    auto row_of = [&](int j) { return cid + j * ncl; };
    auto load = [&](float4 (&vv)[NV], int j) {
        const float4 *xr = reinterpret_cast<const float4 *>(x + (size_t)row_of(j) * cols);
#pragma unroll
        for (int k = 0; k < NV; k++) {
            const int i = base + k * T;
            vv[k] = i < n ? __ldcs(xr + i) : z;
        }
    };
    // this block's slice of row j reduced to (n, mean, M2) and sent to every block's slot j % S
    auto send = [&](const float4 (&vv)[NV], int j) {
        float s = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++)
            s += sum4(vv[k]);
        s = block_sum<T>(s, red_s);
        const float mu = cnt > 0.f ? s / cnt : 0.f;
        float sdd = 0.f, sd = 0.f;
#pragma unroll
        for (int k = 0; k < NV; k++)
            if (base + k * T < n) {
                const float4 d = sub4(vv[k], mu);
                sd += sum4(d), sdd = sq4(d, sdd);
            }
        block_sum2<T>(sdd, sd, red_dd, red_d);
        const float4 mine = cnt > 0.f ? make_float4(cnt, mu + sd / cnt, fmaxf(sdd - sd * sd / cnt, 0.f), 0.f) : z;
        const int slot = j % S;
        if (t == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cp_smem(&mbar[slot])), "r"(C * 16)
                         : "memory");
        if (t < C) {
            uint32_t dp, db;
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dp) : "r"(cp_smem(&part[slot][rank])), "r"(t));
            asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(db) : "r"(cp_smem(&mbar[slot])), "r"(t));
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(dp),
                         "f"(mine.x), "f"(mine.y), "f"(mine.z), "f"(mine.w), "r"(db)
                         : "memory");
        }
    };
    unsigned phase = 0; // bit q: parity of slot q's current phase
    float4 v[P][NV];
#pragma unroll
    for (int p = 0; p < P; p++)
        if (p < J)
            load(v[p], p);
    if (J > 0)
        send(v[0], 0);
    for (int j0 = 0; j0 < J; j0 += P) {
#pragma unroll
        for (int p = 0; p < P; p++) {
            const int j = j0 + p;
            if (j >= J)
                break; // the same for every block of the cluster
            if (j + 1 < J)
                send(v[(p + 1) % P], j + 1);
            const int slot = j % S;
            {
                const uint32_t bar = cp_smem(&mbar[slot]), par = (phase >> slot) & 1;
                uint32_t done = 0;
                while (!done)
                    asm volatile("{\n\t.reg .pred p;\n\t"
                                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                                 "selp.u32 %0, 1, 0, p;\n\t}"
                                 : "=r"(done)
                                 : "r"(bar), "r"(par)
                                 : "memory");
            }
            phase ^= 1u << slot;
            stats st = {0.f, 0.f, 0.f};
#pragma unroll
            for (int r = 0; r < C; r++) {
                const float4 q = part[slot][r];
                st = chan_merge(st, stats{q.x, q.y, q.z});
            }
            const float r = rsqrtf(st.m2 / (float)cols + eps);
            const int row = row_of(j);
            float4 *yr = reinterpret_cast<float4 *>(y + (size_t)row * cols);
#pragma unroll
            for (int k = 0; k < NV; k++) {
                const int i = base + k * T;
                if (i < n) {
                    if constexpr (GBS)
                        __stcs(yr + i, norm4(sub4(v[p][k], st.mean), r, gbs[k * T + t], gbs[(NV + k) * T + t]));
                    else
                        __stcs(yr + i, norm4(sub4(v[p][k], st.mean), r, g[k], b[k]));
                }
            }
            if (rank == 0 && t == 0)
                mean[row] = st.mean, rstd[row] = r;
            if (j + P < J)
                load(v[p], j + P);
        }
    }
    cluster.sync(); // nothing still in flight to a block that has left
#endif
}

// Two rows per block, normalised together: row A in registers (NV float4 a thread), row B in
// shared memory (NV float4 a thread, cp.async), one block per SM. Each gamma/beta float4 is
// loaded once for both rows: half the L2 reads of gamma/beta. Tests the L2-traffic idea.
template <int T, int NV>
__global__ void __launch_bounds__(T, 1)
    ln_pair(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
            float *__restrict__ y, float *__restrict__ mean, float *__restrict__ rstd, int rows, int cols, float eps)
{
    extern __shared__ float4 srow[]; // NV * T float4: row B
    __shared__ float red_a[32], red_b[32], red_c[32], red_d[32], red_e[32], red_f[32];
    const int n = cols / 4, t = threadIdx.x, ra = 2 * blockIdx.x, rb = ra + 1;
    const bool has_b = rb < rows;
    const float4 *xa = reinterpret_cast<const float4 *>(x + (size_t)ra * cols), *xb = xa + n;
    float4 *ya = reinterpret_cast<float4 *>(y + (size_t)ra * cols), *yb = ya + n;
    const float4 *g4 = reinterpret_cast<const float4 *>(gamma), *b4 = reinterpret_cast<const float4 *>(beta);
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * T + t;
        if (i < n && has_b)
            copy16_async(&srow[k * T + t], xb + i);
        else
            srow[k * T + t] = z;
    }
    float4 v[NV];
    float sa = 0.f, sb = 0.f;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * T + t;
        v[k] = i < n ? __ldcs(xa + i) : z;
        sa += sum4(v[k]);
    }
    copy16_wait_all();
#pragma unroll
    for (int k = 0; k < NV; k++)
        sb += sum4(srow[k * T + t]);
    block_sum2<T>(sa, sb, red_a, red_b);
    const float mua = sa / (float)cols, mub = sb / (float)cols;
    float dda = 0.f, da = 0.f, ddb = 0.f, db = 0.f;
#pragma unroll
    for (int k = 0; k < NV; k++)
        if (k * T + t < n) {
            float4 d = sub4(v[k], mua);
            da += sum4(d), dda = sq4(d, dda);
            d = sub4(srow[k * T + t], mub);
            db += sum4(d), ddb = sq4(d, ddb);
        }
    block_sum2<T>(dda, da, red_c, red_d);
    block_sum2<T>(ddb, db, red_e, red_f);
    const float rA = rstd_from(dda, da, cols, eps), mA = mua + da / (float)cols;
    const float rB = rstd_from(ddb, db, cols, eps), mB = mub + db / (float)cols;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * T + t;
        if (i < n) {
            const float4 g = __ldg(g4 + i), b = __ldg(b4 + i);
            __stcs(ya + i, norm4(sub4(v[k], mA), rA, g, b));
            if (has_b)
                __stcs(yb + i, norm4(sub4(srow[k * T + t], mB), rB, g, b));
        }
    }
    if (t == 0) {
        mean[ra] = mA, rstd[ra] = rA;
        if (has_b)
            mean[rb] = mB, rstd[rb] = rB;
    }
}

// ---- launchers: one signature for all variants ----

struct lnargs {
    const float *x, *g, *b;
    float *y, *mean, *rstd;
    int rows, cols;
    float eps;
};
#define A_ a.x, a.g, a.b, a.y, a.mean, a.rstd, a.rows, a.cols, a.eps

static cudaError_t v_ref(const lnargs &a)
{
    layernorm(A_, 0);
    return cudaGetLastError();
}

template <int K, int MINB> static cudaError_t v_warp_ldg(const lnargs &a)
{
    if (a.cols != 1024)
        return cudaErrorInvalidValue;
    const int fit = resident((const void *)ln_warp_ldg<8, MINB>, WARP_BLOCK, 0, 1);
    const int blocks = K > 0 ? (a.rows + 4 * K - 1) / (4 * K) : fit;
    ln_warp_ldg<8, MINB><<<blocks, WARP_BLOCK>>>(A_);
    return cudaGetLastError();
}

template <int PR, bool GB> static cudaError_t v_warp_rows(const lnargs &a)
{
    if (a.cols != 1024)
        return cudaErrorInvalidValue;
    const int warps = (a.rows + PR - 1) / PR;
    ln_warp_rows<8, PR, GB><<<(warps + WARP_BLOCK / 32 - 1) / (WARP_BLOCK / 32), WARP_BLOCK>>>(A_);
    return cudaGetLastError();
}

template <int EARLY, int MINB> static cudaError_t v_warp_early(const lnargs &a)
{
    if (a.cols != 1024)
        return cudaErrorInvalidValue;
    ln_warp_early<EARLY, MINB><<<(a.rows + WARP_BLOCK / 32 - 1) / (WARP_BLOCK / 32), WARP_BLOCK>>>(A_);
    return cudaGetLastError();
}

// `clusters` clusters of C blocks of T threads (no cluster attribute when C is 1).
template <class Kernel>
static cudaError_t launch_clusters(Kernel kernel, int clusters, int C, int T, size_t smem, const lnargs &a)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)clusters * C);
    cfg.blockDim = dim3(T);
    cfg.dynamicSmemBytes = smem;
    if (C > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = C;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, kernel, A_);
}

// MODE > 0: MODE rows per block (cluster); 0: one row each; -1: persistent (as many as fit);
// -2: as many as fit, rounded so each does the same number of rows.
template <int T, int NV, bool GB, int C, int MODE> static cudaError_t v_block(const lnargs &a)
{
    if ((a.cols / 4 + T * NV - 1) / (T * NV) != C || a.cols % 4)
        return cudaErrorInvalidValue;
    const void *fn = (const void *)layernorm_block<T, NV, GB>;
    const size_t smem = GB ? 2 * (size_t)T * NV * sizeof(float4) : 0;
    const int fit = resident(fn, T, smem, C); // also sets the shared-memory limit
    int clusters = a.rows;
    constexpr int K = MODE > 0 ? MODE : 1;
    if (MODE > 0)
        clusters = (a.rows + K - 1) / K;
    else if (MODE == -1)
        clusters = fit < a.rows ? fit : a.rows;
    else if (MODE == -2) {
        const int per = (a.rows + fit - 1) / fit;
        clusters = (a.rows + per - 1) / per;
    }
    return launch_clusters(layernorm_block<T, NV, GB>, clusters, C, T, smem, a);
}

template <int T, int R, int S> static cudaError_t v_rs(const lnargs &a)
{
    const size_t smem = (size_t)S * T * sizeof(float4);
    if (a.cols / 4 > T * (R + S) || a.cols % 4)
        return cudaErrorInvalidValue;
    static bool set = false;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(layernorm_rs<T, R, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    layernorm_rs<T, R, S><<<a.rows, T, smem>>>(a.x, a.g, a.b, a.y, a.mean, a.rstd, a.cols, a.eps);
    return cudaGetLastError();
}
template <int T, int R, int S, int E, int MINB> static cudaError_t v_rs_early(const lnargs &a)
{
    const size_t smem = (size_t)S * T * sizeof(float4);
    if (a.cols / 4 > T * (R + S) || a.cols % 4)
        return cudaErrorInvalidValue;
    static bool set = false;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(ln_rs_early<T, R, S, E, MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    ln_rs_early<T, R, S, E, MINB><<<a.rows, T, smem>>>(a.x, a.g, a.b, a.y, a.mean, a.rstd, a.cols, a.eps);
    return cudaGetLastError();
}
template <int T, int R, int S, int K> static cudaError_t v_rs_stream(const lnargs &a)
{
    const size_t smem = (size_t)S * T * sizeof(float4);
    if (a.cols / 4 > T * (R + S) || a.cols % 4)
        return cudaErrorInvalidValue;
    static bool set = false;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(ln_rs_stream<T, R, S, K>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    ln_rs_stream<T, R, S, K><<<(a.rows + K - 1) / K, T, smem>>>(A_);
    return cudaGetLastError();
}
template <int T, int R, int S, int MODE> static cudaError_t v_rs_diag(const lnargs &a)
{
    const size_t smem = (size_t)S * T * sizeof(float4);
    if (a.cols / 4 > T * (R + S) || a.cols % 4)
        return cudaErrorInvalidValue;
    static bool set = false;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(ln_rs_diag<T, R, S, MODE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    ln_rs_diag<T, R, S, MODE><<<a.rows, T, smem>>>(A_);
    return cudaGetLastError();
}
template <int T, int NV, int P, int C, int MINB = 2, bool GBS = false> static cudaError_t v_cpipe2(const lnargs &a)
{
    if ((a.cols / 4 + T * NV - 1) / (T * NV) != C || a.cols % 4)
        return cudaErrorInvalidValue;
    const size_t smem = GBS ? 2 * (size_t)NV * T * sizeof(float4) : 0;
    const void *fn = (const void *)ln_cpipe2<T, NV, P, C, MINB, GBS>;
    static int fit = 0;
    if (!fit) {
        fit = resident(fn, T, smem, C);
        cudaFuncAttributes fa;
        cudaFuncGetAttributes(&fa, fn);
        printf("  [cpipe2 T%d NV%d P%d C%d: %d registers, %zu bytes local, %d clusters resident]\n", T, NV, P, C, fa.numRegs,
               (size_t)fa.localSizeBytes, fit);
    }
    return launch_clusters(ln_cpipe2<T, NV, P, C, MINB, GBS>, fit < a.rows ? fit : a.rows, C, T, smem, a);
}
template <int T, int NV> static cudaError_t v_pair(const lnargs &a)
{
    const size_t smem = (size_t)NV * T * sizeof(float4);
    if (a.cols / 4 > T * NV || a.cols % 4)
        return cudaErrorInvalidValue;
    static bool set = false;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(ln_pair<T, NV>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    ln_pair<T, NV><<<(a.rows + 1) / 2, T, smem>>>(A_);
    return cudaGetLastError();
}

struct variant {
    const char *name;
    int cols; // 0: every shape
    cudaError_t (*fn)(const lnargs &);
    bool diag = false; // a diagnostic: its output is wrong on purpose, only its time counts
};
// A one-thread kernel that spins for ns nanoseconds (the judge's sentinel, for LN_SENTINEL).
__global__ void spin_ns(unsigned long long ns)
{
    const unsigned long long t0 = cl_globaltimer_ns();
    while (cl_globaltimer_ns() - t0 < ns) {
    }
}

// LN_ONLY=text: only the variants whose name contains it (and always the reference)
static bool selected(const variant &v)
{
    const char *only = getenv("LN_ONLY");
    return !only || !strcmp(v.name, "reference") || strstr(v.name, only);
}

static const variant variants[] = {
    {"reference", 0, v_ref},
    // 1024: warp per row (the reference: one warp per row launched, gamma/beta via __ldg)
    {"warp/ldg k=1 <= 56 regs", 1024, v_warp_ldg<1, 9>},
    {"warp/ldg k=2 64 regs", 1024, v_warp_ldg<2, 8>},
    {"warp/ldg persistent 64 regs", 1024, v_warp_ldg<0, 8>},
    {"NEW warp x 1 row, g/b at the store", 1024, v_warp_rows<1, true>},
    {"NEW warp x 2 rows, g/b read once for both", 1024, v_warp_rows<2, true>},
    {"NEW warp x 4 rows, g/b read once for all", 1024, v_warp_rows<4, true>},
    {"DIAG warp x 1 row, no g/b", 1024, v_warp_rows<1, false>, true},
    {"DIAG warp x 2 rows, no g/b", 1024, v_warp_rows<2, false>, true},
    {"NEW early gamma (with x), 7 blocks/SM", 1024, v_warp_early<1, 7>},
    {"NEW early gamma (with x), 6 blocks/SM", 1024, v_warp_early<1, 6>},
    {"NEW early g+b (with x), 4 blocks/SM", 1024, v_warp_early<2, 4>},
    // 4096: block per row (the reference: 256x4, one block per row, gamma/beta via __ldg)
    {"block 256x4 gb=smem persistent (old ref)", 4096, v_block<256, 4, true, 1, -1>},
    {"block 128x8 gb=ldg np", 4096, v_block<128, 8, false, 1, 0>},
    {"block 512x2 gb=ldg np", 4096, v_block<512, 2, false, 1, 0>},
    // 32768 (the reference: rs 1024 4 reg + 4 smem)
    {"block 1024x8 gb=ldg np (old ref)", 32768, v_block<1024, 8, false, 1, 0>},
    {"rs 512: 4 reg + 12 smem, gb=ldg", 32768, v_rs<512, 4, 12>},
    {"NEW rs early g/b: 512 4+12, first 4", 32768, v_rs_early<512, 4, 12, 4, 2>},
    {"NEW rs early g/b: 512 4+12, first 2", 32768, v_rs_early<512, 4, 12, 2, 2>},
    {"NEW rs early g/b: 256 8+24, first 8", 32768, v_rs_early<256, 8, 24, 8, 2>},
    {"NEW rs early g/b: 512 4+12, first 3", 32768, v_rs_early<512, 4, 12, 3, 2>},
    {"NEW rs early g/b: 512 2+14, first 2", 32768, v_rs_early<512, 2, 14, 2, 2>},
    {"NEW rs early g/b: 512 2+14, first 4", 32768, v_rs_early<512, 2, 14, 4, 2>},
    {"NEW rs early g/b: 512 2+14, first 5", 32768, v_rs_early<512, 2, 14, 5, 2>},
    {"rs 256: 8 reg + 24 smem, gb=ldg", 32768, v_rs<256, 8, 24>},
    {"DIAG rs 1024 4+4, g/b from 4 KB", 32768, v_rs_diag<1024, 4, 4, 1>, true},
    {"DIAG rs 1024 4+4, no g/b", 32768, v_rs_diag<1024, 4, 4, 2>, true},
    {"DIAG rs 1024 4+4, beta from gamma's address", 32768, v_rs_diag<1024, 4, 4, 3>, true},
    {"DIAG rs 512 4+12, g/b from 4 KB", 32768, v_rs_diag<512, 4, 12, 1>, true},
    {"DIAG rs 512 4+12, no g/b", 32768, v_rs_diag<512, 4, 12, 2>, true},
    {"NEW rs 1024 4+4 stream next row k=2", 32768, v_rs_stream<1024, 4, 4, 2>},
    {"NEW rs 512 4+12 stream next row k=2", 32768, v_rs_stream<512, 4, 12, 2>},
    {"NEW rs 512 4+12 stream next row k=4", 32768, v_rs_stream<512, 4, 12, 4>},
    {"NEW pair 1024x8: 2 rows/CTA, shared g/b", 32768, v_pair<1024, 8>},
    {"NEW pair 512x16: 2 rows/CTA, shared g/b", 32768, v_pair<512, 16>},
    {"cluster 4 x 256x8 gb=smem persistent", 32768, v_block<256, 8, true, 4, -1>},
    {"NEW cpipe2 8 x 256x4 P2 (exchange ahead)", 32768, v_cpipe2<256, 4, 2, 8>},
    {"NEW cpipe2 8 x 256x4 P4", 32768, v_cpipe2<256, 4, 4, 8>},
    {"NEW cpipe2 8 x 256x4 P2, 3 CTA/SM", 32768, v_cpipe2<256, 4, 2, 8, 3>},
    {"NEW cpipe2 8 x 128x8 P2", 32768, v_cpipe2<128, 8, 2, 8>},
    {"NEW cpipe2 8 x 128x8 P2, 3 CTA/SM", 32768, v_cpipe2<128, 8, 2, 8, 3>},
    {"NEW cpipe2 4 x 256x8 P2 (1 CTA/SM)", 32768, v_cpipe2<256, 8, 2, 4, 1>},
    {"NEW cpipe2 8 x 256x4 P2 g/b smem, 4 CTA/SM", 32768, v_cpipe2<256, 4, 2, 8, 4, true>},
    {"NEW cpipe2 8 x 256x4 P2 g/b smem, 3 CTA/SM", 32768, v_cpipe2<256, 4, 2, 8, 3, true>},
    {"NEW cpipe2 8 x 256x4 P3 g/b smem, 3 CTA/SM", 32768, v_cpipe2<256, 4, 3, 8, 3, true>},
    {"NEW cpipe2 8 x 128x8 P2 g/b smem, 4 CTA/SM", 32768, v_cpipe2<128, 8, 2, 8, 4, true>},
    {"NEW cpipe2 8 x 128x8 P2 g/b smem, 6 CTA/SM", 32768, v_cpipe2<128, 8, 2, 8, 6, true>},
    {"NEW cpipe2 4 x 256x8 P2 g/b smem, 3 CTA/SM", 32768, v_cpipe2<256, 8, 2, 4, 3, true>},
};

// ---- CPU reference (fp64 two-pass) and check ----

struct rowref {
    double mean, rstd, A; // A: mean |x|, the scale lab.yaml's tolerances are relative to
};

static void cpu_layernorm(const float *x, rowref *ref, int rows, int cols, double eps)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double s = 0, a = 0, q = 0;
        for (int j = 0; j < cols; j++)
            s += xr[j], a += fabs((double)xr[j]);
        const double m = s / cols;
        for (int j = 0; j < cols; j++)
            q += ((double)xr[j] - m) * ((double)xr[j] - m);
        ref[r] = rowref{m, 1.0 / sqrt(q / cols + eps), a / cols};
    }
}

// lab.yaml: mean 1e-5 A; rstd (1e-5 + 1e-6 A / sqrt(var + eps)) rstd; y 1e-5 (|y| + |g| rstd A + |b|).
// Each error as a fraction of its tolerance (NaN counts as infinite).
static void check(const float *x, const float *g, const float *b, const float *y, const float *mean,
                  const float *rstd, const rowref *ref, int rows, int cols, double err[3])
{
    double em = 0, er = 0, ey = 0;
#pragma omp parallel for reduction(max : em, er, ey) schedule(dynamic, 16)
    for (int r = 0; r < rows; r++) {
        const rowref R = ref[r];
        double e = fabs(mean[r] - R.mean) / (1e-5 * R.A + 1e-30);
        em = e <= em ? em : (e == e ? e : INFINITY);
        e = fabs(rstd[r] - R.rstd) / ((1e-5 + 1e-6 * R.A * R.rstd) * R.rstd);
        er = e <= er ? er : (e == e ? e : INFINITY);
        for (int j = 0; j < cols; j++) {
            const size_t i = (size_t)r * cols + j;
            const double want = ((double)x[i] - R.mean) * R.rstd * g[j] + b[j];
            e = fabs(y[i] - want) / (1e-5 * (fabs(want) + fabs((double)g[j]) * R.rstd * R.A + fabs((double)b[j])));
            ey = e <= ey ? ey : (e == e ? e : INFINITY);
        }
    }
    err[0] = em, err[1] = er, err[2] = ey;
}

// x uniform in [-1, 1); every 7th row (from 1) 1e4 + that noise (E[x^2] - E[x]^2 fails there);
// every 11th row (from 0) constant (variance 0: rstd = 1/sqrt(eps), y = beta).
__global__ void fill(float *x, float *g, float *b, int rows, int cols, unsigned seed)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / cols;
        float v = bench_uniform(i, seed);
        if (r % 11 == 0)
            v = bench_uniform(r, seed ^ 0x51u);
        else if (r % 7 == 1)
            v += 1e4f;
        x[i] = v;
        if (i < (size_t)cols) {
            g[i] = 1.0f + 0.5f * bench_uniform(i, seed ^ 0x67u);
            b[i] = 0.5f * bench_uniform(i, seed ^ 0x62u);
        }
    }
}

// ---- correctness on labs/layernorm/lab.yaml's cases (and a few more that reach every path
// of the reference and the odd row counts of the variants), before any timing ----

struct lcase {
    const char *name;
    int rows, cols;
    float eps;
    int const_every, offset_every, uniform; // uniform: x in [a, b), else normal(0, 1)
    float a, b;
};
static const lcase lab_cases[] = {
    {"100 x 1", 100, 1, 1e-5f, 0, 3, 0, 0, 0},
    {"99 x 3", 99, 3, 1e-5f, 3, 3, 0, 0, 0},
    {"1 x 7", 1, 7, 1e-5f, 0, 0, 0, 0, 0},
    {"333 x 32", 333, 32, 1e-5f, 4, 4, 0, 0, 0},
    {"200 x 33", 200, 33, 1e-5f, 4, 4, 0, 0, 0},
    {"1000 x 1000", 1000, 1000, 1e-5f, 5, 5, 0, 0, 0},
    {"257 x 1023", 257, 1023, 1e-5f, 3, 3, 0, 0, 0},
    {"512 x 1024, eps 1e-3", 512, 1024, 1e-3f, 4, 4, 0, 0, 0},
    {"129 x 1025", 129, 1025, 1e-5f, 4, 4, 0, 0, 0},
    {"300 x 4096", 300, 4096, 1e-5f, 3, 3, 0, 0, 0},
    {"64 x 4100, uniform +-100", 64, 4100, 1e-5f, 0, 0, 1, -100, 100},
    {"40 x 12000", 40, 12000, 1e-5f, 3, 3, 0, 0, 0},
    {"33 x 32768", 33, 32768, 1e-5f, 3, 3, 0, 0, 0},
    {"9 x 50000", 9, 50000, 1e-5f, 3, 3, 0, 0, 0},
    {"4 x 2^20", 4, 1 << 20, 1e-5f, 2, 2, 0, 0, 0},
    {"3 x 65537", 3, 65537, 1e-5f, 3, 3, 0, 0, 0},
    // extra: odd row counts at the bench widths (variants), every width class of the reference
    {"+ 67 x 1024", 67, 1024, 1e-5f, 4, 4, 0, 0, 0},
    {"+ 37 x 4096", 37, 4096, 1e-5f, 4, 4, 0, 0, 0},
    {"+ 11 x 8192", 11, 8192, 1e-5f, 3, 3, 0, 0, 0},
    {"+ 7 x 16384", 7, 16384, 1e-5f, 3, 3, 0, 0, 0},
    {"+ 9 x 16388 (rs, partly padded)", 9, 16388, 1e-5f, 3, 3, 0, 0, 0},
    {"+ 8 x 20000 (rs)", 8, 20000, 1e-5f, 3, 3, 0, 0, 0},
    {"+ 5 x 32772 (cluster)", 5, 32772, 1e-5f, 3, 3, 0, 0, 0},
    {"+ 5 x 65536 (cluster of 8)", 5, 65536, 1e-5f, 3, 3, 0, 0, 0},
};

static int run_cases(void)
{
    int wrong = 0;
    unsigned long long st = 88172645463325252ull;
    auto rnd = [&]() { // xorshift64*, uniform in [0, 1)
        st ^= st >> 12, st ^= st << 25, st ^= st >> 27;
        return (double)((st * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    };
    printf("## correctness on lab.yaml's cases (reference, and variants at their width)\n");
    for (const lcase &c : lab_cases) {
        const size_t n = (size_t)c.rows * c.cols;
        std::vector<float> hx(n), hg(c.cols), hb(c.cols), hy(n), hm(c.rows), hr(c.rows);
        for (int r = 0; r < c.rows; r++)
            for (int j = 0; j < c.cols; j++) {
                float v;
                if (c.uniform)
                    v = (float)(c.a + (c.b - c.a) * rnd());
                else
                    v = (float)(sqrt(-2.0 * log(1.0 - rnd())) * cos(6.283185307179586 * rnd()));
                if (c.const_every && r % c.const_every == 0)
                    v = j == 0 ? (float)(2 * rnd() - 1) : hx[(size_t)r * c.cols];
                else if (c.offset_every && r % c.offset_every == 1)
                    v = (float)(1e4 + 2 * rnd() - 1);
                hx[(size_t)r * c.cols + j] = v;
            }
        for (int j = 0; j < c.cols; j++)
            hg[j] = (float)(0.5 + rnd()), hb[j] = (float)(rnd() - 0.5);
        std::vector<rowref> ref(c.rows);
        cpu_layernorm(hx.data(), ref.data(), c.rows, c.cols, c.eps);
        float *x, *g, *b, *y, *mean, *rstd;
        BENCH_CK(cudaMalloc(&x, n * 4));
        BENCH_CK(cudaMalloc(&y, n * 4));
        BENCH_CK(cudaMalloc(&g, c.cols * 4));
        BENCH_CK(cudaMalloc(&b, c.cols * 4));
        BENCH_CK(cudaMalloc(&mean, c.rows * 4));
        BENCH_CK(cudaMalloc(&rstd, c.rows * 4));
        BENCH_CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
        BENCH_CK(cudaMemcpy(g, hg.data(), c.cols * 4, cudaMemcpyHostToDevice));
        BENCH_CK(cudaMemcpy(b, hb.data(), c.cols * 4, cudaMemcpyHostToDevice));
        const lnargs a{x, g, b, y, mean, rstd, c.rows, c.cols, c.eps};
        for (const variant &v : variants) {
            if ((v.cols && v.cols != c.cols) || !selected(v))
                continue;
            BENCH_CK(cudaMemset(y, 0xff, n * 4));
            BENCH_CK(cudaMemset(mean, 0xff, c.rows * 4));
            BENCH_CK(cudaMemset(rstd, 0xff, c.rows * 4));
            cudaError_t e = v.fn(a);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                printf("  %-34s %-40s LAUNCH FAILED: %s  ***** WRONG *****\n", c.name, v.name, cudaGetErrorString(e));
                cudaGetLastError();
                wrong++;
                continue;
            }
            BENCH_CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(hm.data(), mean, c.rows * 4, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(hr.data(), rstd, c.rows * 4, cudaMemcpyDeviceToHost));
            double err[3];
            check(hx.data(), hg.data(), hb.data(), hy.data(), hm.data(), hr.data(), ref.data(), c.rows, c.cols, err);
            const bool ok = v.diag || (err[0] <= 1 && err[1] <= 1 && err[2] <= 1);
            wrong += !ok;
            printf("  %-34s %-40s err mean %.2g rstd %.2g y %.2g of tol  %s\n", c.name, v.name, err[0], err[1], err[2],
                   v.diag ? "diagnostic (wrong on purpose)" : ok ? "ok" : "***** WRONG *****");
        }
        cudaFree(x), cudaFree(y), cudaFree(g), cudaFree(b), cudaFree(mean), cudaFree(rstd);
    }
    printf("%s\n\n", wrong ? "SOME CASES ARE WRONG" : "all cases correct");
    return wrong;
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30;
    (void)bench_emit; // the header's JSON printer: not used here
    cudaDeviceProp p;
    BENCH_CK(cudaGetDeviceProperties(&p, 0));
    printf("# layernorm variants on %s (%d SMs, L2 %d MB), runs %d, median after an L2 flush\n", p.name,
           p.multiProcessorCount, p.l2CacheSize >> 20, runs);

    int wrong = run_cases();
    double copy_gbps = 0;
    {
        const size_t sizes[2] = {(size_t)1 << 30, (size_t)256 << 20};
        for (size_t bytes : sizes) {
            void *a, *b;
            BENCH_CK(cudaMalloc(&a, bytes));
            BENCH_CK(cudaMalloc(&b, bytes));
            BENCH_CK(cudaMemset(a, 1, bytes));
            bench_timing t = bench_time([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0); }, runs);
            const double gb = 2.0 * bytes / (t.median_ms * 1e-3) / 1e9;
            printf("ceiling cudaMemcpy D2D %4zu MiB: %.4f ms, %.0f GB/s%s\n", bytes >> 20, t.median_ms, gb,
                   bytes == ((size_t)1 << 30) ? "  <- copy ceiling" : "");
            if (bytes == ((size_t)1 << 30))
                copy_gbps = gb;
            BENCH_CK(cudaFree(a));
            BENCH_CK(cudaFree(b));
        }
    }

    const int shapes[3][2] = {{65536, 1024}, {16384, 4096}, {2048, 32768}};
    const size_t n_max = (size_t)1 << 26;
    const int rows_max = 65536, cols_max = 32768;
    const float eps = 1e-5f;
    lnargs a;
    float *x, *g, *b, *y, *mean, *rstd;
    // LN_VMM=1: the buffers allocated as the judge allocates them (cuMemCreate + cuMemMap,
    // the data GUARD bytes into the mapping, grader/runner/engine.c) instead of cudaMalloc
    auto alloc = [&](float **q, size_t bytes) {
        if (!getenv("LN_VMM")) {
            BENCH_CK(cudaMalloc(q, bytes));
            return;
        }
        const size_t guard = 4096;
        CUmemAllocationProp prop = {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        size_t gran = 0;
        cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
        const size_t n = (bytes + 2 * guard + gran - 1) / gran * gran;
        CUmemGenericAllocationHandle h;
        CUdeviceptr ptr;
        CUmemAccessDesc acc = {};
        acc.location = prop.location;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        if (cuMemCreate(&h, n, &prop, 0) != CUDA_SUCCESS || cuMemAddressReserve(&ptr, n, 0, 0, 0) != CUDA_SUCCESS ||
            cuMemMap(ptr, n, 0, h, 0) != CUDA_SUCCESS || cuMemSetAccess(ptr, n, &acc, 1) != CUDA_SUCCESS) {
            fprintf(stderr, "LN_VMM: allocation failed\n");
            exit(1);
        }
        *q = reinterpret_cast<float *>(ptr + guard);
    };
    alloc(&x, n_max * 4);
    alloc(&y, n_max * 4);
    alloc(&g, cols_max * 4);
    alloc(&b, cols_max * 4);
    alloc(&mean, rows_max * 4);
    alloc(&rstd, rows_max * 4);
    // LN_SENTINEL=1: a one-thread kernel spins on a second stream through each timed call, as
    // the judge's sentinel does (grader/runner/backend_cuda.cu)
    cudaStream_t side = nullptr;
    if (getenv("LN_SENTINEL"))
        BENCH_CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    std::vector<float> hx(n_max), hy(n_max), hg(cols_max), hb(cols_max), hm(rows_max), hr(rows_max);
    std::vector<rowref> ref(rows_max);
    for (auto &sh : shapes) {
        const int rows = sh[0], cols = sh[1];
        const size_t n = (size_t)rows * cols;
        fill<<<p.multiProcessorCount * 8, 256>>>(x, g, b, rows, cols, 4321u + cols);
        BENCH_CK(cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(hg.data(), g, cols * 4, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(hb.data(), b, cols * 4, cudaMemcpyDeviceToHost));
        cpu_layernorm(hx.data(), ref.data(), rows, cols, eps);
        a = lnargs{x, g, b, y, mean, rstd, rows, cols, eps};
        const double bytes = (2.0 * n + 2.0 * cols + 2.0 * rows) * 4;
        printf("\n## %d x %d\n", rows, cols);
        for (const variant &v : variants) {
            if ((v.cols && v.cols != cols) || !selected(v))
                continue;
            BENCH_CK(cudaMemset(y, 0xff, n * 4)); // NaN: whatever is not written fails
            BENCH_CK(cudaMemset(mean, 0xff, rows * 4));
            BENCH_CK(cudaMemset(rstd, 0xff, rows * 4));
            cudaError_t e = v.fn(a);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                printf("%-40s LAUNCH FAILED: %s\n", v.name, cudaGetErrorString(e));
                cudaGetLastError();
                continue;
            }
            BENCH_CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(hm.data(), mean, rows * 4, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(hr.data(), rstd, rows * 4, cudaMemcpyDeviceToHost));
            double err[3];
            check(hx.data(), hg.data(), hb.data(), hy.data(), hm.data(), hr.data(), ref.data(), rows, cols, err);
            const bool ok = v.diag || (err[0] <= 1 && err[1] <= 1 && err[2] <= 1);
            wrong += !ok;
            bench_timing t = bench_time([&] {
                if (side)
                    spin_ns<<<1, 1, 0, side>>>(400000ull);
                v.fn(a);
            }, runs);
            const double gbps = bytes / (t.median_ms * 1e-3) / 1e9;
            printf("%-40s %.4f ms (min %.4f max %.4f)  %6.0f GB/s  %5.1f%% of copy  err mean %.2g rstd %.2g y %.2g of tol  %s\n",
                   v.name, t.median_ms, t.min_ms, t.max_ms, gbps, 100.0 * gbps / copy_gbps, err[0], err[1], err[2],
                   v.diag ? "diagnostic (wrong on purpose)" : ok ? "ok" : "***** WRONG *****");
        }
    }
    printf("\n%s\n", wrong ? "SOME VARIANTS ARE WRONG" : "all variants correct");
    return wrong != 0;
}
