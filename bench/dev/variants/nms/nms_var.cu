/* nms_var.cu: candidate versions of reference/nms.cu for issue 17 (10 000 boxes >= 5x
 * torchvision). The same pipeline as the reference (CUB sort, gather, triangular IoU
 * bitmask, one-block scan); what changes is the scan, chosen at compile time:
 *
 *   NMS_ENTRY   the extern "C" name of this build (the harness links several builds)
 *   SCAN_LAG 1  the reference's scan, rewritten warp-specialised (warp 0 = resolver loop,
 *               warps 1.. = bulk loop, the same barrier count): the bulk ORs chunk c - 1's
 *               kept rows at step c and must WAIT for those loads before the barrier, so
 *               every step costs at least one L2 round trip.
 *   SCAN_LAG 2  the bulk loads of chunk c - 1's kept rows are issued at step c and held in
 *               registers (up to SCAN_HOLD rows; the rest are waited for and folded into one
 *               extra word), and ORed into the removed words at step c + 1: their latency
 *               overlaps the barrier and the next resolve. To allow it the resolver carries
 *               two columns: chunk j's kept rows reach columns j + 1 and j + 2 through
 *               registers (words prefetched two chunks ahead), the bulk covers j + 3 and on.
 *   SCAN_SIZED  1: the scan block has 32 + min(992, words rounded to 32) threads (no idle
 *               warps at the barrier), 0: always 1024.
 *
 *   SORT_BLOCK  1: for n <= 16 384 the iota kernel, CUB's DeviceRadixSort (onesweep: a
 *               histogram kernel and four 8-bit passes, each a launch) and the gather kernel
 *               are replaced by ONE kernel of one 1024-thread block: cub::BlockRadixSort of
 *               (key, index), IPT = 4, 8, 10 or 16 keys per thread (the smallest that fits),
 *               key = the score's bits made descending-ordered (CUB's own twiddle, -0 as +0),
 *               sorted stably from the blocked arrangement (index order) to a striped one,
 *               then each thread writes order[], the sorted box and its area, coalesced.
 *               The same order as CUB's device sort, bit for bit. n > 16 384: as before.
 *   MASK_FAST   1: the IoU mask's inner loop rejects a pair with 4 comparisons
 *               (a.x2 > b.x1 && b.x2 > a.x1 && a.y2 > b.y1 && b.y2 > a.y1, which for boxes of
 *               positive width and height is exactly "min - max > 0" on both axes; boxes of
 *               zero or negative width/height are replaced in the tile by a box that never
 *               passes, and a row box of that kind skips the loop), with no per-column range
 *               tests inside the loop (the tile is padded with never-passing boxes and the
 *               word is masked to the columns right of the diagonal and below n once, at the
 *               end). t < 0: every pair suppresses (IoU >= 0 > t), the word is all ones, as
 *               the reference computes it pair by pair. Passing pairs take the reference's
 *               exact decision unchanged.
 * Extra entry points for the harness: NMS_ENTRY_upto(k) stops the pipeline after phase k
 * (1 iota + sort, 2 gather, 3 mask, 4 scan) so the phases can be timed by difference, and
 * NMS_ENTRY_diag(out[4]) runs nothing but returns the cycle counters of the last scan run
 * with diagnostics on (NMS_ENTRY_set_diag(1)): resolver cycles, bulk cycles (warp 1), whole
 * scan cycles, steps. */
#include <cstdint>
#include <cstdio>

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "cudalab_lab.h"

#ifndef NMS_ENTRY
#define NMS_ENTRY nms_var
#endif
#ifndef SCAN_LAG
#define SCAN_LAG 2
#endif
#ifndef SCAN_SIZED
#define SCAN_SIZED 0
#endif
#ifndef SORT_BLOCK
#define SORT_BLOCK 0
#endif
#ifndef MASK_FAST
#define MASK_FAST 0
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

#define CHUNK 64
#define SCAN_THREADS 1024
#define SCAN_INFLIGHT 8
#define SCAN_HOLD 8 /* rows held in registers across a barrier (lag 2) */

typedef unsigned long long u64;

