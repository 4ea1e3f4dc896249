/* reference/softmax.cu: row-wise softmax of a rows x cols fp32 matrix, at copy bandwidth.
 *
 * out[r][c] = exp(x[r][c] - m) / sum_c' exp(x[r][c'] - m), m = max_c x[r][c]. Subtracting
 * the row max keeps every exp() in (0, 1]: without it exp(89) already overflows fp32.
 * A row of -inf entries only gets 0 for them; a row that is all -inf has no softmax
 * (the result is NaN, like PyTorch's).
 *
 * The work is a few flops per element, so the kernel is memory-bound and the goal is to
 * touch each byte once: read x once, write out once. A textbook version makes three
 * passes over the row (max, sum, write) and moves 3 x 4 bytes per element where 2 x 4
 * suffice; here the row stays in registers between the passes. How a row is spread over
 * threads depends on its width, because a warp, a block and an SM each need enough
 * independent bytes in flight (tens of KB per SM on an H100) to cover DRAM latency:
 *  - cols <= 1024: a warp per row. Each lane holds up to 8 float4 of the row; max and sum
 *    are warp shuffles (__shfl_xor_sync), no shared memory and no __syncthreads.
 *    A block per row would leave most of a 256-thread block idle on short rows and pay
 *    two block barriers per 4 KB row.
 *  - cols <= 16384: a block per row, 256 to 1024 threads x 4 float4 each, the row in
 *    registers; warp shuffles, then one shared-memory slot per warp.
 *  - cols <= 32768 (up to 128 KB a row): a 512-thread block per row that keeps 4 float4 a
 *    thread in registers and the other 12 in shared memory (96 KB a block). Registers alone
 *    hold one such row per SM: the SM then waits for the whole row to arrive, reduces it
 *    and writes it with nothing else in flight (one 1024-thread block x 8 float4: 95.6% of
 *    copy). Splitting the row between registers and shared memory makes room for two
 *    blocks per SM, so one block's loads overlap the other's reductions and stores
 *    (98.9%). The shared part is loaded with cp.async (sm_80+: global to shared memory
 *    without passing through registers, so all 16 loads of a thread are in flight at
 *    once); each thread reads back only the slots it wrote, so no barrier is needed for
 *    them. Where two such blocks do not fit on an SM (sm_75: 64 KB of shared memory a
 *    block; sm_86/89: 100 KB an SM), the one-block-per-SM version runs instead.
 *    (Splitting the row over a thread-block cluster of 2 to 8 blocks, below, measured
 *    90-96%: the cluster barrier costs more than a block's.)
 *    H100, variant harness, 2026-11-26, 2048 x 32768, % of cudaMemcpy D2D (3037 GB/s):
 *    1024 x 8 in registers 95.6%; 512 x (4 regs + 12 smem) 98.9%; 512 x (8 + 8) 96.5%;
 *    256 x (8 + 24) 96.8%; clusters 90-96%. 1024 / 4096 columns: 99.3 / 99.6%.
 *  - up to 65536 columns on Hopper (sm_90): a thread-block cluster per row. Each block
 *    holds 8192 columns in registers and reduces them to its own (max, sum of exp(x -
 *    max)); the blocks read each other's pair through distributed shared memory
 *    (cluster.map_shared_rank) after one cluster barrier and merge them with the online-
 *    softmax rule below, so each block rescales its values by exp(m_block - m_row). This
 *    still reads x once where a split row (next) reads it twice. Before Hopper these rows
 *    are split instead.
 *  - rows wider than a cluster holds (or whose columns are not a multiple of 4 and exceed
 *    1024): split rows. Pass 1: each block reduces a chunk to (max, sum of exp(x - max))
 *    with the online-softmax rule (when the running max rises from m to m', the running
 *    sum is rescaled by exp(m - m')); pass 2: each block merges its row's partials and
 *    writes its chunk. This reads x twice but keeps every SM busy even for one row of
 *    millions of columns.
 * All paths read with 16-byte loads when cols % 4 == 0 and the pointers are 16-byte
 * aligned (a row then starts on a 16-byte boundary), else with 4-byte loads.
 * exp is __expf (ex2.approx on x - m, <= 2 ulp near 0): x - m is computed first, so the
 * argument is exact for values near the max, where the output is large.
 *
 * Which path runs where: rows of 16385 to 32768 columns take the registers + shared memory
 * path where the GPU fits two of its blocks per SM (the host asks the occupancy API once:
 * yes on an H100, 228 KB of shared memory an SM; no below about 195 KB, e.g. an A100's
 * 164 KB or the 64-100 KB of sm_75, sm_86, sm_89 and sm_120) and the kernels were built
 * for sm_80 or newer, else one 1024-thread block per row (so compute_75 PTX on an H100
 * tests that one). sm_90 and newer (Hopper,
 * Blackwell) run the cluster path for rows of 32769 to 65536 columns (__CUDA_ARCH__ >= 900,
 * and the host checks both the compute capability and what the kernels were built for);
 * sm_75 to sm_89, and PTX of an older architecture JIT-compiled on a newer GPU, split those
 * rows instead. The other paths are the same on every GPU from sm_75 on. */
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <cooperative_groups.h>

