/* reference/nms.cu: greedy non-maximum suppression, exact.
 *
 * Greedy NMS looks sequential: box r survives only if no SURVIVING box ranked above it
 * overlaps it by more than t, and whether those survive depends on the boxes above them.
 * The classic GPU answer splits it into a parallel part and a cheap sequential part:
 *
 * 1. Sort by score, descending, equal scores by ascending index (the tie rule), and write
 *    the boxes in that order with their areas, so the n^2/2 tests read contiguous memory.
 *    a. n <= 16 384 (the 10 000-box bench): ONE kernel of one 1024-thread block,
 *       cub::BlockRadixSort of (key, index) with 4, 8, 10 or 16 keys per thread, the
 *       smallest that holds n. The key is the score's bits twiddled so that an ascending
 *       unsigned sort is CUB's descending float order (-0 as +0, as CUB does); the keys
 *       are loaded blocked (thread i holds indices i * IPT ..), so the stable sort keeps
 *       equal scores in index order, and sorted to a striped arrangement, so each thread
 *       then writes order[], the sorted box and its area coalesced. Why: CUB's device
 *       sort is an iota kernel plus a histogram kernel and four 8-bit onesweep passes,
 *       and at 10 000 keys each launch is mostly latency; one block does the whole sort
 *       in shared memory. The same order as the device sort, bit for bit. The 16-key
 *       case (10 241 .. 16 384) spills a little (1024 threads leave 64 registers each)
 *       and needs 66 KB of shared memory: a GPU that cannot give a block that much
 *       (sm_75: 64 KB) takes path b there.
 *    b. larger n: CUB DeviceRadixSort::SortPairsDescending on (score, index) (radix sort
 *       is stable: the tie rule for free), then a gather kernel.
 * 2. The IoU bitmask, in parallel: mask[r][w] bit k = 1 when sorted box r overlaps sorted
 *    box 64w + k (ranked below r) by IoU > t. Only the upper triangle (64w + k > r) is
 *    computed: n^2/2 tests, 1.25e9 at n = 50 000, all independent. One block of 64
 *    threads per (row chunk, column chunk) with cb >= rb, enumerated triangularly so no
 *    block is launched only to exit; the 64 column boxes sit in shared memory and every
 *    thread reads the same one at a time (a broadcast, no bank conflict). Most pairs do
 *    not overlap at all, so the inner loop is made cheap for them: a pair is rejected
 *    with 4 comparisons (a.x2 > b.x1 && b.x2 > a.x1 && a.y2 > b.y1 && b.y2 > a.y1, which
 *    for boxes of positive width and height is exactly "min - max > 0" on both axes),
 *    and there is no per-column range test inside the fully unrolled loop: the tile is
 *    padded with a box that never passes (also standing in for boxes of zero or negative
 *    width or height, which intersect nothing), and the word is masked once at the end
 *    to the columns ranked below r and below n. Only intersecting pairs compute the
 *    union and the decision.
 * 3. The scan, sequential but small, in ONE block on the GPU (no copy of the 313 MB mask
 *    to the host, no host round trip): the removed-set is a bitmask in shared memory, and
 *    boxes are taken 64 at a time (one mask word), ONE __syncthreads per chunk. The block
 *    is split by warp into two loops that only meet at that barrier:
 *      a. warp 0 (the resolver) decides chunk c: starting from removed[c] it walks only
 *         the candidates still alive (find-first-set), marks each kept and ORs in its
 *         diagonal word (which boxes of the same chunk it removes). The diagonal word and
 *         the next word (column c + 1) of every row of the chunk are prefetched into
 *         registers two chunks ahead (a 3-deep register ring, the loop unrolled by 3 so no
 *         register is ever copied while its load is in flight), and read with a warp
 *         shuffle: no memory latency on the sequential path. The kept rows' next words,
 *         ORed with a warp reduction, are column c + 1's contribution from chunk c: warp 0
 *         keeps it in a register for the next chunk. It records SORTED rows in keep[]; the
 *         original indices are looked up once at the end by the whole block (one gather
 *         in parallel instead of a dependent load per chunk on the sequential path).
 *      b. meanwhile the other warps OR the mask rows of chunk c - 1's kept boxes into the
 *         removed words c + 1 and beyond, coalesced, several rows in flight per thread.
 *         This lags one chunk behind on purpose: it overlaps the resolver instead of
 *         waiting for it, and it only has to be done by the barrier, because the first
 *         word it writes, c + 1, is read by the next chunk (with the carry from a.).
 *    The block has 32 + (words rounded up to 32) threads, at most 1024: one bulk thread
 *    per word to the right is enough, and every idle warp would still cost time at each
 *    of the n / 64 barriers.
 *    Rows of removed boxes are never read: the "skip dead rows" that makes the scan cost
 *    O(kept * n / 64) words instead of O(n^2 / 64).
 *
 * Measured (H100, variant harness, 2026-11-26, in git 574df88; its build "sm" = this
 * file): 10 000 boxes 0.2486 ms = 6.56x torchvision.ops.nms (1.6301 ms); the version
 * before (device sort, the mask loop with a range test and min/max per column) took
 * 0.2848 ms (5.72x); the one-block sort alone gives 0.2645, the cheaper mask alone 0.2694.
 * Where the time goes at 10 000: sort + gather 0.0411 ms, IoU mask 0.0435, scan 0.1633.
 * 50 000 boxes (device sort): 1.9162 ms = 14.64x torchvision (28.05 ms), was 2.3878 ms
 * (11.75x); mask 0.8515 ms, scan 0.9989 ms. The scan is now the larger part at both sizes:
 * about 1.04 us per 64-box chunk at 10 000 (157 chunks), almost all of it the resolver's
 * dependent chain.
 *
 * Exactness: the decision is the README's fp32 formula, IoU = inter / union > t with
 * inter and union rounded exactly as specified (__fmul_rn etc., no FMA contraction). To
 * avoid a division per pair, the kernel first takes d = fma(-t, union, inter), whose sign
 * is the sign of inter - t * union exactly (one rounding); when |d| is clearly away from 0
 * (more than 2^-22 * t * union) that sign IS the decision of the fp32 formula, and only
 * the rare pairs within that margin fall back to the IEEE division. Pairs that do not
 * intersect have IoU 0: suppressed only when t < 0, where every pair is (IoU >= 0 > t).
 *
 * Build: nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -cudart shared -I labs/include reference/nms.cu
 *
 * Which path runs where: sm_80 and newer OR the mask words over a warp with redux.sync
 * (__reduce_or_sync); sm_75 with a butterfly of shuffles (warp_or below). The one-block
 * sort runs wherever the block's shared memory fits the device's opt-in limit (up to
 * 16 384 boxes on sm_80 and newer, up to 10 240 on sm_75); the rest is the same on every
 * GPU. */