namespace {

size_t align_up(size_t v) { return (v + 255) & ~(size_t)255; }

__global__ void iota_kernel(int *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        idx[i] = i;
}

__device__ __forceinline__ float area_of(float4 b)
{
    return __fmul_rn(fmaxf(__fsub_rn(b.z, b.x), 0.0f), fmaxf(__fsub_rn(b.w, b.y), 0.0f));
}

__global__ void gather_kernel(const float *__restrict__ boxes, const int *__restrict__ order,
                              float4 *__restrict__ sboxes, float *__restrict__ sarea, int n)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n) {
        const float *p = boxes + 4 * (size_t)order[r];
        float4 b = make_float4(p[0], p[1], p[2], p[3]);
        sboxes[r] = b;
        sarea[r] = area_of(b);
    }
}

__device__ __forceinline__ bool overlap_suppresses(float iw, float ih, float aa, float ab, float t,
                                                   float margin)
{
    float inter = __fmul_rn(iw, ih);
    float uni = __fsub_rn(__fadd_rn(aa, ab), inter);
    float d = fmaf(-t, uni, inter);
    if (fabsf(d) > __fmul_rn(margin, uni) && uni >= 0x1p-60f)
        return d > 0.0f;
    float iou = uni > 0.0f ? __fdiv_rn(inter, uni) : 0.0f;
    return iou > t;
}

__global__ void __launch_bounds__(CHUNK)
mask_kernel(const float4 *__restrict__ sboxes, const float *__restrict__ sarea, int n,
            int words, float t, float margin, u64 *__restrict__ mask)
{
    long long L = blockIdx.x;
    int cb = (int)((sqrt(8.0 * (double)L + 1.0) - 1.0) * 0.5);
    while ((long long)cb * (cb + 1) / 2 > L) cb--;
    while ((long long)(cb + 1) * (cb + 2) / 2 <= L) cb++;
    int rb = (int)(L - (long long)cb * (cb + 1) / 2);

    __shared__ float4 cbox[CHUNK];
    __shared__ float carea[CHUNK];
    int col0 = cb * CHUNK, ncols = min(CHUNK, n - col0);
    if ((int)threadIdx.x < ncols) {
        cbox[threadIdx.x] = sboxes[col0 + threadIdx.x];
        carea[threadIdx.x] = sarea[col0 + threadIdx.x];
    }
    __syncthreads();
    int r = rb * CHUNK + threadIdx.x;
    if (r >= n)
        return;
    const float4 a = sboxes[r];
    const float aa = sarea[r];
    const bool empty = 0.0f > t;
    const int k0 = (rb == cb) ? (int)threadIdx.x + 1 : 0;
    u64 bits = 0;
#pragma unroll
    for (int k = 0; k < CHUNK; k++) {
        if (k >= k0 && k < ncols) {
            const float4 b = cbox[k];
            float iw = __fsub_rn(fminf(a.z, b.z), fmaxf(a.x, b.x));
            float ih = __fsub_rn(fminf(a.w, b.w), fmaxf(a.y, b.y));
            bool hit = (iw > 0.0f && ih > 0.0f) ? overlap_suppresses(iw, ih, aa, carea[k], t, margin)
                                                : empty;
            if (hit)
                bits |= 1ull << k;
        }
    }
    mask[(size_t)r * words + cb] = bits;
}

