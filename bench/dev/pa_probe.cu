// pa_probe.cu: where does paged_attention lose time against a plain read of the same bytes?
//
// One process, one GPU, no grader: times (median of 30, L2 evicted by a 256 MB read that
// also keeps the GPU busy while the host enqueues the timed work) at several context lengths
//   stream   a read of the K and V bytes laid out contiguously (the ceiling for this pattern)
//   gath*    a read of the same rows through the block table, nothing computed: a CTA per
//            (partition, kv head) (gkvf*: kv heads side by side in the grid), or per
//            partition with all kv heads (gall*: whole contiguous block rows)
//   ldg*     persistent CTAs with a cp.async ring per warp: the reference's loads alone (ldgsts),
//            and with one change each (cache policy, prefetch hint, 2 stages, a spin per tile
//            standing for the reference's arithmetic, its start-up scan)
//   tma      persistent CTAs copying whole blocks with TMA bulk copies
//   ref      the paged_attention of the file compiled in (-DPA_SRC="path")
// each with a shuffled block table (as the lab's cases) and an identity one. The time at
// several lengths separates a fixed cost (launches, ramp-up, tail, combine) from the rate.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ilabs/include -DPA_SRC='"../../reference/paged_attention.cu"' \
//        bench/dev/pa_probe.cu -o build/pa_probe && build/pa_probe [KV_HEADS]
//   build/pa_probe shape SEQS HEADS KV_HEADS DIM BLOCK CTX      (the reference on one shape,
//            timed as bench/peers/paged_attention.py times SDPA)
//   build/pa_probe loads SEQS HEADS KV_HEADS DIM BLOCK CTX   the reference next to the ldgsts
//            kernel (its split and rings, loads only) at 2 to 6 stages, head_dim 64 or 128;
//            PA_PROBE_IDENT=1 adds both with an identity block table (what the paging costs),
//            PA_PROBE_MMA=1 the loads with 16 mma.sync a tile (head_dim 128), PA_PROBE_HYB=1
//            the loads with the last units claimed by whole CTAs (ldgsts_hyb_kernel)
//   build/pa_probe all [TAG]   the six shapes of bench/peers/paged_attention.py --all-shapes
//            and six small mixed-length cases (checked, not timed): each output checked
//            against fp64 on the CPU (one kv head of every sequence, the lab's tolerance;
//            WRONG when it fails), timed with bench/peers/cuda_timing.cuh (L2 flushed,
//            median of 30), as a fraction of a read-only kernel timed the same way in this
//            process (1 GiB); round 2 built one per variant of the reference (git 574df88,
//            bench/dev/variants/paged_attention/run.sh); PA_PROBE_ONLY=203 runs those shapes,
//            in that order; PA_PROBE_REST_MS (default 2000) idles the GPU before each
//   PA_PROBE_KV_GAP=KB: K and V in one allocation, V that far after K (their distance in
//            memory: no effect on an H100, 0 KB to 64 MB)
//   PA_PROBE_SEED=n: other inputs (q, K, V). Two processes one after the other, the second
//            with another seed, check that the second does not use what the first left in
//            memory (the scratch is not cleared; the merge counters' epochs count from 1 in
//            every process): PA_PROBE_ONLY=- PA_PROBE_REST_MS=0 build/pa_probe all a &&
//            PA_PROBE_SEED=1 ... all b (only the mixed cases). On an H100 it passed (seeds
//            0, 1, 2 and 5 in turn): a new process did not find the last one's values.
//   with -DPA_PROBE_TRACE: build/pa_probe_trace trace SEQS ... CTX (when each CTA's phases begin and end)
#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "cudalab_lab.h"
#include "../peers/cuda_timing.cuh" // bench_time (needs -Igrader/include)

extern "C" void *cudalab_scratch(size_t bytes)
{
    static void *p;
    static size_t n;
    if (bytes > n) {
        cudaFree(p);
        p = nullptr;
        n = 0;
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            return nullptr;
        n = bytes;
    }
    return p;
}

// The trace build (-DPA_PROBE_TRACE, mode "trace"): lane 0 of each warp stamps the global
// timer at the reference's PA_MARK points; per warp and point the first stamp (kept once, a
// flag in shared memory) and the last (plain stores, no atomics: the trace costs a store per
// tile and warp).
#ifdef PA_PROBE_TRACE
#define PA_TRACE_CTAS 4096
#define PA_TRACE_POINTS 5 // entry, start-up scan done, tile data ready, tile computed, exit
__device__ unsigned long long pa_trace[PA_TRACE_CTAS][8][PA_TRACE_POINTS][2];
__device__ unsigned long long pa_flush_end;
__shared__ unsigned pa_seen[8];
__device__ __forceinline__ unsigned long long pa_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#define PA_MARK(p)                                                                                                  \
    do {                                                                                                            \
        const unsigned w_ = threadIdx.x / 32;                                                                       \
        if (threadIdx.x % 32 == 0 && blockIdx.x < PA_TRACE_CTAS && w_ < 8) {                                        \
            const unsigned long long t_ = pa_now();                                                                 \
            if ((p) == 0)                                                                                           \
                pa_seen[w_] = 0;                                                                                    \
            if (!(pa_seen[w_] & (1u << (p)))) {                                                                     \
                pa_seen[w_] |= 1u << (p);                                                                           \
                pa_trace[blockIdx.x][w_][p][0] = t_;                                                                \
            }                                                                                                       \
            pa_trace[blockIdx.x][w_][p][1] = t_;                                                                    \
        }                                                                                                           \
    } while (0)
#endif

#include PA_SRC
#ifndef PA_MARK // a reference without the hook
#define PA_MARK(p)
#endif

#define CK(x)                                                                                                       \
    do {                                                                                                            \
        cudaError_t e_ = (x);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                            \
            exit(1);                                                                                                \
        }                                                                                                           \
    } while (0)

__global__ void fill_kernel(uint32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        // two halves in [-1, 1): sign, exponent 14 (0.5..1 scaled), random mantissa
        uint32_t lo = 0x3800u | (x & 0x3ffu) | ((x >> 10) & 1u) << 15;
        uint32_t hi = 0x3800u | ((x >> 11) & 0x3ffu) | ((x >> 21) & 1u) << 15;
        p[i] = lo | hi << 16;
    }
}