#include "cudalab_lab.h"

namespace cg = cooperative_groups;

#define RS_THREADS 512 /* rows up to 32768 columns: threads, float4 in registers, in smem */
#define RS_REG 4
#define RS_SMEM 12
#define WIDE_THREADS 256 /* one block of a cluster: threads x float4 per thread */
#define WIDE_NV 8
#define MAX_CLUSTER 8 /* the portable cluster size limit */
#define SPLIT_THREADS 256
#define SPLIT_CHUNK (SPLIT_THREADS * 16)

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* All threads of the block get the block's max / sum. red: one slot per warp, used by
 * this call only (each call site has its own array, so no barrier is needed before). */
template <int THREADS>
__device__ __forceinline__ float block_max(float v, float *red)
{
    v = warp_max(v);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = (threadIdx.x & 31) < THREADS / 32 ? red[threadIdx.x & 31] : -INFINITY;
    return warp_max(v);
}

template <int THREADS>
__device__ __forceinline__ float block_sum(float v, float *red)
{
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = (threadIdx.x & 31) < THREADS / 32 ? red[threadIdx.x & 31] : 0.f;
    return warp_sum(v);
}

__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

__device__ __forceinline__ float4 exp4_sub(float4 v, float m, float &sum)
{
    v.x = __expf(v.x - m);
    v.y = __expf(v.y - m);
    v.z = __expf(v.z - m);
    v.w = __expf(v.w - m);
    sum += (v.x + v.y) + (v.z + v.w);
    return v;
}

__device__ __forceinline__ float4 scale4(float4 v, float s)
{
    return make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

/* ---- cols <= 1024: a warp per row, 4 rows per block ---- */

/* VEC = 4: lane holds float4 number k*32 + lane of the row, k < NV (16-byte loads).
 * VEC = 1: lane holds element k*32 + lane (any width, any alignment). */
template <int NV, int VEC>
__global__ void __launch_bounds__(128)
    softmax_warp(const float *__restrict__ in, float *__restrict__ out, int rows, int cols)
{
    const int row = blockIdx.x * 4 + (threadIdx.x >> 5), lane = threadIdx.x & 31;
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;
    const int n = cols / VEC; /* vectors in the row */
    float v[NV * VEC];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        if constexpr (VEC == 4) {
            const float4 t = i < n ? __ldcs(reinterpret_cast<const float4 *>(x) + i)
                                   : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
            v[4 * k] = t.x, v[4 * k + 1] = t.y, v[4 * k + 2] = t.z, v[4 * k + 3] = t.w;
        } else {
            v[k] = i < n ? __ldcs(x + i) : -INFINITY;
        }
    }
#pragma unroll
    for (int j = 0; j < NV * VEC; j++)
        m = fmaxf(m, v[j]);
    m = warp_max(m);
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < NV * VEC; j++) {
        v[j] = __expf(v[j] - m);
        s += v[j];
    }
    const float inv = 1.f / warp_sum(s);
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = k * 32 + lane;
        if (i < n) {
            if constexpr (VEC == 4)
                __stcs(reinterpret_cast<float4 *>(y) + i,
                       make_float4(v[4 * k] * inv, v[4 * k + 1] * inv, v[4 * k + 2] * inv,
                                   v[4 * k + 3] * inv));
            else
                __stcs(y + i, v[k] * inv);
        }
    }
}