/* MASK_FAST: see the header. Same triangular block order and output as mask_kernel. */
__global__ void __launch_bounds__(CHUNK)
mask_kernel_fast(const float4 *__restrict__ sboxes, const float *__restrict__ sarea, int n,
                 int words, float t, float margin, u64 *__restrict__ mask)
{
    long long L = blockIdx.x;
    int cb = (int)((sqrt(8.0 * (double)L + 1.0) - 1.0) * 0.5);
    while ((long long)cb * (cb + 1) / 2 > L) cb--;
    while ((long long)(cb + 1) * (cb + 2) / 2 <= L) cb++;
    int rb = (int)(L - (long long)cb * (cb + 1) / 2);

    __shared__ float4 cbox[CHUNK];
    __shared__ float carea[CHUNK];
    const int col0 = cb * CHUNK, ncols = min(CHUNK, n - col0);
    {
        const int k = threadIdx.x;
        float4 b = make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY); /* never passes */
        float ab = 0.0f;
        if (k < ncols) {
            const float4 q = sboxes[col0 + k];
            if (q.z > q.x && q.w > q.y) {
                b = q;
                ab = sarea[col0 + k];
            }
        }
        cbox[k] = b;
        carea[k] = ab;
    }
    __syncthreads();
    const int r = rb * CHUNK + threadIdx.x;
    if (r >= n)
        return;
    const float4 a = sboxes[r];
    const float aa = sarea[r];
    u64 bits = 0;
    if (a.z > a.x && a.w > a.y) {
#pragma unroll
        for (int k = 0; k < CHUNK; k++) {
            const float4 b = cbox[k];
            if (a.z > b.x && b.z > a.x && a.w > b.y && b.w > a.y) { /* rare: they intersect */
                const float iw = __fsub_rn(fminf(a.z, b.z), fmaxf(a.x, b.x));
                const float ih = __fsub_rn(fminf(a.w, b.w), fmaxf(a.y, b.y));
                if (overlap_suppresses(iw, ih, aa, carea[k], t, margin))
                    bits |= 1ull << k;
            }
        }
    }
    if (0.0f > t) /* IoU >= 0 > t for every pair, intersecting or not */
        bits = ~0ull;
    /* only the columns ranked below r (the diagonal tile) and below n */
    const int k0 = (rb == cb) ? (int)threadIdx.x + 1 : 0;
    u64 keep_cols = ncols == 64 ? ~0ull : ((1ull << ncols) - 1);
    keep_cols &= k0 >= 64 ? 0ull : (~0ull << k0);
    mask[(size_t)r * words + cb] = bits & keep_cols;
}

/* SORT_BLOCK: the score as a key that sorts descending when sorted ascending: CUB's
 * float twiddle (-0 as +0), inverted */
__device__ __forceinline__ unsigned desc_key(float s)
{
    unsigned u = __float_as_uint(s);
    if (u == 0x80000000u)
        u = 0;
    const unsigned ord = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ~ord;
}

#define SORT_THREADS 1024
template <int IPT>
using block_sorter = cub::BlockRadixSort<unsigned, SORT_THREADS, IPT, int>;

/* one block: sort n <= 1024 * IPT scores with their indices, then gather the boxes */
template <int IPT>
__global__ void __launch_bounds__(SORT_THREADS)
block_sort_gather_kernel(const float *__restrict__ scores, const float *__restrict__ boxes, int n,
                         int *__restrict__ order, float4 *__restrict__ sboxes, float *__restrict__ sarea)
{
    extern __shared__ __align__(16) unsigned char sort_smem[];
    typename block_sorter<IPT>::TempStorage &tmp =
        *reinterpret_cast<typename block_sorter<IPT>::TempStorage *>(sort_smem);
    unsigned keys[IPT];
    int vals[IPT];
#pragma unroll
    for (int i = 0; i < IPT; i++) { /* blocked: thread t holds indices t * IPT .. */
        const int idx = threadIdx.x * IPT + i;
        keys[i] = idx < n ? desc_key(scores[idx]) : 0xffffffffu; /* padding sorts last */
        vals[i] = idx;
    }
    block_sorter<IPT>(tmp).SortBlockedToStriped(keys, vals);
#pragma unroll
    for (int i = 0; i < IPT; i++) { /* striped: position i * 1024 + t */
        const int pos = i * SORT_THREADS + threadIdx.x;
        if (pos < n) {
            const int o = vals[i];
            const float *p = boxes + 4 * (size_t)o;
            const float4 b = make_float4(p[0], p[1], p[2], p[3]);
            order[pos] = o;
            sboxes[pos] = b;
            sarea[pos] = area_of(b);
        }
    }
}

/* resolver registers of one chunk: for rows lane and lane + 32, the words of columns c
 * (d), c + 1 (x) and, with lag 2, c + 2 (y), and the original index */