__global__ void read_stream_kernel(const uint4 *a, size_t n, int *sink)
{
    uint32_t x = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcs(a + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride) {
        uint4 v = __ldcs(a + i);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// Reads (and xors into sink, so nothing is optimised away) tokens [start, end) of sequence
// seq through its block table: of each K and V token slot (slot_chunks 16-byte chunks), the
// chunks [col0, col0 + chunks); 4 chunks of K and 4 of V in flight per thread.
__device__ void gather_rows(const paged_attention_args &a, int seq, int start, int end, int slot_chunks, int col0,
                            int chunks, int log2_bs, int *sink)
{
    const int *table = a.block_tables + (size_t)seq * a.max_blocks_per_seq;
    uint32_t x = 0;
    const int n = (end - start) * chunks;
    for (int base = threadIdx.x; base < n; base += 4 * blockDim.x) {
        uint4 v[8];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int id = base + u * blockDim.x;
            v[2 * u] = v[2 * u + 1] = make_uint4(0, 0, 0, 0);
            if (id < n) {
                int tok = start + id / chunks;
                size_t row = ((size_t)table[tok >> log2_bs] << log2_bs) + (tok & ((1 << log2_bs) - 1));
                size_t off = (row * slot_chunks + col0 + id % chunks) * 8;
                v[2 * u] = __ldcs(reinterpret_cast<const uint4 *>(a.k_cache + off));
                v[2 * u + 1] = __ldcs(reinterpret_cast<const uint4 *>(a.v_cache + off));
            }
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// The rows paged_attention must read, read and nothing else: CTA per (partition, kv head, seq).
// KV_FAST: grid (kv head, partition, seq) instead of (partition, kv head, seq).
template <bool KV_FAST>
__global__ void gather_kernel(const paged_attention_args a, int part_tokens, int log2_bs, int *sink)
{
    const int cpr = a.head_dim / 8;
    const int seq = blockIdx.z, g = KV_FAST ? blockIdx.x : blockIdx.y, start = (KV_FAST ? blockIdx.y : blockIdx.x) * part_tokens;
    const int ctx = a.context_lens[seq];
    if (start < ctx)
        gather_rows(a, seq, start, min(start + part_tokens, ctx), a.num_kv_heads * cpr, g * cpr, cpr, log2_bs, sink);
}

// All kv heads of a partition in one CTA: a block's rows are one contiguous range.
__global__ void gather_all_kernel(const paged_attention_args a, int part_tokens, int log2_bs, int *sink)
{
    const int slot_chunks = a.num_kv_heads * a.head_dim / 8; // 16-byte chunks per token slot
    const int seq = blockIdx.z, start = blockIdx.x * part_tokens;
    const int ctx = a.context_lens[seq];
    if (start < ctx)
        gather_rows(a, seq, start, min(start + part_tokens, ctx), slot_chunks, 0, slot_chunks, log2_bs, sink);
}

// ---- load mechanisms for a persistent CTA that owns U/grid units of (seq, 16 tokens, all kv
// heads): the K and V rows of a unit are 2 x 32 KB (8 kv heads x 256 B x 16 slots) ----

__device__ __forceinline__ uint32_t sm32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// (a) per-warp cp.async rings, STAGES stages of 16 rows of K and V (8 KB at head_dim 128):
// warp w copies kv head w's rows of 16-token tiles (a tile within one block: block >= 16).
// Flags: LD_EVICT_FIRST (an L2 evict-first policy on the copies), LD_HINT256 (the L2::256B
// prefetch-size hint), LD_SCAN (first a block scan of the context lengths, as the reference
// does before its first copy), LD_SPIN (600 clocks of work per tile, about what the reference
// computes: what a busy warp costs in bytes in flight).
enum { LD_EVICT_FIRST = 1, LD_HINT256 = 2, LD_SCAN = 4, LD_SPIN = 8, LD_MMA = 16 };
template <int D> __host__ __device__ constexpr int ld_tile_bytes() { return 2 * 16 * D * 2; }

// Issues the copies of tile t (16 tokens) of sequence seq, kv head `warp`, into the ring slot
// at shared address dst: lane l copies 16-byte chunk l % CPR of rows l / CPR, + 32 / CPR, ...
template <int D, int FLAGS>
__device__ __forceinline__ void ld_tile(const paged_attention_args &a, int seq, int t, int log2_bs, int warp, int lane,
                                        uint32_t dst, uint64_t pol)
{
    constexpr int CPR = D / 8, RPI = 32 / CPR;
    const size_t row_stride = (size_t)a.num_kv_heads * D;
    const int tok0 = t * 16;
    const size_t row0 = ((size_t)a.block_tables[(size_t)seq * a.max_blocks_per_seq + (tok0 >> log2_bs)] << log2_bs) +
                        (tok0 & ((1 << log2_bs) - 1)) + lane / CPR;
    const __half *kr = a.k_cache + row0 * row_stride + warp * D + (lane % CPR) * 8;
    const __half *vr = a.v_cache + row0 * row_stride + warp * D + (lane % CPR) * 8;
    auto cp = [&](uint32_t to, const __half *src) {
        if (FLAGS & LD_EVICT_FIRST)
            asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(to), "l"(src), "l"(pol));
        else if (FLAGS & LD_HINT256)
            asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(to), "l"(src));
        else
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(src));
    };
    dst += lane * 16;
#pragma unroll
    for (int i = 0; i < 16 / RPI; i++) {
        cp(dst + i * 512, kr + (size_t)i * RPI * row_stride);
        cp(dst + ld_tile_bytes<D>() / 2 + i * 512, vr + (size_t)i * RPI * row_stride);
    }
}

template <int D, int STAGES, int FLAGS>
__global__ void __launch_bounds__(256) ldgsts_units_kernel(const paged_attention_args a, int log2_bs, int *sink)
{
    PA_MARK(0);
    extern __shared__ __align__(128) unsigned char sm[];
    constexpr int TILE = ld_tile_bytes<D>();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (FLAGS & LD_SCAN) { // the reference's start: every thread reads lengths, a block sum
        __shared__ int s_sum[8];
        int v = threadIdx.x < a.num_seqs ? a.context_lens[threadIdx.x] : 0;
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0)
            s_sum[warp] = v;
        __syncthreads();
        if (s_sum[0] + s_sum[7] == 0x7fffffff)
            *sink = 2;
    }
    const long long tiles = (a.max_blocks_per_seq << log2_bs) / 16, U = (long long)a.num_seqs * tiles;
    const long long u0 = blockIdx.x * U / gridDim.x, u1 = (blockIdx.x + 1) * U / gridDim.x;
    unsigned char *ring = sm + warp * STAGES * TILE;
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
    auto load = [&](long long u, int st) {
        ld_tile<D, FLAGS>(a, (int)(u / tiles), (int)(u % tiles), log2_bs, warp, lane, sm32(ring) + st * TILE, pol);
    };
    uint32_t x = 0;
    for (int k = 0; k < STAGES - 1; k++) {
        if (u0 + k < u1)
            load(u0 + k, k);
        asm volatile("cp.async.commit_group;\n");
    }
    int st = 0;
    for (long long u = u0; u < u1; u++) {
        if (u + STAGES - 1 < u1)
            load(u + STAGES - 1, (st + STAGES - 1) % STAGES);
        asm volatile("cp.async.commit_group;\n");
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1));
        __syncwarp();
        PA_MARK(2);
        x ^= *reinterpret_cast<uint32_t *>(ring + st * TILE + lane * 4);
        if (FLAGS & LD_SPIN) {
            const long long t0 = clock64();
            while (clock64() - t0 < 600)
                x += (uint32_t)t0;
        }
        if (FLAGS & LD_MMA) { // 16 mma.sync m16n8k16 on the tile's bytes, as many as the reference's per tile
            const uint32_t *w = reinterpret_cast<const uint32_t *>(ring + st * TILE) + lane * 4;
            float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
#pragma unroll
            for (int i = 0; i < 16; i++) {
                const uint32_t *r = w + (i % 8) * 128;
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                             "{%0,%1,%2,%3};\n"
                             : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                             : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[0] ^ 0x55u), "r"(r[1] ^ 0xaau));
            }
            x += __float_as_uint(c0 + c1 + c2 + c3);
        }
        __syncwarp();
        PA_MARK(3);
        st = st == STAGES - 1 ? 0 : st + 1;
    }
    PA_MARK(4);
    if (x == 0x12345678u)
        *sink = 1;
}