/* ---- wide rows: a block, or a cluster of blocks, per row (cols % 4 == 0) ---- */

/* Online softmax state: running max m and sum s of exp(x - m). */
struct ms {
    float m, s;
};

__device__ __forceinline__ ms ms_merge(ms a, ms b)
{
    const float m = fmaxf(a.m, b.m);
    if (m == -INFINITY) /* both empty (or all -inf so far) */
        return ms{m, 0.f};
    return ms{m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

/* The row is blockIdx.x / csize; block `rank` of the cluster owns float4 indices
 * [rank * THREADS * NV, (rank + 1) * THREADS * NV), interleaved by thread so that each
 * load instruction of a warp reads 512 contiguous bytes. Register budget: room for at
 * least 8192 / (THREADS * NV) blocks per SM (128 KB of rows in registers); without the
 * hint ptxas spills some configurations. */
template <int THREADS, int NV>
__global__ void __launch_bounds__(THREADS, (8192 / (THREADS * NV)) > 0 ? 8192 / (THREADS * NV) : 1)
    softmax_block(const float *__restrict__ in, float *__restrict__ out, int cols)
{
    __shared__ float red_max[32], red_sum[32];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    __shared__ ms part; /* this block's (max, sum), read by the other blocks of the cluster */
    cg::cluster_group cluster = cg::this_cluster();
    const int csize = (int)cluster.num_blocks(), rank = (int)cluster.block_rank();
#else
    const int csize = 1, rank = 0;
#endif
    const size_t row = blockIdx.x / csize;
    const float4 *x = reinterpret_cast<const float4 *>(in + row * cols);
    float4 *y = reinterpret_cast<float4 *>(out + row * cols);
    const int n = cols / 4, base = rank * THREADS * NV + threadIdx.x;

    float4 v[NV];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = base + k * THREADS;
        v[k] = i < n ? __ldcs(x + i) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        m = fmaxf(m, max4(v[k]));
    }
    m = block_max<THREADS>(m, red_max);
    /* A slice of only -inf (or only padding) has max -inf: its exp()s are 0, not NaN. */
    const float shift = m == -INFINITY ? 0.f : m;
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < NV; k++)
        v[k] = exp4_sub(v[k], shift, s);
    s = block_sum<THREADS>(s, red_sum);
    float scale = 1.f / s; /* a row of only -inf: 1 / 0, and 0 * inf = NaN, as defined */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize > 1) {
        if (threadIdx.x == 0)
            part = ms{m, s};
        cluster.sync(); /* every block's (max, sum) is in its shared memory */
        ms row_ms{-INFINITY, 0.f};
        for (int r = 0; r < csize; r++) /* same order in every block: same result */
            row_ms = ms_merge(row_ms, *cluster.map_shared_rank(&part, r));
        /* The others may still read our part while we store: leave the cluster only when
         * all have read (arrive now, wait before exit, so the stores overlap). */
        asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
        scale = (m == -INFINITY ? 0.f : __expf(m - row_ms.m)) / row_ms.s;
    }
#endif
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int i = base + k * THREADS;
        if (i < n)
            __stcs(y + i, scale4(v[k], scale));
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (csize > 1)
        asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
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

/* Thread t holds float4 k*T + t (k < R) of the row in registers and float4 (R + k)*T + t
 * (k < S) in its shared slot k*T + t. The shared part is requested first, so that all of
 * a thread's R + S loads are in flight together. Two blocks per SM (64 registers a thread
 * at T = 512). */
template <int T, int R, int S>
__global__ void __launch_bounds__(T, 2) softmax_rs(const float *__restrict__ in, float *__restrict__ out, int cols)
{
    extern __shared__ float4 srow[]; /* S * T float4 */
    __shared__ float red_max[32], red_sum[32];
    const size_t row = blockIdx.x;
    const float4 *x = reinterpret_cast<const float4 *>(in + row * cols);
    float4 *y = reinterpret_cast<float4 *>(out + row * cols);
    const int n = cols / 4, t = threadIdx.x;
    const float4 ninf = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
#pragma unroll
    for (int k = 0; k < S; k++) {
        const int i = (R + k) * T + t;
        if (i < n)
            copy16_async(&srow[k * T + t], x + i);
        else
            srow[k * T + t] = ninf;
    }
    float4 v[R];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < R; k++) {
        const int i = k * T + t;
        v[k] = i < n ? __ldcs(x + i) : ninf;
        m = fmaxf(m, max4(v[k]));
    }
    copy16_wait_all();