struct chunk_regs {
    u64 d0, d1, x0, x1;
#if SCAN_LAG == 2
    u64 y0, y1;
#endif
};

__device__ __forceinline__ void prefetch_chunk(chunk_regs &s, const u64 *__restrict__ mask,
                                               const int *__restrict__ order, int n, int words,
                                               int c, int lane)
{
    if (c >= words)
        return;
    const int r0 = c * CHUNK + lane, r1 = r0 + 32;
    const bool nx = c + 1 < words;
    const u64 *m0 = mask + (size_t)r0 * words + c, *m1 = mask + (size_t)r1 * words + c;
    s.d0 = r0 < n ? m0[0] : 0;
    s.d1 = r1 < n ? m1[0] : 0;
    s.x0 = (r0 < n && nx) ? m0[1] : 0;
    s.x1 = (r1 < n && nx) ? m1[1] : 0;
#if SCAN_LAG == 2
    const bool ny = c + 2 < words;
    s.y0 = (r0 < n && ny) ? m0[2] : 0;
    s.y1 = (r1 < n && ny) ? m1[2] : 0;
#endif
}

__device__ __forceinline__ u64 warp_or(u64 v)
{
#if __CUDA_ARCH__ >= 800
    return ((u64)__reduce_or_sync(0xffffffffu, (unsigned)(v >> 32)) << 32) |
           __reduce_or_sync(0xffffffffu, (unsigned)v);
#else
    for (int o = 16; o > 0; o >>= 1)
        v |= __shfl_xor_sync(0xffffffffu, v, o);
    return v;
#endif
}

struct scan_shared {
    int krows[2][CHUNK];
    int kcount[2];
    int total;
};

struct resolver_state {
    u64 carry_a; /* column c from chunk c - 1 */
    u64 carry_b; /* column c from chunk c - 2 (lag 2) */
    u64 pend_y;  /* column c + 1 from chunk c - 1 (lag 2) */
    int total;
};

__device__ __forceinline__ void block_barrier() { __syncthreads(); }

/* warp 0, one chunk */
__device__ __forceinline__ void resolve_step(int c, chunk_regs &cur, chunk_regs &ahead,
                                             const u64 *__restrict__ mask, const int *__restrict__ order,
                                             int n, int words, int *__restrict__ keep, const u64 *removed,
                                             scan_shared &sh, resolver_state &st, unsigned &cyc)
{
    const int lane = threadIdx.x & 31;
    const unsigned t0 = (unsigned)clock();
    const int rows = min(CHUNK, n - c * CHUNK);
    const u64 valid = rows == 64 ? ~0ull : ((1ull << rows) - 1);
    u64 dead = removed[c] | st.carry_a | st.carry_b;
    u64 alive = valid & ~dead, kept = 0;
    while (alive) {
        const int k = __ffsll((long long)alive) - 1;
        kept |= 1ull << k;
        dead |= __shfl_sync(0xffffffffu, k < 32 ? cur.d0 : cur.d1, k & 31);
        alive = valid & ~dead & ~((2ull << k) - 1);
    }
    const bool k0 = (kept >> lane) & 1, k1 = (kept >> (lane + 32)) & 1;
    st.carry_a = warp_or((k0 ? cur.x0 : 0) | (k1 ? cur.x1 : 0));
#if SCAN_LAG == 2
    st.carry_b = st.pend_y;
    st.pend_y = warp_or((k0 ? cur.y0 : 0) | (k1 ? cur.y1 : 0));
#endif
    const int p0 = __popcll(kept & ((1ull << lane) - 1));
    const int p1 = __popcll(kept & ((1ull << (lane + 32)) - 1));
    if (k0) { /* the sorted row; turned into the original index at the end of the scan */
        keep[st.total + p0] = c * CHUNK + lane;
        sh.krows[c & 1][p0] = c * CHUNK + lane;
    }
    if (k1) {
        keep[st.total + p1] = c * CHUNK + lane + 32;
        sh.krows[c & 1][p1] = c * CHUNK + lane + 32;
    }
    st.total += __popcll(kept);
    if (lane == 0)
        sh.kcount[c & 1] = __popcll(kept);
    prefetch_chunk(ahead, mask, order, n, words, c + 2, lane);
    cyc += (unsigned)clock() - t0;
    block_barrier();
}