#include <cstdint>
#include <cstdio>

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "cudalab_lab.h"

#define CHUNK 64            /* boxes per mask word */
#define SCAN_THREADS 1024
#define SCAN_INFLIGHT 8     /* mask rows loaded per thread before they are ORed */
#define SORT_THREADS 1024   /* the one-block sort (step 1a) */
#define SORT_BLOCK_MAX (SORT_THREADS * 16)

typedef unsigned long long u64;

static size_t align_up(size_t v) { return (v + 255) & ~(size_t)255; }

/* 1b. larger n: the indices 0 .. n - 1, the values CUB's device sort carries along */
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

/* 1a. n <= 16 384: the score as a key that sorts DESCENDING when sorted ascending:
 * CUB's float twiddle (sign bit flipped for positives, all bits for negatives, -0 taken
 * as +0 as CUB does), inverted. Equal scores give equal keys, so the stable sort keeps
 * them in index order, exactly as the device sort of 1b. */
__device__ __forceinline__ unsigned desc_key(float s)
{
    unsigned u = __float_as_uint(s);
    if (u == 0x80000000u)
        u = 0;
    const unsigned ord = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ~ord;
}

template <int IPT>
using block_sorter = cub::BlockRadixSort<unsigned, SORT_THREADS, IPT, int>;