#pragma unroll
    for (int k = 0; k < S; k++)
        m = fmaxf(m, max4(srow[k * T + t]));
    m = block_max<T>(m, red_max);
    const float shift = m == -INFINITY ? 0.f : m; /* a row of only -inf: exp()s are 0 */
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < R; k++)
        v[k] = exp4_sub(v[k], shift, s);
#pragma unroll
    for (int k = 0; k < S; k++)
        srow[k * T + t] = exp4_sub(srow[k * T + t], shift, s);
    const float inv = 1.f / block_sum<T>(s, red_sum); /* 1 / 0 on a row of only -inf: NaN */
#pragma unroll
    for (int k = 0; k < R; k++)
        if (k * T + t < n)
            __stcs(y + k * T + t, scale4(v[k], inv));
#pragma unroll
    for (int k = 0; k < S; k++)
        if ((R + k) * T + t < n)
            __stcs(y + (R + k) * T + t, scale4(srow[k * T + t], inv));
}

/* ---- split rows: any width, any alignment; reads x twice ---- */

__device__ __forceinline__ ms block_merge(ms v, ms *red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = ms_merge(v, ms{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)});
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    v = (threadIdx.x & 31) < SPLIT_THREADS / 32 ? red[threadIdx.x & 31] : ms{-INFINITY, 0.f};
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v = ms_merge(v, ms{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)});
    return v;
}

/* Pass 1: block b reduces chunk (b % chunks) of row (b / chunks) to part[b]. */
__global__ void __launch_bounds__(SPLIT_THREADS)
    softmax_split_stats(const float *__restrict__ in, ms *__restrict__ part, int cols, int chunks)
{
    __shared__ ms red[32];
    const size_t row = blockIdx.x / chunks;
    const int begin = (int)(blockIdx.x % chunks) * SPLIT_CHUNK;
    const int end = min(cols, begin + SPLIT_CHUNK);
    const float *x = in + row * cols;
    ms acc{-INFINITY, 0.f};
    for (int i = begin + threadIdx.x; i < end; i += SPLIT_THREADS)
        acc = ms_merge(acc, ms{__ldg(x + i), 1.f}); /* one element: max x, sum exp(0) */
    acc = block_merge(acc, red);
    if (threadIdx.x == 0)
        part[blockIdx.x] = acc;
}

/* Pass 2: merge the row's partials, then write this block's chunk. */
__global__ void __launch_bounds__(SPLIT_THREADS)
    softmax_split_write(const float *__restrict__ in, const ms *__restrict__ part,
                        float *__restrict__ out, int cols, int chunks)
{
    __shared__ ms red[32];
    const size_t row = blockIdx.x / chunks;
    const int begin = (int)(blockIdx.x % chunks) * SPLIT_CHUNK;
    const int end = min(cols, begin + SPLIT_CHUNK);
    ms acc{-INFINITY, 0.f};
    for (int c = threadIdx.x; c < chunks; c += SPLIT_THREADS)
        acc = ms_merge(acc, part[row * chunks + c]);
    acc = block_merge(acc, red);
    const float inv = 1.f / acc.s;
    const float *x = in + row * cols;
    float *y = out + row * cols;
    for (int i = begin + threadIdx.x; i < end; i += SPLIT_THREADS)
        __stcs(y + i, __expf(__ldcs(x + i) - acc.m) * inv);
}

/* ---- dispatch ---- */

static int aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

__global__ void arch_probe(void) {}

/* Clusters need sm_90, and kernels built for it: PTX for compute_75 runs on an H100 too,
 * with the cluster code compiled out. Compile with -DCL_NO_CLUSTER to time the pre-Hopper
 * path. */
static int device_is_hopper_or_newer(void)
{
#ifdef CL_NO_CLUSTER
    return 0;
#endif
    static int cached = -1;
    if (cached < 0) {
        int dev = 0, major = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
            major = 0;
        cudaFuncAttributes a;
        cached = major >= 9 && cudaFuncGetAttributes(&a, arch_probe) == cudaSuccess && a.ptxVersion >= 90;
    }
    return cached;
}