// The ring of the run-time-claimed kernels below: loads the units next_unit() hands out
// (-1: none left) STAGES - 1 ahead of the one consumed, then counts this warp's units into
// ctr[8 + warp] (the host checks that every unit was read once).
template <int STAGES, int TILE, class Next, class Load>
__device__ __forceinline__ void claimed_ring(Next &next_unit, Load &load, const unsigned char *ring, int warp, int lane,
                                             unsigned long long *ctr, int *sink)
{
    int issued = 0, consumed = 0;
    for (int k = 0; k < STAGES - 1; k++) {
        const long long u = next_unit();
        if (u >= 0) {
            load(u, k);
            issued++;
        }
        asm volatile("cp.async.commit_group;\n");
    }
    uint32_t x = 0;
    int st = 0;
    while (consumed < issued) {
        const long long u = next_unit();
        if (u >= 0) {
            load(u, (st + STAGES - 1) % STAGES);
            issued++;
        }
        asm volatile("cp.async.commit_group;\n");
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1));
        __syncwarp();
        x ^= *reinterpret_cast<const uint32_t *>(ring + st * TILE + lane * 4);
        __syncwarp();
        consumed++;
        st = st == STAGES - 1 ? 0 : st + 1;
    }
    if (lane == 0)
        atomicAdd(&ctr[8 + warp], (unsigned long long)consumed);
    if (x == 0x12345678u)
        *sink = 1;
}

// (a') the same rings, with the units handed out at run time instead of split evenly up
// front: warp w of every CTA takes chunks of CHUNK units (kv head w's rows) from counter w
// (a 64-bit counter that only grows; base is where this launch's numbering starts), claiming
// the next chunk as it starts the current one, so the atomic's latency is hidden. A warp
// whose SM gets less bandwidth simply takes fewer chunks. CHUNK 0: guided, a chunk is
// (what is left) / (2 x warps per counter), at least 2 units.
template <int STAGES, int CHUNK>
__global__ void __launch_bounds__(256) ldgsts_dyn_kernel(const paged_attention_args a, unsigned long long *ctr,
                                                         unsigned long long base, int *sink)
{
    extern __shared__ __align__(128) unsigned char sm[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const long long tiles = a.max_blocks_per_seq, U = (long long)a.num_seqs * tiles;
    unsigned char *ring = sm + warp * STAGES * 8192;
    auto load = [&](long long u, int st) { // head_dim 128, block 16: a tile is a block
        ld_tile<128, 0>(a, (int)(u / tiles), (int)(u % tiles), 4, warp, lane, sm32(ring) + st * 8192, 0);
    };
    const long long per = gridDim.x; // warps sharing a counter
    auto claim = [&](long long &lo, long long &hi) { // the next chunk: [lo, hi), empty when done
        long long n = CHUNK;
        unsigned long long got = 0;
        if (CHUNK == 0) {
            unsigned long long seen = 0;
            if (lane == 0)
                seen = *(volatile unsigned long long *)&ctr[warp];
            seen = __shfl_sync(0xffffffffu, seen, 0) - base;
            n = max(2LL, (U - (long long)seen) / (2 * per));
        }
        if (lane == 0)
            got = atomicAdd(&ctr[warp], (unsigned long long)n);
        lo = (long long)(__shfl_sync(0xffffffffu, got, 0) - base);
        hi = min(lo + n, U);
        lo = min(lo, U);
    };
    long long c0, c1, n0, n1;
    claim(c0, c1);
    claim(n0, n1);
    long long p = c0; // next unit to load
    auto next_unit = [&]() -> long long { // the unit after p in claimed order, or -1
        if (p >= c1) {
            if (n0 >= n1)
                return -1;
            c0 = n0;
            c1 = n1;
            p = c0;
            claim(n0, n1);
        }
        return p++;
    };
    claimed_ring<STAGES, 8192>(next_unit, load, ring, warp, lane, ctr, sink);
}

// (a'') a static split of the first PCT% of the units, then the rest handed out at run time in
// chunks of CHUNK units to whole CTAs (warp 0 claims, the other warps read the claim from
// shared memory), so the 8 warps of a CTA still read the same tokens of a block: what a
// balanced end is worth once the locality of (a') is kept. ctr[0] is the claim counter,
// ctr[8 + w] counts the units warp w consumed (checked by the host).
template <int D, int STAGES, int PCT, int CHUNK>
__global__ void __launch_bounds__(256) ldgsts_hyb_kernel(const paged_attention_args a, int log2_bs,
                                                         unsigned long long *ctr, int *sink)
{
    extern __shared__ __align__(128) unsigned char sm[];
    constexpr int TILE = ld_tile_bytes<D>(), QN = 256;
    __shared__ unsigned long long q[QN]; // chunk k's first unit, or FREE / BUSY
    constexpr unsigned long long FREE = ~0ull, BUSY = ~1ull;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int i = threadIdx.x; i < QN; i += blockDim.x)
        q[i] = FREE;
    __syncthreads();
    const long long tiles = (a.max_blocks_per_seq << log2_bs) / 16, U = (long long)a.num_seqs * tiles;
    const long long Us = U * PCT / 100;
    long long c1 = (blockIdx.x + 1) * Us / gridDim.x, p = blockIdx.x * Us / gridDim.x;
    unsigned char *ring = sm + warp * STAGES * TILE;
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
    auto load = [&](long long u, int st) {
        ld_tile<D, LD_EVICT_FIRST>(a, (int)(u / tiles), (int)(u % tiles), log2_bs, warp, lane, sm32(ring) + st * TILE,
                                   pol);
    };
    auto claim = [&](int kk) { // the first warp to get here claims chunk kk for the CTA and publishes it
        if (lane == 0 && kk < QN && atomicCAS(&q[kk], FREE, BUSY) == FREE) {
            const unsigned long long lo = Us + atomicAdd(&ctr[0], 1ull) * CHUNK;
            *(volatile unsigned long long *)&q[kk] = lo < (unsigned long long)U ? lo : (unsigned long long)U;
        }
    };
    int k = 0; // the next chunk this warp takes
    bool done = false;
    auto next_unit = [&]() -> long long {
        while (p >= c1) {
            if (done || k >= QN)
                return -1;
            claim(k);
            unsigned long long lo;
            while ((lo = *(volatile unsigned long long *)&q[k]) >= BUSY)
                ;
            claim(k + 1); // ahead: its atomic's latency hides behind chunk k
            k++;
            if (lo >= (unsigned long long)U) {
                done = true;
                return -1;
            }
            p = (long long)lo;
            c1 = min(p + CHUNK, U);
        }
        return p++;
    };
    claimed_ring<STAGES, TILE>(next_unit, load, ring, warp, lane, ctr, sink);
}