/* the bulk warps (1..): one barrier per chunk, as many as the resolver */
__device__ __forceinline__ void bulk_loop(const u64 *__restrict__ mask, int n, int words, u64 *removed,
                                          scan_shared &sh, u64 *__restrict__ diag)
{
    const int tid = threadIdx.x, nthreads = blockDim.x;
    const int bt = tid - 32, bn = nthreads - 32;
    unsigned cyc = 0;
    block_barrier();
#if SCAN_LAG == 1
    for (int c = 0; c < words; c++) {
        const unsigned t0 = (unsigned)clock();
        if (c > 0) {
            const int kc = sh.kcount[(c - 1) & 1];
            const int *rows = sh.krows[(c - 1) & 1];
            for (int w = c + 1 + bt; kc > 0 && w < words; w += bn) {
                u64 acc = 0;
                for (int q = 0; q < kc; q += SCAN_INFLIGHT) {
                    u64 v[SCAN_INFLIGHT];
#pragma unroll
                    for (int u = 0; u < SCAN_INFLIGHT; u++)
                        v[u] = (q + u < kc) ? mask[(size_t)rows[q + u] * words + w] : 0;
#pragma unroll
                    for (int u = 0; u < SCAN_INFLIGHT; u++)
                        acc |= v[u];
                }
                removed[w] |= acc;
            }
        }
        cyc += (unsigned)clock() - t0;
        block_barrier();
    }
#else
    /* held loads: chunk c - 1's kept rows at word hw, issued at step c, ORed at step c + 1 */
    u64 h[SCAN_HOLD];
    u64 hextra = 0;
    int hw = -1;
#pragma unroll
    for (int u = 0; u < SCAN_HOLD; u++)
        h[u] = 0;
    for (int c = 0; c < words; c++) {
        const unsigned t0 = (unsigned)clock();
        if (hw >= 0) { /* the loads of the step before, landed during the barrier */
            u64 acc = hextra;
#pragma unroll
            for (int u = 0; u < SCAN_HOLD; u++)
                acc |= h[u];
            removed[hw] |= acc;
            hw = -1;
        }
        if (c > 0) {
            const int kc = sh.kcount[(c - 1) & 1];
            const int *rows = sh.krows[(c - 1) & 1];
            const int w0 = c + 2; /* columns c and c + 1 come through the resolver's carries */
            if (kc > 0 && w0 < words) {
                if (words - w0 <= bn) { /* one word per thread: hold the loads */
                    const int w = w0 + bt;
                    if (w < words) {
#pragma unroll
                        for (int u = 0; u < SCAN_HOLD; u++)
                            h[u] = u < kc ? mask[(size_t)rows[u] * words + w] : 0;
                        u64 acc = 0; /* rows past SCAN_HOLD: waited for here */
                        for (int q = SCAN_HOLD; q < kc; q += SCAN_INFLIGHT) {
                            u64 v[SCAN_INFLIGHT];
#pragma unroll
                            for (int u = 0; u < SCAN_INFLIGHT; u++)
                                v[u] = (q + u < kc) ? mask[(size_t)rows[q + u] * words + w] : 0;
#pragma unroll
                            for (int u = 0; u < SCAN_INFLIGHT; u++)
                                acc |= v[u];
                        }
                        hextra = acc;
                        hw = w;
                    }
                } else { /* long rows: as lag 1 (waited for in this step) */
                    for (int w = w0 + bt; w < words; w += bn) {
                        u64 acc = 0;
                        for (int q = 0; q < kc; q += SCAN_INFLIGHT) {
                            u64 v[SCAN_INFLIGHT];
#pragma unroll
                            for (int u = 0; u < SCAN_INFLIGHT; u++)
                                v[u] = (q + u < kc) ? mask[(size_t)rows[q + u] * words + w] : 0;
#pragma unroll
                            for (int u = 0; u < SCAN_INFLIGHT; u++)
                                acc |= v[u];
                        }
                        removed[w] |= acc;
                    }
                }
            }
        }
        cyc += (unsigned)clock() - t0;
        block_barrier();
    }
#endif
    if (tid == 32 && diag)
        diag[1] = (u64)cyc;
}