template <int NV, int VEC>
static void launch_warp(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_warp<NV, VEC><<<(rows + 3) / 4, 128, 0, stream>>>(in, out, rows, cols);
}

template <int THREADS, int NV>
static cudaError_t launch_block(const float *in, float *out, int rows, int cols, int csize,
                                cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3((unsigned)rows * (unsigned)csize);
    cfg.blockDim = dim3(THREADS);
    cfg.stream = stream;
    if (csize > 1) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)csize;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, softmax_block<THREADS, NV>, in, out, cols);
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
        ok = cudaFuncGetAttributes(&a, softmax_rs<T, R, S>) == cudaSuccess && a.ptxVersion >= 80 &&
             cudaFuncSetAttribute(softmax_rs<T, R, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) ==
                     cudaSuccess &&
             cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, softmax_rs<T, R, S>, T, smem) == cudaSuccess &&
             per_sm >= 2;
        cudaGetLastError(); /* a refused attribute is an answer, not an error to report later */
    }
    return ok;
}

template <int T, int R, int S>
static void launch_rs(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    softmax_rs<T, R, S><<<rows, T, S * T * sizeof(float4), stream>>>(in, out, cols);
}

static void launch_split(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    const int chunks = (cols + SPLIT_CHUNK - 1) / SPLIT_CHUNK;
    const size_t blocks = (size_t)rows * chunks;
    ms *part = (ms *)cudalab_scratch(blocks * sizeof(ms));
    if (!part) {
        fprintf(stderr, "softmax: no scratch memory for %zu partials\n", blocks);
        return;
    }
    softmax_split_stats<<<(unsigned)blocks, SPLIT_THREADS, 0, stream>>>(in, part, cols, chunks);
    softmax_split_write<<<(unsigned)blocks, SPLIT_THREADS, 0, stream>>>(in, part, out, cols, chunks);
}

extern "C" void softmax(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    cudaError_t e = cudaSuccess;
    const int vec = cols % 4 == 0 && aligned16(in) && aligned16(out);
    const int n4 = cols / 4;
    const int slice = WIDE_THREADS * WIDE_NV; /* float4 per cluster block */
    if (vec && n4 <= 32)
        launch_warp<1, 4>(in, out, rows, cols, stream);
    else if (vec && n4 <= 64)
        launch_warp<2, 4>(in, out, rows, cols, stream);
    else if (vec && n4 <= 128)
        launch_warp<4, 4>(in, out, rows, cols, stream);
    else if (vec && n4 <= 256)
        launch_warp<8, 4>(in, out, rows, cols, stream);
    else if (!vec && cols <= 32)
        launch_warp<1, 1>(in, out, rows, cols, stream);
    else if (!vec && cols <= 128)
        launch_warp<4, 1>(in, out, rows, cols, stream);
    else if (!vec && cols <= 1024)
        launch_warp<32, 1>(in, out, rows, cols, stream);
    else if (vec && n4 <= 256 * 4)
        e = launch_block<256, 4>(in, out, rows, cols, 1, stream);
    else if (vec && n4 <= 512 * 4)
        e = launch_block<512, 4>(in, out, rows, cols, 1, stream);
    else if (vec && n4 <= 1024 * 4)
        e = launch_block<1024, 4>(in, out, rows, cols, 1, stream);
    else if (vec && n4 <= RS_THREADS * (RS_REG + RS_SMEM) && rs_two_per_sm<RS_THREADS, RS_REG, RS_SMEM>())
        launch_rs<RS_THREADS, RS_REG, RS_SMEM>(in, out, rows, cols, stream);
    else if (vec && n4 <= 1024 * 8) /* GPUs with less shared memory: the row in registers */
        e = launch_block<1024, 8>(in, out, rows, cols, 1, stream);
    else if (vec && device_is_hopper_or_newer() && n4 <= MAX_CLUSTER * slice)
        e = launch_block<WIDE_THREADS, WIDE_NV>(in, out, rows, cols, (n4 + slice - 1) / slice, stream);
    else
        launch_split(in, out, rows, cols, stream);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "softmax: launch failed: %s\n", cudaGetErrorString(e));
}