// (b) TMA bulk copies: one thread copies a unit's K and V (2 x 32 KB contiguous) into a
// 3-stage ring; mbarriers signal arrival; all warps release a stage before it is refilled.
__global__ void __launch_bounds__(256) tma_units_kernel(const paged_attention_args a, int *sink)
{
    extern __shared__ __align__(128) unsigned char sm[];
    __shared__ __align__(8) unsigned long long full[3];
    const int D = 128;
    const long long tiles = a.max_blocks_per_seq, U = (long long)a.num_seqs * tiles;
    const long long u0 = blockIdx.x * U / gridDim.x, u1 = (blockIdx.x + 1) * U / gridDim.x;
    const uint32_t unit_bytes = 16u * a.num_kv_heads * D * 2; // one K block
    if (threadIdx.x == 0)
        for (int i = 0; i < 3; i++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(sm32(&full[i])));
    asm volatile("fence.proxy.async.shared::cta;\n");
    __syncthreads();
    auto load = [&](long long u, int st) {
        int seq = (int)(u / tiles), t = (int)(u % tiles);
        size_t blk = (size_t)a.block_tables[(size_t)seq * a.max_blocks_per_seq + t];
        const __half *k = a.k_cache + blk * 16 * a.num_kv_heads * D, *v = a.v_cache + blk * 16 * a.num_kv_heads * D;
        uint32_t bar = sm32(&full[st]), dst = sm32(sm) + st * 2 * unit_bytes;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(2 * unit_bytes));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                     "l"(k), "r"(unit_bytes), "r"(bar));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst + unit_bytes),
                     "l"(v), "r"(unit_bytes), "r"(bar));
    };
    if (threadIdx.x == 0)
        for (int k = 0; k < 2; k++)
            if (u0 + k < u1)
                load(u0 + k, k);
    uint32_t x = 0;
    int st = 0, phase[3] = {0, 0, 0};
    for (long long u = u0; u < u1; u++) {
        if (threadIdx.x == 0 && u + 2 < u1)
            load(u + 2, (st + 2) % 3);
        uint32_t bar = sm32(&full[st]), done = 0;
        while (!done)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }\n"
                         : "=r"(done)
                         : "r"(bar), "r"(phase[st]));
        phase[st] ^= 1;
        x ^= *reinterpret_cast<uint32_t *>(sm + st * 2 * unit_bytes + threadIdx.x * 4);
        __syncthreads(); // everyone is done with this stage before it is refilled
        st = st == 2 ? 0 : st + 1;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

static void *flush_buf;
static int *sink;

// One timed run of fn: a 256 MB read evicts L2 and keeps the GPU busy while the host
// enqueues the rest; after_flush runs between it and the start event.
template <class F, class G> static float flushed_run_ms(cudaEvent_t e0, cudaEvent_t e1, F fn, G after_flush)
{
    read_stream_kernel<<<1024, 256>>>((const uint4 *)flush_buf, (256u << 20) / 16, sink);
    after_flush();
    CK(cudaEventRecord(e0));
    fn();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
}

template <class F, class G> static float time_ms(F fn, G after_flush)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int r = 0; r < 33; r++) {
        const float ms = flushed_run_ms(e0, e1, fn, after_flush);
        if (r >= 3)
            t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return t[t.size() / 2];
}

template <class F> static float time_ms(F fn)
{
    return time_ms(fn, [] {});
}

// The fill seed of q (1), K (2) or V (3); PA_PROBE_SEED=n gives other inputs (the header).
static uint32_t input_seed(uint32_t which)
{
    static const uint32_t base = getenv("PA_PROBE_SEED") ? (uint32_t)atoi(getenv("PA_PROBE_SEED")) * 16u : 0u;
    return base + which;
}

// One batch of inputs on the GPU: S sequences of T tokens (sequence 0 at T and the others
// spread over 1..T when vary), random q/K/V in [-1, 1), a pool 1/16 larger than used.
struct pa_batch {
    paged_attention_args a;
    double bytes; // what must move, as the lab counts it
    int pool;
    std::vector<int> lens, table; // host copies: context lengths, block tables [S][nb]
    bool kv_one = false;          // K and V share one allocation (PA_PROBE_KV_GAP)

    pa_batch(int S, int H, int KVH, int D, int BS, int T, bool vary)
    {
        const int nb = (T + BS - 1) / BS;
        pool = S * nb + S * nb / 16;
        const size_t cache_elems = (size_t)pool * BS * KVH * D;
        __half *q, *k, *v, *out;
        int *tables, *lens;
        CK(cudaMalloc(&q, (size_t)S * H * D * 2));
        CK(cudaMalloc(&out, (size_t)S * H * D * 2));
        if (const char *gap = getenv("PA_PROBE_KV_GAP")) { // K and V in one allocation, V GAP KB after K's end
            const size_t g = (size_t)atol(gap) << 10;
            CK(cudaMalloc(&k, cache_elems * 4 + g));
            v = k + cache_elems + g / 2;
            kv_one = true;
        } else {
            CK(cudaMalloc(&k, cache_elems * 2));
            CK(cudaMalloc(&v, cache_elems * 2));
        }
        CK(cudaMalloc(&tables, (size_t)S * nb * 4));
        CK(cudaMalloc(&lens, S * 4));
        fill_kernel<<<1024, 256>>>((uint32_t *)q, (size_t)S * H * D / 2, input_seed(1));
        fill_kernel<<<4096, 256>>>((uint32_t *)k, cache_elems / 2, input_seed(2));
        fill_kernel<<<4096, 256>>>((uint32_t *)v, cache_elems / 2, input_seed(3));
        std::vector<int> hl(S, T);
        for (int i = 1; vary && i < S; i++)
            hl[i] = 1 + (int)((i * 2654435761u) % (unsigned)T);
        CK(cudaMemcpy(lens, hl.data(), S * 4, cudaMemcpyHostToDevice));
        this->lens = hl;
        a = paged_attention_args{q, k, v, tables, lens, out, S, H, KVH, D, BS, nb, pool, 1.f / sqrtf((float)D)};
        bytes = 2.0 * S * KVH * T * D * 2 + 2.0 * S * H * D * 2 + S * 4 + (double)S * nb * 4;
        set_table(true);
    }
    // block tables: slices of one shuffled permutation of the pool (as the lab), or in order
    void set_table(bool shuffled)
    {
        std::vector<int> perm(pool);
        for (int i = 0; i < pool; i++)
            perm[i] = i;
        if (shuffled)
            std::shuffle(perm.begin(), perm.end(), std::mt19937(42));
        table.assign(perm.begin(), perm.begin() + (size_t)a.num_seqs * a.max_blocks_per_seq);
        CK(cudaMemcpy((void *)a.block_tables, perm.data(), (size_t)a.num_seqs * a.max_blocks_per_seq * 4,
                      cudaMemcpyHostToDevice));
    }
    ~pa_batch()
    {
        cudaFree((void *)a.q);
        cudaFree(a.out);
        cudaFree((void *)a.k_cache);
        if (!kv_one)
            cudaFree((void *)a.v_cache);
        cudaFree((void *)a.block_tables);
        cudaFree((void *)a.context_lens);
    }
};