/* One block sorts n <= 1024 * IPT (key, index) pairs in shared memory and writes the
 * order, the sorted boxes and their areas: iota, sort and gather in one launch. */
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
    for (int i = 0; i < IPT; i++) { /* blocked: thread t holds indices t * IPT .. t * IPT + IPT - 1 */
        const int idx = threadIdx.x * IPT + i;
        keys[i] = idx < n ? desc_key(scores[idx]) : 0xffffffffu; /* padding sorts last */
        vals[i] = idx;
    }
    block_sorter<IPT>(tmp).SortBlockedToStriped(keys, vals);
#pragma unroll
    for (int i = 0; i < IPT; i++) { /* striped: rank i * 1024 + t, so the writes coalesce */
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

/* 1b. larger n, after CUB's device sort: the sorted boxes and their areas. */
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

/* The README's fp32 decision IoU(a, b) > t, exactly (see the header comment), for two
 * boxes whose intersection is not empty (iw, ih > 0 already computed). */
__device__ __forceinline__ bool overlap_suppresses(float iw, float ih, float aa, float ab, float t,
                                                   float margin)
{
    float inter = __fmul_rn(iw, ih);
    float uni = __fsub_rn(__fadd_rn(aa, ab), inter);
    float d = fmaf(-t, uni, inter);    /* sign(inter - t * union), exact */
    if (fabsf(d) > __fmul_rn(margin, uni) && uni >= 0x1p-60f)
        return d > 0.0f;
    float iou = uni > 0.0f ? __fdiv_rn(inter, uni) : 0.0f; /* rare: within the margin */
    return iou > t;
}

/* 2. Block (rb, cb), cb >= rb, from a triangular index: L = cb (cb + 1) / 2 + rb. Thread
 * k owns sorted row rb * 64 + k and tests it against the 64 boxes of column chunk cb. */
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
    const int col0 = cb * CHUNK, ncols = min(CHUNK, n - col0);
    { /* the column tile; past n and for boxes of no width or height: a box that never passes */
        const int k = threadIdx.x;
        float4 b = make_float4(INFINITY, INFINITY, -INFINITY, -INFINITY);
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
    if (a.z > a.x && a.w > a.y) { /* a box of no width or height intersects nothing */
        /* fully unrolled: every bit position is a constant; 4 comparisons reject a pair */
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
    /* only the columns ranked below r (right of the diagonal in tile rb == cb) and below n */
    const int k0 = (rb == cb) ? (int)threadIdx.x + 1 : 0;
    u64 cols = ncols == 64 ? ~0ull : ((1ull << ncols) - 1);
    cols &= k0 >= 64 ? 0ull : (~0ull << k0);
    mask[(size_t)r * words + cb] = bits & cols;
}

/* 3. The scan. What the resolver (warp 0) holds for one chunk: for rows lane and lane + 32, the
 * diagonal word (column c) and the next word (column c + 1). */
struct chunk_regs {
    u64 d0, d1, x0, x1;
};

__device__ __forceinline__ void prefetch_chunk(chunk_regs &s, const u64 *__restrict__ mask, int n,
                                               int words, int c, int lane)
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
}

/* OR of a 64-bit value over the warp: the sm_80+ redux instruction on each half, or a
 * butterfly of shuffles on older GPUs. */
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
    int krows[2][CHUNK]; /* kept rows of a chunk, double-buffered by chunk parity */
    int kcount[2];
    int total;
};

/* Warp 0, chunk c: resolve it with the registers `cur`, refill `ahead` with chunk c + 2,
 * then the chunk's barrier. keep[] receives SORTED rows here; the original indices are
 * looked up once at the end, in parallel, so the sequential path never waits on order[]. */
