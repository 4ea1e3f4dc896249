/* reference/nms.cu: greedy non-maximum suppression, exact.
 *
 * Greedy NMS looks sequential: box r survives only if no SURVIVING box ranked above it
 * overlaps it by more than t, and whether those survive depends on the boxes above them.
 * The classic GPU answer splits it into a parallel part and a cheap sequential part:
 *
 * 1. Sort by score (CUB DeviceRadixSort::SortPairsDescending on (score, index)). Radix
 *    sort is stable, so equal scores keep ascending index order: the tie rule for free.
 * 2. The IoU bitmask, in parallel: mask[r][w] bit k = 1 when sorted box r overlaps sorted
 *    box 64w + k (ranked below r) by IoU > t. Only the upper triangle (64w + k > r) is
 *    computed: n^2/2 tests, 1.25e9 at n = 50 000, all independent. One block of 64
 *    threads per (row chunk, column chunk) with cb >= rb, enumerated triangularly so no
 *    block is launched only to exit; the 64 column boxes sit in shared memory and every
 *    thread reads the same one at a time (a broadcast, no bank conflict). Most pairs do
 *    not overlap at all, so a warp whose 32 pairs all have an empty intersection skips
 *    the union and the division.
 * 3. The scan, sequential but small, in ONE block on the GPU (no copy of the 313 MB mask
 *    to the host, no host round trip): the removed-set is a bitmask in shared memory, and
 *    boxes are taken 64 at a time (one mask word), ONE __syncthreads per chunk:
 *      a. warp 0 (the resolver) decides chunk c: starting from removed[c] it walks only
 *         the candidates still alive (find-first-set), marks each kept and ORs in its
 *         diagonal word (which boxes of the same chunk it removes). The diagonal word,
 *         the next word (column c + 1) and the original index of every row of the chunk
 *         are prefetched into registers two chunks ahead (a 3-deep register ring, the loop
 *         unrolled by 3 so no register is ever copied while its load is in flight), and
 *         read with a warp shuffle: no memory latency on the sequential path. The kept
 *         rows' next words, ORed with a warp reduction, are column c + 1's contribution
 *         from chunk c: warp 0 keeps it in a register for the next chunk.
 *      b. meanwhile the other 31 warps OR the mask rows of chunk c - 1's kept boxes into
 *         the removed words c + 1 and beyond, coalesced, several rows in flight per thread.
 *         This lags one chunk behind on purpose: it overlaps the resolver instead of
 *         waiting for it, and it only has to be done by the barrier, because the first
 *         word it writes, c + 1, is read by the next chunk (with the carry from a.).
 *    Rows of removed boxes are never read: the "skip dead rows" that makes the scan cost
 *    O(kept * n / 64) words instead of O(n^2 / 64).
 *
 * Exactness: the decision is the README's fp32 formula, IoU = inter / union > t with
 * inter and union rounded exactly as specified (__fmul_rn etc., no FMA contraction). To
 * avoid a division per pair, the kernel first takes d = fma(-t, union, inter), whose sign
 * is the sign of inter - t * union exactly (one rounding); when |d| is clearly away from 0
 * (more than 2^-22 * t * union) that sign IS the decision of the fp32 formula, and only
 * the rare pairs within that margin fall back to the IEEE division.
 *
 * Build: nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC -cudart shared -I labs/include reference/nms.cu
 *
 * Which path runs where: sm_80 and newer OR the mask words over a warp with redux.sync
 * (__reduce_or_sync); sm_75 with a butterfly of shuffles (warp_or below). The rest is
 * the same on every GPU. */
#include <cstdint>
#include <cstdio>

#include <cub/device/device_radix_sort.cuh>

#include "cudalab_lab.h"

#define CHUNK 64            /* boxes per mask word */
#define SCAN_THREADS 1024
#define SCAN_INFLIGHT 8     /* mask rows loaded per thread before they are ORed */

typedef unsigned long long u64;

static size_t align_up(size_t v) { return (v + 255) & ~(size_t)255; }

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

/* Sorted boxes and their areas, so the n^2/2 tests read contiguous memory. */
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

/* Block (rb, cb), cb >= rb, from a triangular index: L = cb (cb + 1) / 2 + rb. Thread k
 * owns sorted row rb * 64 + k and tests it against the 64 boxes of column chunk cb. */
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
    const bool empty = 0.0f > t; /* the decision for pairs that do not overlap (IoU 0) */
    const int k0 = (rb == cb) ? (int)threadIdx.x + 1 : 0; /* only boxes ranked below r */
    u64 bits = 0;
    /* fully unrolled: every bit position is a constant. Most pairs do not intersect, so a
     * warp usually skips the union and the decision together (uniform branch). */
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

/* What the resolver (warp 0) holds for one chunk: for rows lane and lane + 32, the
 * diagonal word (column c), the next word (column c + 1) and the original index. */
struct chunk_regs {
    u64 d0, d1, x0, x1;
    int o0, o1;
};