// pa_probe shape SEQS HEADS KV_HEADS DIM BLOCK CTX: the reference alone on one shape
// (shuffled block table), for the shapes the PyTorch peer times with --all-shapes.
static int one_shape(int S, int H, int KVH, int D, int BS, int T)
{
    pa_batch b(S, H, KVH, D, BS, T, getenv("PA_PROBE_VARY") != nullptr);
    const paged_attention_args &a = b.a;
    const double bytes = b.bytes;
    // Timed as SDPA is timed beside it (bench_time, as bench/peers/_timing.py: L2 flushed, then a
    // wait of ~150 us with the GPU nearly idle). PA_PROBE_READ_FLUSH=1: as this file's other
    // modes, right after a 256 MB read (0.5-1% slower on an H100: the GPU is not rested).
    const float ms = getenv("PA_PROBE_READ_FLUSH") ? time_ms([&] { paged_attention(&a, 0); })
                                                   : (float)bench_time([&] { paged_attention(&a, 0); }, 30, 3).median_ms;
    if (const char *dump = getenv("PA_PROBE_DUMP")) { // the output, for comparing two builds
        std::vector<__half> h((size_t)S * H * D);
        CK(cudaMemcpy(h.data(), a.out, h.size() * 2, cudaMemcpyDeviceToHost));
        FILE *f = fopen(dump, "wb");
        if (f) {
            fwrite(h.data(), 2, h.size(), f);
            fclose(f);
        }
    }
    printf("%d seqs x %d, %d / %d heads, dim %d, block %d: ref %.4f ms, %.0f GB/s\n", S, T, H, KVH, D, BS, ms,
           bytes / ms / 1e6);
    return 0;
}

// pa_probe loads SEQS HEADS KV_HEADS DIM BLOCK CTX: the reference, then the load-only ring
// kernel at 2 to 6 stages (8 warps, one CTA per SM; KV_HEADS 8), then the reference again.
static int loads_shape(int S, int H, int KVH, int D, int BS, int T)
{
    if (KVH != 8 || (D != 64 && D != 128) || BS < 16) {
        fprintf(stderr, "loads: KV_HEADS 8, DIM 64 or 128, BLOCK >= 16\n");
        return 2;
    }
    pa_batch b(S, H, KVH, D, BS, T, false);
    const paged_attention_args &a = b.a;
    int sms = 0, log2_bs = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    while ((1 << log2_bs) < BS)
        log2_bs++;
    auto row = [&](const char *what, float ms) {
        printf("%d seqs x %d, %d / %d heads, dim %d, block %d: %-10s %.4f ms, %.0f GB/s\n", S, T, H, KVH, D, BS, what, ms,
               b.bytes / ms / 1e6);
    };
    row("ref", time_ms([&] { paged_attention(&a, 0); }));
    auto ld = [&](const char *nm, auto kernel, int stages) {
        const int smem = 8 * stages * 2 * 16 * D * 2;
        if (smem > 227 * 1024)
            return;
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        row(nm, time_ms([&] { kernel<<<sms, 256, smem>>>(a, log2_bs, sink); }));
    };
    if (D == 64) {
        ld("loads 2st", ldgsts_units_kernel<64, 2, 0>, 2);
        ld("loads 3st", ldgsts_units_kernel<64, 3, 0>, 3);
        ld("loads 4st", ldgsts_units_kernel<64, 4, 0>, 4);
        ld("loads 6st", ldgsts_units_kernel<64, 6, 0>, 6);
    } else {
        ld("loads 2st", ldgsts_units_kernel<128, 2, 0>, 2);
        ld("loads 3st", ldgsts_units_kernel<128, 3, 0>, 3);
        if (getenv("PA_PROBE_MMA")) {
            ld("loads mma", ldgsts_units_kernel<128, 3, LD_MMA>, 3);
            ld("loads 3st", ldgsts_units_kernel<128, 3, 0>, 3);
            ld("loads mma", ldgsts_units_kernel<128, 3, LD_MMA>, 3);
        }
    }
    row("ref", time_ms([&] { paged_attention(&a, 0); }));
    if (getenv("PA_PROBE_IDENT")) { // the same with an identity block table: what the paging costs
        b.set_table(false);
        row("ref id", time_ms([&] { paged_attention(&a, 0); }));
        if (D == 64)
            ld("loads 4 id", ldgsts_units_kernel<64, 4, 0>, 4);
        else
            ld("loads 3 id", ldgsts_units_kernel<128, 3, 0>, 3);
        row("ref id", time_ms([&] { paged_attention(&a, 0); }));
        b.set_table(true);
    }
    if (getenv("PA_PROBE_HYB")) { // static split, then chunks handed to whole CTAs (ldgsts_hyb_kernel)
        static unsigned long long *ctr;
        if (!ctr)
            CK(cudaMalloc(&ctr, 16 * sizeof *ctr));
        const long long U = (long long)S * (((long long)a.max_blocks_per_seq * BS) / 16);
        auto hyb = [&](const char *nm, auto kernel, int stages, int grid) {
            const int smem = 8 * stages * 2 * 16 * D * 2;
            CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
            row(nm, time_ms([&] { kernel<<<grid, 256, smem>>>(a, log2_bs, ctr, sink); },
                            [&] { CK(cudaMemsetAsync(ctr, 0, 16 * sizeof *ctr)); }));
            unsigned long long h[16];
            CK(cudaMemcpy(h, ctr, sizeof h, cudaMemcpyDeviceToHost));
            for (int w = 0; w < 8; w++)
                if (h[8 + w] != (unsigned long long)U)
                    printf("%s: warp %d consumed %llu units, expected %lld\n", nm, w, h[8 + w], U);
        };
        auto hyb_all = [&](auto d, auto stages) { // the same rows at head_dim d (its ring depth)
            constexpr int DD = decltype(d)::value, ST = decltype(stages)::value;
            hyb("static132", ldgsts_hyb_kernel<DD, ST, 100, 8>, ST, sms);
            hyb("static128", ldgsts_hyb_kernel<DD, ST, 100, 8>, ST, 128);
            hyb("hyb90c4", ldgsts_hyb_kernel<DD, ST, 90, 4>, ST, sms);
            hyb("hyb80c4", ldgsts_hyb_kernel<DD, ST, 80, 4>, ST, sms);
            hyb("hyb80c8", ldgsts_hyb_kernel<DD, ST, 80, 8>, ST, sms);
            hyb("hyb60c8", ldgsts_hyb_kernel<DD, ST, 60, 8>, ST, sms);
            hyb("dyn0c8", ldgsts_hyb_kernel<DD, ST, 0, 8>, ST, sms);
            hyb("dyn0c16", ldgsts_hyb_kernel<DD, ST, 0, 16>, ST, sms);
            hyb("static132", ldgsts_hyb_kernel<DD, ST, 100, 8>, ST, sms);
        };
        if (D == 64)
            hyb_all(std::integral_constant<int, 64>{}, std::integral_constant<int, 4>{});
        else
            hyb_all(std::integral_constant<int, 128>{}, std::integral_constant<int, 3>{});
        row("ref", time_ms([&] { paged_attention(&a, 0); }));
    }
    return 0;
}

// ---- mode "all": every shape, checked against fp64 on the CPU and timed with bench_time ----

static double half_bits_to_double(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? std::ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(1.0 + m / 1024.0, e - 15);
    return (h & 0x8000u) ? -v : v;
}

// fill_kernel's value of half j of a buffer filled with seed, recomputed on the host.
static double fill_value(size_t j, uint32_t seed)
{
    static std::vector<double> lut; // every half's value
    if (lut.empty()) {
        lut.resize(65536);
        for (int h = 0; h < 65536; h++)
            lut[h] = half_bits_to_double((uint16_t)h);
    }
    uint32_t x = (uint32_t)(j / 2) * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    const uint32_t lo = 0x3800u | (x & 0x3ffu) | ((x >> 10) & 1u) << 15;
    const uint32_t hi = 0x3800u | ((x >> 11) & 0x3ffu) | ((x >> 21) & 1u) << 15;
    return lut[(j & 1) ? hi : lo];
}