__device__ __forceinline__ void resolve_step(int c, chunk_regs &cur, chunk_regs &ahead,
                                             const u64 *__restrict__ mask, int n, int words,
                                             int *__restrict__ keep, const u64 *removed,
                                             scan_shared &sh, u64 &carry, int &total)
{
    const int lane = threadIdx.x & 31;
    const int rows = min(CHUNK, n - c * CHUNK);
    const u64 valid = rows == 64 ? ~0ull : ((1ull << rows) - 1);
    u64 dead = removed[c] | carry;
    u64 alive = valid & ~dead, kept = 0;
    while (alive) { /* only surviving candidates are visited */
        const int k = __ffsll((long long)alive) - 1;
        kept |= 1ull << k;
        dead |= __shfl_sync(0xffffffffu, k < 32 ? cur.d0 : cur.d1, k & 31);
        alive = valid & ~dead & ~((2ull << k) - 1); /* candidates after k */
    }
    /* column c + 1's contribution of chunk c: OR of the kept rows' next words */
    const bool k0 = (kept >> lane) & 1, k1 = (kept >> (lane + 32)) & 1;
    carry = warp_or((k0 ? cur.x0 : 0) | (k1 ? cur.x1 : 0));
    /* the kept rows, in rank order: for the output and for the bulk warps */
    const int p0 = __popcll(kept & ((1ull << lane) - 1));
    const int p1 = __popcll(kept & ((1ull << (lane + 32)) - 1));
    if (k0) {
        keep[total + p0] = c * CHUNK + lane;
        sh.krows[c & 1][p0] = c * CHUNK + lane;
    }
    if (k1) {
        keep[total + p1] = c * CHUNK + lane + 32;
        sh.krows[c & 1][p1] = c * CHUNK + lane + 32;
    }
    total += __popcll(kept);
    if (lane == 0)
        sh.kcount[c & 1] = __popcll(kept);
    prefetch_chunk(ahead, mask, n, words, c + 2, lane);
    __syncthreads();
}

/* Warps 1..: at chunk c, OR the mask rows of chunk c - 1's kept boxes into the removed
 * words c + 1 and beyond (column c came through the resolver's carry), then the barrier:
 * exactly as many barriers as the resolver. */
__device__ __forceinline__ void bulk_loop(const u64 *__restrict__ mask, int words, u64 *removed,
                                          const scan_shared &sh)
{
    const int bt = threadIdx.x - 32, bn = blockDim.x - 32;
    __syncthreads();
    for (int c = 0; c < words; c++) {
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
        __syncthreads();
    }
}

/* One block walks the chunks in rank order; removed[] lives in shared memory. The block
 * has 32 + (words rounded up to a warp, at most SCAN_THREADS - 32) threads: one bulk
 * thread per word to the right, no idle warps waiting at every barrier. */
__global__ void __launch_bounds__(SCAN_THREADS)
scan_kernel(const u64 *__restrict__ mask, const int *__restrict__ order, int n, int words,
            int *__restrict__ keep, int *__restrict__ num_kept)
{
    extern __shared__ u64 removed[]; /* words */
    __shared__ scan_shared sh;
    const int tid = threadIdx.x, lane = tid & 31;
    for (int w = tid; w < words; w += blockDim.x)
        removed[w] = 0;
    if (tid < 32) { /* the resolver: split loop, its own barriers */
        chunk_regs s0, s1, s2; /* the ring: chunk c lives in s[c % 3] */
        u64 carry = 0;
        int total = 0;
        prefetch_chunk(s0, mask, n, words, 0, lane);
        prefetch_chunk(s1, mask, n, words, 1, lane);
        __syncthreads();
        for (int c = 0; c < words; c += 3) {
            resolve_step(c, s0, s2, mask, n, words, keep, removed, sh, carry, total);
            if (c + 1 < words)
                resolve_step(c + 1, s1, s0, mask, n, words, keep, removed, sh, carry, total);
            if (c + 2 < words)
                resolve_step(c + 2, s2, s1, mask, n, words, keep, removed, sh, carry, total);
        }
        if (tid == 0) {
            *num_kept = total;
            sh.total = total;
        }
    } else {
        bulk_loop(mask, words, removed, sh);
    }
    /* sorted rows to original indices, all threads, off the sequential path (the block's
     * own writes to keep[] are visible to it after the barrier) */
    __syncthreads();
    const int total = sh.total;
    for (int i = tid; i < total; i += blockDim.x)
        keep[i] = order[keep[i]];
}