__global__ void __launch_bounds__(SCAN_THREADS)
scan_kernel(const u64 *__restrict__ mask, const int *__restrict__ order, int n, int words,
            int *__restrict__ keep, int *__restrict__ num_kept, u64 *__restrict__ diag)
{
    extern __shared__ u64 removed[];
    __shared__ scan_shared sh;
    const int tid = threadIdx.x, lane = tid & 31, nthreads = blockDim.x;
    const unsigned tstart = (unsigned)clock();
    for (int w = tid; w < words; w += nthreads)
        removed[w] = 0;
    if (tid < 32) {
        chunk_regs s0, s1, s2;
        resolver_state st = {0, 0, 0, 0};
        unsigned cyc = 0;
        prefetch_chunk(s0, mask, order, n, words, 0, lane);
        prefetch_chunk(s1, mask, order, n, words, 1, lane);
        block_barrier();
        for (int c = 0; c < words; c += 3) {
            resolve_step(c, s0, s2, mask, order, n, words, keep, removed, sh, st, cyc);
            if (c + 1 < words)
                resolve_step(c + 1, s1, s0, mask, order, n, words, keep, removed, sh, st, cyc);
            if (c + 2 < words)
                resolve_step(c + 2, s2, s1, mask, order, n, words, keep, removed, sh, st, cyc);
        }
        if (tid == 0) {
            *num_kept = st.total;
            sh.total = st.total;
            if (diag) {
                diag[0] = (u64)cyc;
                diag[2] = (u64)((unsigned)clock() - tstart);
                diag[3] = (u64)words;
            }
        }
    } else {
        bulk_loop(mask, n, words, removed, sh, diag);
    }
    /* keep[] holds sorted rows: the original indices, in parallel, off the sequential path */
    __syncthreads();
    const int total = sh.total;
    for (int i = tid; i < total; i += nthreads)
        keep[i] = order[keep[i]];
}

void report(const char *what, cudaError_t err)
{
    if (err != cudaSuccess)
        fprintf(stderr, "nms: %s: %s\n", what, cudaGetErrorString(err));
}