// The output of kv head (s * 7 + 1) % KVH of every sequence (all its query heads) against
// fp64: |got - ref| <= 2^-11 |ref| + 2e-3 sum_t p_t |v_t| + 2^-24 (the lab's checker, lab.yaml
// tolerance `out`). Returns the largest |got - ref| / bound (> 1: wrong; NaN counts as infinite).
static double check_output(const pa_batch &b, int *bad_elems)
{
    const paged_attention_args &a = b.a;
    const int S = a.num_seqs, H = a.num_heads, KVH = a.num_kv_heads, D = a.head_dim, BS = a.block_size,
              nb = a.max_blocks_per_seq, G = H / KVH;
    std::vector<uint16_t> out((size_t)S * H * D);
    CK(cudaMemcpy(out.data(), a.out, out.size() * 2, cudaMemcpyDeviceToHost));
    double worst = 0.0;
    int bad = 0;
    std::vector<double> kr, vr, sc;
    for (int s = 0; s < S; s++) {
        const int g = (s * 7 + 1) % KVH, ctx = b.lens[s];
        kr.assign((size_t)ctx * D, 0.0);
        vr.assign((size_t)ctx * D, 0.0);
        sc.assign(ctx, 0.0);
        for (int t = 0; t < ctx; t++) {
            const size_t row = (size_t)b.table[(size_t)s * nb + t / BS] * BS + t % BS;
            for (int d = 0; d < D; d++) {
                const size_t e = (row * KVH + g) * D + d;
                kr[(size_t)t * D + d] = fill_value(e, input_seed(2));
                vr[(size_t)t * D + d] = fill_value(e, input_seed(3));
            }
        }
        for (int hh = 0; hh < G; hh++) {
            const int h = g * G + hh;
            double q[128];
            for (int d = 0; d < D; d++)
                q[d] = fill_value(((size_t)s * H + h) * D + d, input_seed(1));
            double mx = -INFINITY;
            for (int t = 0; t < ctx; t++) {
                double acc = 0.0;
                for (int d = 0; d < D; d++)
                    acc += q[d] * kr[(size_t)t * D + d];
                sc[t] = acc * (double)a.scale;
                mx = std::max(mx, sc[t]);
            }
            double L = 0.0;
            for (int t = 0; t < ctx; t++) {
                sc[t] = std::exp(sc[t] - mx);
                L += sc[t];
            }
            for (int d = 0; d < D; d++) {
                double ref = 0.0, mag = 0.0;
                for (int t = 0; t < ctx; t++) {
                    ref += sc[t] * vr[(size_t)t * D + d];
                    mag += sc[t] * std::fabs(vr[(size_t)t * D + d]);
                }
                ref /= L;
                mag /= L;
                const double got = half_bits_to_double(out[((size_t)s * H + h) * D + d]);
                const double bound = std::ldexp(std::fabs(ref), -11) + 2e-3 * mag + std::ldexp(1.0, -24);
                const double e = std::fabs(got - ref) / bound;
                const double r = e == e ? e : INFINITY; // NaN (an output never written) counts as infinite
                if (!(r <= 1.0))
                    bad++;
                worst = std::max(worst, r);
            }
        }
    }
    *bad_elems = bad;
    return worst;
}

// A read of n16 16-byte words, 4 in flight per thread: the read-only ceiling of this process.
__global__ void read_only_kernel(const uint4 *p, size_t n16, int *sink)
{
    uint32_t x = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n16; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcs(p + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n16; i += stride) {
        const uint4 v = __ldcs(p + i);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// GB/s of the best of a few launch shapes reading 1 GiB, each bench_time(30).
static double read_only_gbps()
{
    const size_t bytes = 1ull << 30;
    void *buf;
    CK(cudaMalloc(&buf, bytes));
    fill_kernel<<<4096, 256>>>((uint32_t *)buf, bytes / 4, 7);
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    double best = 0.0;
    const int cfg[3][2] = {{4, 1024}, {8, 512}, {16, 256}};
    for (const auto &c : cfg) {
        const bench_timing t =
            bench_time([&] { read_only_kernel<<<sms * c[0], c[1]>>>((const uint4 *)buf, bytes / 16, sink); }, 30, 3);
        best = std::max(best, bytes / t.median_ms / 1e6);
    }
    CK(cudaGetLastError());
    CK(cudaFree(buf));
    return best;
}

// One shape: the call, timed (median of 30, bench_time) unless check_only, then the last
// call's output checked. Prints one line; returns whether the output passed.
static bool run_checked(const char *tag, int S, int H, int KVH, int D, int BS, int T, bool vary, bool check_only,
                        double ceiling_gbps)
{
    pa_batch b(S, H, KVH, D, BS, T, vary);
    const paged_attention_args &a = b.a;
    CK(cudaMemset(a.out, 0xff, (size_t)S * H * D * 2)); // NaN: an output never written fails
    paged_attention(&a, 0);
    CK(cudaDeviceSynchronize());
    double ms = 0.0;
    if (!check_only)
        ms = bench_time([&] { paged_attention(&a, 0); }, 30, 3).median_ms;
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int bad = 0;
    const double err = check_output(b, &bad);
    const bool ok = err <= 1.0;
    char shape[96];
    snprintf(shape, sizeof shape, "%d x %d%s, %d/%d, d%d, b%d", S, T, vary ? " (1..)" : "", H, KVH, D, BS);
    if (check_only)
        printf("%-8s %-34s %10s %8s %8s  err/tol %.3f %s\n", tag, shape, "check", "-", "-", err,
               ok ? "ok" : "WRONG  <<<<<<<<<<<<<<<<<<<<<<<<");
    else
        printf("%-8s %-34s %10.4f %8.0f %7.1f%%  err/tol %.3f %s\n", tag, shape, ms, b.bytes / ms / 1e6,
               100.0 * b.bytes / ms / 1e6 / ceiling_gbps, err, ok ? "ok" : "WRONG  <<<<<<<<<<<<<<<<<<<<<<<<");
    if (!ok)
        printf("WRONG: %s %s: %d elements out of tolerance (worst %.3g x the bound)\n", tag, shape, bad, err);
    fflush(stdout);
    return ok;
}

static int all_shapes(const char *tag)
{
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const double ro = read_only_gbps();
    printf("# %s (%d SMs); %s: read-only ceiling in this process %.0f GB/s (1 GiB read, bench_time)\n", prop.name,
           prop.multiProcessorCount, tag, ro);
    printf("%-8s %-34s %10s %8s %8s\n", "build", "shape", "ms", "GB/s", "of r/o");
    const int shapes[6][6] = {{64, 32, 8, 128, 16, 4096}, {64, 32, 32, 128, 16, 4096}, {64, 32, 8, 64, 32, 4096},
                              {1, 32, 8, 128, 16, 32768},  {256, 32, 8, 128, 16, 1024}, {32, 64, 8, 128, 16, 4096}};
    bool ok = true;
    std::vector<int> order = {0, 1, 2, 3, 4, 5};
    if (const char *only = getenv("PA_PROBE_ONLY")) { // "2,0,2": these shapes (0-5), in this order
        order.clear();
        for (const char *p = only; *p; p++)
            if (*p >= '0' && *p <= '5')
                order.push_back(*p - '0');
    }
    // 2 s idle before each shape: right after the 1.4 ms MHA shape's runs, head_dim 64 ran 15%
    // slower (0.222 against 0.190 ms, H100); with the pause, as in a process of its own
    const int rest_ms = getenv("PA_PROBE_REST_MS") ? atoi(getenv("PA_PROBE_REST_MS")) : 2000;
    for (const int i : order) {
        const int *sh = shapes[i];
        if (rest_ms > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(rest_ms));
        ok &= run_checked(tag, sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], false, false, ro);
    }
    // mixed lengths (sequence 0 at the maximum, the others 1..max): the cut-group paths; the
    // last two have 16 and 32 query heads per kv head, which the reference takes in chunks of 8
    const int mixed[6][6] = {{24, 32, 8, 128, 16, 3000}, {9, 64, 8, 64, 32, 5000}, {5, 16, 16, 128, 32, 9000},
                             {3, 32, 4, 128, 16, 20000}, {6, 64, 4, 128, 16, 7000}, {4, 64, 2, 64, 32, 6000}};
    for (const auto &sh : mixed)
        ok &= run_checked(tag, sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], true, true, ro);
    { // a batch of no sequences: nothing launched, no error (it once divided by zero choosing the grid)
        paged_attention_args a{};
        a.num_heads = 32, a.num_kv_heads = 8, a.head_dim = 128, a.block_size = 16, a.scale = 0.088f;
        paged_attention(&a, 0);
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaGetLastError();
        printf("%-8s %-34s %s\n", tag, "0 sequences", e == cudaSuccess ? "ok" : cudaGetErrorString(e));
        ok &= e == cudaSuccess;
    }
    printf("%s: %s\n", tag, ok ? "all outputs within tolerance" : "WRONG: some outputs out of tolerance");
    return ok ? 0 : 1;
}