static void report(const char *what, cudaError_t err)
{
    if (err != cudaSuccess)
        fprintf(stderr, "nms: %s: %s\n", what, cudaGetErrorString(err));
}

/* 1a's launch when the block's shared memory fits this device (true, launched), else
 * false: the caller takes 1b. */
template <int IPT>
static bool launch_block_sort(const float *scores, const float *boxes, int n, int *order, float4 *sboxes,
                              float *sarea, cudaStream_t stream)
{
    const int smem = (int)sizeof(typename block_sorter<IPT>::TempStorage);
    if (smem > 48 * 1024) {
        int dev = 0, optin = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
            smem > optin)
            return false;
        report("sort smem", cudaFuncSetAttribute(block_sort_gather_kernel<IPT>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    }
    block_sort_gather_kernel<IPT><<<1, SORT_THREADS, smem, stream>>>(scores, boxes, n, order, sboxes, sarea);
    report("block sort", cudaPeekAtLastError());
    return true;
}

extern "C" void nms(const float *boxes, const float *scores, int n, float iou_threshold,
                    int *keep, int *num_kept, cudaStream_t stream)
{
    if (n <= 0) { /* nothing to sort; no kernel with an empty grid */
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
    /* one scratch request, carved into pieces */
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

    /* 1. sort and gather: one block for n <= 16 384 (the smallest keys-per-thread that
     * holds n), else (or where the block's shared memory does not fit) CUB's device sort */
    bool sorted = false;
    if (n <= SORT_THREADS * 4)
        sorted = launch_block_sort<4>(scores, boxes, n, idx_out, sboxes, sarea, stream);
    else if (n <= SORT_THREADS * 8)
        sorted = launch_block_sort<8>(scores, boxes, n, idx_out, sboxes, sarea, stream);
    else if (n <= SORT_THREADS * 10)
        sorted = launch_block_sort<10>(scores, boxes, n, idx_out, sboxes, sarea, stream);
    else if (n <= SORT_BLOCK_MAX)
        sorted = launch_block_sort<16>(scores, boxes, n, idx_out, sboxes, sarea, stream);
    if (!sorted) {
        const int T = 256, blocks = (n + T - 1) / T;
        iota_kernel<<<blocks, T, 0, stream>>>(idx_in, n);
        report("iota", cudaPeekAtLastError());
        report("sort", cub::DeviceRadixSort::SortPairsDescending(sort_tmp, sort_bytes, scores, keys_out,
                                                                  idx_in, idx_out, n, 0, 32, stream));
        gather_kernel<<<blocks, T, 0, stream>>>(boxes, idx_out, sboxes, sarea, n);
        report("gather", cudaPeekAtLastError());
    }

    /* 2. the IoU mask, upper triangle */
    const float margin = fmaxf(fabsf(iou_threshold) * 0x1p-22f, 0x1p-60f);
    const long long tri = (long long)words * (words + 1) / 2;
    mask_kernel<<<(unsigned)tri, CHUNK, 0, stream>>>(sboxes, sarea, n, words, iou_threshold, margin, mask);
    report("mask", cudaPeekAtLastError());

    /* 3. the scan, one block */
    if (smem > 48 * 1024)
        report("smem", cudaFuncSetAttribute(scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const int want = 32 + (words + 31) / 32 * 32, threads = want < SCAN_THREADS ? want : SCAN_THREADS;
    scan_kernel<<<1, threads, smem, stream>>>(mask, idx_out, n, words, keep, num_kept);
    report("scan", cudaPeekAtLastError());
}