__device__ __forceinline__ void prefetch_chunk(chunk_regs &s, const u64 *__restrict__ mask,
                                               const int *__restrict__ order, int n, int words,
                                               int c, int lane)
{
    if (c >= words)
        return;
    const int r0 = c * CHUNK + lane, r1 = r0 + 32;
    const bool nx = c + 1 < words;
    s.d0 = r0 < n ? mask[(size_t)r0 * words + c] : 0;
    s.d1 = r1 < n ? mask[(size_t)r1 * words + c] : 0;
    s.x0 = (r0 < n && nx) ? mask[(size_t)r0 * words + c + 1] : 0;
    s.x1 = (r1 < n && nx) ? mask[(size_t)r1 * words + c + 1] : 0;
    s.o0 = r0 < n ? order[r0] : -1;
    s.o1 = r1 < n ? order[r1] : -1;
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
};

/* One chunk: warp 0 resolves chunk c with the registers `cur` and refills `ahead` with
 * chunk c + 2; warps 1.. OR chunk c - 1's kept rows into the words right of c; one barrier. */
__device__ __forceinline__ void scan_step(int c, chunk_regs &cur, chunk_regs &ahead,
                                          const u64 *__restrict__ mask, const int *__restrict__ order,
                                          int n, int words, int *__restrict__ keep, u64 *removed,
                                          scan_shared &sh, u64 &carry, int &total)
{
    const int tid = threadIdx.x, lane = tid & 31;
    if (tid < 32) {
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
        const u64 mine = (k0 ? cur.x0 : 0) | (k1 ? cur.x1 : 0);
        carry = warp_or(mine);
        /* the kept indices, in rank order, and the kept rows for the bulk warps */
        const int p0 = __popcll(kept & ((1ull << lane) - 1));
        const int p1 = __popcll(kept & ((1ull << (lane + 32)) - 1));
        if (k0) {
            keep[total + p0] = cur.o0;
            sh.krows[c & 1][p0] = c * CHUNK + lane;
        }
        if (k1) {
            keep[total + p1] = cur.o1;
            sh.krows[c & 1][p1] = c * CHUNK + lane + 32;
        }
        total += __popcll(kept);
        if (lane == 0)
            sh.kcount[c & 1] = __popcll(kept);
        prefetch_chunk(ahead, mask, order, n, words, c + 2, lane);
    } else if (c > 0) {
        const int kc = sh.kcount[(c - 1) & 1];
        const int *rows = sh.krows[(c - 1) & 1];
        for (int w = c + 1 + (tid - 32); kc > 0 && w < words; w += SCAN_THREADS - 32) {
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

/* One block walks the chunks in rank order; removed[] lives in shared memory. */
__global__ void __launch_bounds__(SCAN_THREADS)
scan_kernel(const u64 *__restrict__ mask, const int *__restrict__ order, int n, int words,
            int *__restrict__ keep, int *__restrict__ num_kept)
{
    extern __shared__ u64 removed[]; /* words */
    __shared__ scan_shared sh;
    const int tid = threadIdx.x, lane = tid & 31;
    for (int w = tid; w < words; w += SCAN_THREADS)
        removed[w] = 0;
    chunk_regs s0, s1, s2; /* the ring: chunk c lives in s[c % 3] */
    u64 carry = 0;
    int total = 0;
    if (tid < 32) {
        prefetch_chunk(s0, mask, order, n, words, 0, lane);
        prefetch_chunk(s1, mask, order, n, words, 1, lane);
    }
    __syncthreads();
    for (int c = 0; c < words; c += 3) {
        scan_step(c, s0, s2, mask, order, n, words, keep, removed, sh, carry, total);
        if (c + 1 < words)
            scan_step(c + 1, s1, s0, mask, order, n, words, keep, removed, sh, carry, total);
        if (c + 2 < words)
            scan_step(c + 2, s2, s1, mask, order, n, words, keep, removed, sh, carry, total);
    }
    if (tid == 0)
        *num_kept = total;
}

static void report(const char *what, cudaError_t err)
{
    if (err != cudaSuccess)
        fprintf(stderr, "nms: %s: %s\n", what, cudaGetErrorString(err));
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

    const int T = 256, blocks = (n + T - 1) / T;
    iota_kernel<<<blocks, T, 0, stream>>>(idx_in, n);
    report("iota", cudaPeekAtLastError());
    report("sort", cub::DeviceRadixSort::SortPairsDescending(sort_tmp, sort_bytes, scores, keys_out,
                                                              idx_in, idx_out, n, 0, 32, stream));
    gather_kernel<<<blocks, T, 0, stream>>>(boxes, idx_out, sboxes, sarea, n);
    report("gather", cudaPeekAtLastError());

    const float margin = fmaxf(fabsf(iou_threshold) * 0x1p-22f, 0x1p-60f);
    const long long tri = (long long)words * (words + 1) / 2;
    mask_kernel<<<(unsigned)tri, CHUNK, 0, stream>>>(sboxes, sarea, n, words, iou_threshold, margin, mask);
    report("mask", cudaPeekAtLastError());

    if (smem > 48 * 1024)
        report("smem", cudaFuncSetAttribute(scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    scan_kernel<<<1, SCAN_THREADS, smem, stream>>>(mask, idx_out, n, words, keep, num_kept);
    report("scan", cudaPeekAtLastError());
}