#ifdef PA_PROBE_TRACE
__global__ void trace_reset_kernel()
{
    unsigned long long *t = &pa_trace[0][0][0][0];
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < sizeof pa_trace / 8; i += gridDim.x * blockDim.x)
        t[i] = 0;
}
__global__ void flush_end_kernel() { pa_flush_end = pa_now(); } // runs once the flush is done

// Runs fn 9 times after an L2 flush; for the run of median time, per PA_MARK point, the
// spread over CTAs of their first and last stamps, in us after the flush kernel ended.
template <class F> static void trace_phases(const char *what, F fn)
{
    static unsigned long long tr[PA_TRACE_CTAS][8][PA_TRACE_POINTS][2];
    std::vector<std::pair<float, std::vector<unsigned long long>>> runs;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int r = 0; r < 9; r++) {
        trace_reset_kernel<<<64, 256>>>();
        // PA_PROBE_WARM: one untraced run after the flush, so the kernel's code is in L2 (and
        // perhaps in the SMs' instruction caches) when the traced run starts
        const bool warm = getenv("PA_PROBE_WARM") != nullptr;
        const float ms = flushed_run_ms(e0, e1, fn, [&] {
            if (warm) {
                fn();
                trace_reset_kernel<<<64, 256>>>();
            }
            flush_end_kernel<<<1, 1>>>();
        });
        unsigned long long t0;
        CK(cudaMemcpyFromSymbol(tr, pa_trace, sizeof tr));
        CK(cudaMemcpyFromSymbol(&t0, pa_flush_end, sizeof t0));
        std::vector<unsigned long long> flat(1, t0);
        for (int c = 0; c < PA_TRACE_CTAS; c++) // per CTA: the first stamp of any warp, the last of any
            for (int p = 0; p < PA_TRACE_POINTS; p++) {
                unsigned long long lo = ~0ull, hi = 0;
                for (int w = 0; w < 8; w++)
                    if (tr[c][w][p][1]) {
                        lo = std::min(lo, tr[c][w][p][0]);
                        hi = std::max(hi, tr[c][w][p][1]);
                    }
                flat.push_back(hi ? lo : 0);
                flat.push_back(hi);
            }
        runs.emplace_back(ms, std::move(flat));
    }
    std::sort(runs.begin(), runs.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    const auto &mid = runs[runs.size() / 2];
    const unsigned long long t0 = mid.second[0];
    const unsigned long long *t = mid.second.data() + 1;
    printf("%s: event %.4f ms (median of 9 traced runs); us after the flush kernel ended\n", what, mid.first);
    printf("  %-9s %5s | %8s %8s %8s | %8s %8s %8s\n", "point", "CTAs", "first:min", "med", "max", "last:min", "med", "max");
    const char *names[PA_TRACE_POINTS] = {"entry", "scan", "data", "computed", "exit"};
    std::vector<unsigned long long> all;
    for (int p = 0; p < PA_TRACE_POINTS; p++) {
        std::vector<double> lo, hi;
        for (int c = 0; c < PA_TRACE_CTAS; c++) {
            const unsigned long long a = t[(c * PA_TRACE_POINTS + p) * 2], b = t[(c * PA_TRACE_POINTS + p) * 2 + 1];
            if (b == 0)
                continue;
            lo.push_back(((double)a - (double)t0) / 1e3);
            hi.push_back(((double)b - (double)t0) / 1e3);
            all.push_back(a);
            all.push_back(b);
        }
        if (lo.empty())
            continue;
        std::sort(lo.begin(), lo.end());
        std::sort(hi.begin(), hi.end());
        printf("  %-9s %5zu | %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f\n", names[p], lo.size(), lo.front(), lo[lo.size() / 2],
               lo.back(), hi.front(), hi[hi.size() / 2], hi.back());
    }
    // the CTAs that end last: when their last tile's data came, was computed, their warps left
    std::vector<std::pair<double, int>> ends;
    for (int c = 0; c < PA_TRACE_CTAS; c++)
        if (t[(c * PA_TRACE_POINTS + 4) * 2 + 1])
            ends.emplace_back(((double)t[(c * PA_TRACE_POINTS + 4) * 2 + 1] - (double)t0) / 1e3, c);
    std::sort(ends.rbegin(), ends.rend());
    // when the CTAs end, as percentiles: a wide spread means some SMs get less bandwidth,
    // and what a kernel does after its last loads lands on the slowest of them
    if (!ends.empty()) {
        printf("  exit percentiles (us):");
        for (int q : {0, 10, 25, 50, 75, 90, 95, 99, 100})
            printf(" p%d %.1f", q, ends[(ends.size() - 1) * (100 - q) / 100].first);
        printf("\n");
    }
    printf("  last to end: CTA (last data, last computed, first exit, last exit)\n   ");
    for (size_t i = 0; i < ends.size() && i < 6; i++) {
        const int c = ends[i].second;
        auto at = [&](int p, int w) { return ((double)t[(c * PA_TRACE_POINTS + p) * 2 + w] - (double)t0) / 1e3; };
        printf(" %d (%.1f %.1f %.1f %.1f)", c, at(2, 1), at(3, 1), at(4, 0), at(4, 1));
    }
    printf("\n");
    std::sort(all.begin(), all.end());
    unsigned long long step = ~0ull;
    for (size_t i = 1; i < all.size(); i++)
        if (all[i] != all[i - 1])
            step = std::min(step, all[i] - all[i - 1]);
    printf("  (global timer: smallest step seen %llu ns)\n", step);
}