template <int IPT>
void launch_block_sort(const float *scores, const float *boxes, int n, int *order, float4 *sboxes,
                       float *sarea, cudaStream_t stream)
{
    const int smem = (int)sizeof(typename block_sorter<IPT>::TempStorage);
    static bool attr = false; /* once per instantiation (one device in the harness) */
    if (!attr && smem > 48 * 1024) {
        report("sort smem", cudaFuncSetAttribute(block_sort_gather_kernel<IPT>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        attr = true;
    }
    block_sort_gather_kernel<IPT><<<1, SORT_THREADS, smem, stream>>>(scores, boxes, n, order, sboxes, sarea);
    report("block sort", cudaPeekAtLastError());
}

int g_upto = 4;
u64 *g_diag = nullptr;
bool g_want_diag = false;

} // namespace

extern "C" void CAT(NMS_ENTRY, _upto)(int k) { g_upto = k; }
extern "C" void CAT(NMS_ENTRY, _set_diag)(int on)
{
    g_want_diag = on != 0;
    if (on && !g_diag) {
        report("diag alloc", cudaMalloc(&g_diag, 4 * sizeof(u64)));
        report("diag zero", cudaMemset(g_diag, 0, 4 * sizeof(u64)));
    }
}
extern "C" void CAT(NMS_ENTRY, _diag)(unsigned long long out[4])
{
    out[0] = out[1] = out[2] = out[3] = 0;
    if (g_diag)
        report("diag copy", cudaMemcpy(out, g_diag, 4 * sizeof(u64), cudaMemcpyDeviceToHost));
}

extern "C" void NMS_ENTRY(const float *boxes, const float *scores, int n, float iou_threshold,
                          int *keep, int *num_kept, cudaStream_t stream)
{
    if (n <= 0) {
        report("memset", cudaMemsetAsync(num_kept, 0, sizeof(int), stream));
        return;
    }
    const int words = (n + CHUNK - 1) / CHUNK;
    const size_t smem = (size_t)words * sizeof(u64);
    if (smem > 227 * 1024) {
        fprintf(stderr, "nms: n = %d needs a %zu-byte removed mask, more than shared memory\n", n, smem);
        return;
    }
    size_t sort_bytes = 0;
    report("sort size", cub::DeviceRadixSort::SortPairsDescending(
                            nullptr, sort_bytes, (const float *)nullptr, (float *)nullptr,
                            (const int *)nullptr, (int *)nullptr, n, 0, 32, stream));
    const size_t b_keys = align_up((size_t)n * 4), b_idx = align_up((size_t)n * 4),
                 b_boxes = align_up((size_t)n * 16), b_mask = align_up((size_t)n * words * 8);
    char *p = (char *)cudalab_scratch(b_keys + 2 * b_idx + b_boxes + b_keys + b_mask + align_up(sort_bytes));
    if (!p) {
        fprintf(stderr, "nms: no scratch memory for n = %d\n", n);
        return;
    }
    float *keys_out = (float *)p;        p += b_keys;
    int *idx_in = (int *)p;              p += b_idx;
    int *idx_out = (int *)p;             p += b_idx;
    float4 *sboxes = (float4 *)p;        p += b_boxes;
    float *sarea = (float *)p;           p += b_keys;
    u64 *mask = (u64 *)p;                p += b_mask;
    void *sort_tmp = p;

    const int T = 256, blocks = (n + T - 1) / T;
    if (SORT_BLOCK && n <= SORT_THREADS * 16) { /* sort + gather in one block (phases 1 and 2) */
        if (n <= SORT_THREADS * 4)
            launch_block_sort<4>(scores, boxes, n, idx_out, sboxes, sarea, stream);
        else if (n <= SORT_THREADS * 8)
            launch_block_sort<8>(scores, boxes, n, idx_out, sboxes, sarea, stream);
        else if (n <= SORT_THREADS * 10)
            launch_block_sort<10>(scores, boxes, n, idx_out, sboxes, sarea, stream);
        else
            launch_block_sort<16>(scores, boxes, n, idx_out, sboxes, sarea, stream);
        if (g_upto < 3)
            return;
    } else {
        iota_kernel<<<blocks, T, 0, stream>>>(idx_in, n);
        report("iota", cudaPeekAtLastError());
        report("sort", cub::DeviceRadixSort::SortPairsDescending(sort_tmp, sort_bytes, scores, keys_out,
                                                                  idx_in, idx_out, n, 0, 32, stream));
        if (g_upto < 2)
            return;
        gather_kernel<<<blocks, T, 0, stream>>>(boxes, idx_out, sboxes, sarea, n);
        report("gather", cudaPeekAtLastError());
        if (g_upto < 3)
            return;
    }
    const float margin = fmaxf(fabsf(iou_threshold) * 0x1p-22f, 0x1p-60f);
    const long long tri = (long long)words * (words + 1) / 2;
    if (MASK_FAST)
        mask_kernel_fast<<<(unsigned)tri, CHUNK, 0, stream>>>(sboxes, sarea, n, words, iou_threshold, margin, mask);
    else
        mask_kernel<<<(unsigned)tri, CHUNK, 0, stream>>>(sboxes, sarea, n, words, iou_threshold, margin, mask);
    report("mask", cudaPeekAtLastError());
    if (g_upto < 4)
        return;
    if (smem > 48 * 1024)
        report("smem", cudaFuncSetAttribute(scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
#if SCAN_SIZED
    int threads = 32 + ((words + 31) / 32) * 32;
    if (threads > SCAN_THREADS)
        threads = SCAN_THREADS;
#else
    const int threads = SCAN_THREADS;
#endif
    scan_kernel<<<1, threads, smem, stream>>>(mask, idx_out, n, words, keep, num_kept,
                                              g_want_diag ? g_diag : nullptr);
    report("scan", cudaPeekAtLastError());
}