// pa_probe trace SEQS HEADS KV_HEADS DIM BLOCK CTX: the phases of the reference's CTAs (and,
// on the bench's layout, of the load-only cp.async kernel's).
static int trace_shape(int S, int H, int KVH, int D, int BS, int T)
{
    pa_batch b(S, H, KVH, D, BS, T, getenv("PA_PROBE_VARY") != nullptr);
    const paged_attention_args &a = b.a;
    char what[128];
    snprintf(what, sizeof what, "ref, %d seqs x %d, %d / %d heads, dim %d, block %d", S, T, H, KVH, D, BS);
    trace_phases(what, [&] { paged_attention(&a, 0); });
    if (KVH == 8 && D == 128 && BS == 16 && !getenv("PA_PROBE_VARY")) {
        int sms = 0;
        CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        cudaFuncSetAttribute(ldgsts_units_kernel<128, 3, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 3 * 8192);
        trace_phases("ldgsts (loads only)", [&] { ldgsts_units_kernel<128, 3, 0><<<sms, 256, 8 * 3 * 8192>>>(a, 4, sink); });
    }
    return 0;
}
#endif

int main(int argc, char **argv)
{
    CK(cudaMalloc(&flush_buf, 256u << 20));
    CK(cudaMalloc(&sink, 4));
#ifdef PA_PROBE_TRACE
    if (argc == 8 && !strcmp(argv[1], "trace"))
        return trace_shape(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
#endif
    if (argc >= 2 && !strcmp(argv[1], "all"))
        return all_shapes(argc > 2 ? argv[2] : "ref");
    if (argc == 8 && !strcmp(argv[1], "loads")) // the load-only kernels at one shape, next to the reference
        return loads_shape(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    if (argc == 8 && !strcmp(argv[1], "shape"))
        return one_shape(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    const int S = 64, H = 32, KVH = argc > 1 ? atoi(argv[1]) : 8, D = 128, BS = 16, log2_bs = 4;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs; seqs %d, heads %d / %d, dim %d, block %d\n", prop.name, prop.multiProcessorCount, S, H, KVH, D,
           BS);
    printf("%-6s %-8s %-7s %9s %9s\n", "ctx", "table", "what", "ms", "GB/s");
    for (int T : {2048, 4096, 8192}) {
        if (getenv("PA_PROBE_CTX") && atoi(getenv("PA_PROBE_CTX")) != T)
            continue;
        pa_batch b(S, H, KVH, D, BS, T, false);
        const paged_attention_args &a = b.a;
        const int nb = a.max_blocks_per_seq;
        const double bytes = b.bytes;
        for (int shuffled = 1; shuffled >= 0; shuffled--) {
            b.set_table(shuffled);
            const char *tn = shuffled ? "shuffle" : "ident";
            auto row = [&](const char *what, float ms) { printf("%-6d %-8s %-7s %9.4f %9.0f\n", T, tn, what, ms, bytes / ms / 1e6); };
            if (shuffled) {
                // the unique bytes, contiguous (the first S*nb blocks of each cache)
                size_t n16 = (size_t)S * nb * BS * KVH * D * 2 / 16;
                row("stream", time_ms([&] {
                        read_stream_kernel<<<prop.multiProcessorCount * 8, 512>>>((const uint4 *)a.k_cache, n16, sink);
                        read_stream_kernel<<<prop.multiProcessorCount * 8, 512>>>((const uint4 *)a.v_cache, n16, sink);
                    }));
            }
            for (int part : {1024, 4096}) {
                char nm[32];
                snprintf(nm, sizeof nm, "gath%d", part);
                row(nm, time_ms([&] { gather_kernel<false><<<dim3((T + part - 1) / part, KVH, S), 256>>>(a, part, log2_bs, sink); }));
                snprintf(nm, sizeof nm, "gkvf%d", part);
                row(nm, time_ms([&] { gather_kernel<true><<<dim3(KVH, (T + part - 1) / part, S), 256>>>(a, part, log2_bs, sink); }));
            }
            for (int part : {128, 512}) {
                char nm[32];
                snprintf(nm, sizeof nm, "gall%d", part);
                row(nm, time_ms([&] { gather_all_kernel<<<dim3((T + part - 1) / part, 1, S), 512>>>(a, part, log2_bs, sink); }));
            }
            if (KVH == 8) {
                auto ldg = [&](const char *nm, auto kernel, int stages) {
                    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * stages * 8192);
                    row(nm, time_ms([&] { kernel<<<prop.multiProcessorCount, 256, 8 * stages * 8192>>>(a, log2_bs, sink); }));
                };
                ldg("ldgsts", ldgsts_units_kernel<128, 3, 0>, 3);
                ldg("ldg256", ldgsts_units_kernel<128, 3, LD_HINT256>, 3);
                ldg("ldgevf", ldgsts_units_kernel<128, 3, LD_EVICT_FIRST>, 3);
                ldg("ldg2st", ldgsts_units_kernel<128, 2, 0>, 2);
                ldg("ldgspin", ldgsts_units_kernel<128, 3, LD_SPIN>, 3);
                ldg("ldgscan", ldgsts_units_kernel<128, 3, LD_SCAN>, 3);
                ldg("ldgall", ldgsts_units_kernel<128, 3, LD_EVICT_FIRST | LD_SCAN | LD_SPIN>, 3);
                {
                    static unsigned long long *ctr;
                    if (!ctr)
                        CK(cudaMalloc(&ctr, 16 * sizeof *ctr));
                    auto dyn = [&](const char *nm, auto kernel) {
                        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 3 * 8192);
                        row(nm, time_ms(
                                    [&] { kernel<<<prop.multiProcessorCount, 256, 8 * 3 * 8192>>>(a, ctr, 0ull, sink); },
                                    [&] { CK(cudaMemsetAsync(ctr, 0, 16 * sizeof *ctr)); })); // before the start event
                        unsigned long long h[16];
                        CK(cudaMemcpy(h, ctr, sizeof h, cudaMemcpyDeviceToHost));
                        for (int w = 0; w < 8; w++)
                            if (h[8 + w] != (unsigned long long)S * nb)
                                printf("%s: warp %d consumed %llu units, expected %d\n", nm, w, h[8 + w], S * nb);
                    };
                    dyn("dyn4", ldgsts_dyn_kernel<3, 4>);
                    dyn("dyn8", ldgsts_dyn_kernel<3, 8>);
                    dyn("dyn16", ldgsts_dyn_kernel<3, 16>);
                    dyn("dyn32", ldgsts_dyn_kernel<3, 32>);
                    dyn("dynguid", ldgsts_dyn_kernel<3, 0>);
                    ldg("ldgsts", ldgsts_units_kernel<128, 3, 0>, 3);
                }
                cudaFuncSetAttribute(tma_units_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 3 * 65536);
                row("tma", time_ms([&] { tma_units_kernel<<<prop.multiProcessorCount, 256, 3 * 65536>>>(a, sink); }));
            }
            row("ref", time_ms([&] { paged_attention(&a, 0); }));
        }
    }
    return 0;
}
