// topo_variants.cu: topo_sort variants next to reference/topo_sort.cu on the lab's graphs
// (issue 17, target >= 27.4 G edges/s on the bench graph). Built and run by run.sh.
//
// Graphs are made by a port of grader/labs/topo_sort.c's generator (layered / chain /
// components, dup, self loops, hidden cycle; node ids randomly permuted), so they are the
// same kind as the lab's. Every output of every variant is checked against a CPU Kahn:
// *status must match (cycle or not), and for a DAG order must be a permutation of 0..n-1 in
// which every edge goes forward (all edges). A wrong output prints WRONG.
//
// Variants (one templated cooperative kernel, features switched on one by one):
//   ref  reference/topo_sort.cu as it is (included below)
//   v1   the reference's algorithm in the templated kernel, with globaltimer stamps
//        per phase: the phase breakdown of the reference
//   v2   + block-aggregated appends: a shared-memory queue per block, flushed with one
//        global atomicAdd per block per level (coalesced writes of order); warps whose
//        appends do not fit fall back to the reference's warp-aggregated global append
//   v3   + the row walk unrolled by 2 (both col loads, then both atomicSubs in flight)
//   v4   + in-degrees without global atomics: bucket the edges by destination range
//        (pass 1: per-block shared histogram over <= 1024 ranges + one atomic per range
//        per block; pass 2: scatter col into a bucketed copy; pass 3: one block per
//        range counts with shared atomics, writes indeg and appends the first frontier)
//   v5   + small frontiers (<= 2 x nodes a block covers per pass) run in block 0 alone
//        with __syncthreads instead of grid barriers
//   v6   v5 with 1024-thread blocks (2 per SM: 4x fewer barrier arrivals than 512 x 4)
//   v7   v5 with 1024-thread blocks, 1 per SM
//   v8   v5 with 4 lanes per frontier node (512 threads)
//   v9   v1 + bucketed in-degrees only (isolates the count)
//   v10  v4's count, then asynchronous Kahn: no barrier per level; order is a queue that
//        warps claim (head counter), poll (pre-filled -1) and append to (tail counter,
//        per-warp shared buffer); a done counter detects the end / a cycle (v_async)
//   v11  v10 with 4 lanes per node (8 nodes per claim: half the head/done atomics)
//   v12  v10 with the reference's RED count
//   v13  v10 with 2 blocks per SM (half the polling warps)
// Round 2 (reference = v3 now; v2, v4-v6, v8, v9, v11-v13 are still checked on every graph
// but no longer timed):
//   v14  v3 with 1024-thread blocks, 1 per SM (132 barrier arrivals instead of 528)
//   v15  v3 with 1024-thread blocks, 2 per SM
//   v16  v3 with a hand-written grid barrier (counter + generation word, thread 0 spins on a
//        volatile load) after the first barrier, instead of cg::grid_group::sync
//   v17  v16 with __nanosleep backoff (32..256 ns) in the spin
//   v18  v16 with 1024-thread blocks, 1 per SM
//   v19  block-local frontiers (v_local): a block expands the nodes it found itself, from
//        shared memory; the level barrier is one 64-bit atomicAdd per block that both
//        arrives and claims the block's slots in order (no flush atomic, no load of order on
//        the critical path); the first frontier needs no barrier of its own; row_ptr
//        prefetched into L2 during the first-frontier scan. Overflow of the shared queue
//        spills to a global array that all blocks share at the next level.
//   v20  v19 with 1024 threads x 1/SM    v21  v19 with 1024 threads x 2/SM
//   v22  v20 with __nanosleep backoff    v23  v19 with 4 lanes x unroll 4 per node
// The async kernels carry a harness-only watchdog (a slot awaited 0.5 s sets a flag the
// host prints as HUNG) so that a bug reports instead of hanging; run.sh also wraps the
// binary in `timeout 70`.
// Each variant prints ms (median of >= 30, L2 flushed, bench_time), G edges/s, speed-up
// over ref, bytes the lab counts ((2n + 2 + m) x 4) as a fraction of cudaMemcpy D2D
// measured in the same process, and a per-phase breakdown from one untimed stamped run.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/peers/cuda_timing.cuh"
#include "grader/gen.h"

// ---- the grader's scratch allocator, as the runner exports it ----
static void *g_scratch = nullptr;
static size_t g_scratch_bytes = 0;
extern "C" void *cudalab_scratch(size_t bytes)
{
    if (bytes > g_scratch_bytes) {
        if (g_scratch)
            cudaFree(g_scratch);
        g_scratch = nullptr;
        g_scratch_bytes = 0;
        if (cudaMalloc(&g_scratch, bytes) != cudaSuccess)
            return nullptr;
        g_scratch_bytes = bytes;
    }
    return g_scratch;
}

// The reference's phases: block 0 stamps the global timer at its TOPO_MARK points (zeroed,
// counted, first frontier, end), one store each.
#define TOPO_MARK(point)                                                                                           \
    do {                                                                                                           \
        if (blockIdx.x == 0 && threadIdx.x == 0) {                                                                 \
            unsigned long long t_;                                                                                 \
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_));                                                 \
            topo_marks[point] = t_;                                                                                \
        }                                                                                                          \
    } while (0)
__device__ unsigned long long topo_marks[8];
#include "reference/topo_sort.cu" // defines topo_sort(), the baseline
// The reference built with other settings, each in a namespace of its own: slabs of 8
// entries (TOPO_SLAB_CAP), so that most edges take the overflow path, and 256 buckets
// (TOPO_NB).
namespace spill {
__device__ unsigned long long topo_marks[8];
#define TOPO_SLAB_CAP 8
#define topo_sort topo_sort_spill
#include "reference/topo_sort.cu"
#undef topo_sort
#undef TOPO_SLAB_CAP
} // namespace spill
namespace nospec {
__device__ unsigned long long topo_marks[8];
#undef TOPO_SPEC
#define TOPO_SPEC 0
#define topo_sort topo_sort_nospec
#include "reference/topo_sort.cu"
#undef topo_sort
#undef TOPO_SPEC
} // namespace nospec
namespace nb256 {
__device__ unsigned long long topo_marks[8];
#undef TOPO_NB
#define TOPO_NB 256
#define topo_sort topo_sort_nb256
#include "reference/topo_sort.cu"
#undef topo_sort
} // namespace nb256
#undef TOPO_MARK
// ref_before.cu (optional, not in the repository): an earlier reference to time beside this
// one, e.g. `git show HEAD:reference/topo_sort.cu > bench/dev/variants/topo_sort/ref_before.cu`
#if __has_include("ref_before.cu")
#define TOPO_HAVE_BEFORE 1
namespace before {
#define topo_sort topo_sort_before
#include "ref_before.cu"
#undef topo_sort
} // namespace before
#else
#define TOPO_HAVE_BEFORE 0
#endif

// =====================================================================================
// The variant kernel
// =====================================================================================
#define V_QCAP 2048  // shared append queue per block (ints)
#define V_NBMAX 1024 // most destination ranges (buckets) for the bucketed count
#define V_RMAX 4096  // most nodes per range (shared histogram of pass 3)

struct VParams {
    const int *row_ptr, *col;
    int n, m;
    int *order, *status, *indeg;
    int *cnt;      // [0..2] level counters, [4..5] head / tail handed over by small mode;
                   // async: [0] tail, [32] head, [64] done (own 128-byte lines)
    int *bcur;     // [V_NBMAX] bucket cursors (bucketed count)
    int *bucketed; // [m] col grouped by destination range
    int rshift, nb, use_bucket, small_t;
    unsigned long long *prof; // globaltimer stamps by block 0 after every barrier (or null)
    int prof_cap;
};

enum { AP_GLOBAL = 0, AP_SHQ = 1, AP_LOCAL = 2 };

__device__ __forceinline__ unsigned long long v_globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// the reference's warp-aggregated append to a global counter
__device__ __forceinline__ void v_warp_append(bool push, int v, int *order, int offset, int *counter)
{
    unsigned mask = __ballot_sync(0xffffffffu, push);
    if (!mask)
        return;
    int lane = threadIdx.x & 31;
    int leader = __ffs(mask) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(counter, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (push)
        order[offset + base + __popc(mask & ((1u << lane) - 1u))] = v;
}

struct VShared {
    int q[V_QCAP]; // block append queue
    int qn;        // entries claimed in q (may run past V_QCAP: the rest went global)
    int sn;        // small mode: nodes appended to the next level
    int misc[2];
};

// One append of the whole warp: AP_GLOBAL as the reference; AP_SHQ into the block queue
// (overflow lanes go global); AP_LOCAL straight into order through the block's counter.
template <int MODE>
__device__ __forceinline__ void v_append(VShared &sh, bool push, int v, int *order, int offset, int *counter)
{
    if (MODE == AP_GLOBAL) {
        v_warp_append(push, v, order, offset, counter);
        return;
    }
    unsigned mask = __ballot_sync(0xffffffffu, push);
    if (!mask)
        return;
    int lane = threadIdx.x & 31;
    int leader = __ffs(mask) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(MODE == AP_SHQ ? &sh.qn : &sh.sn, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    int idx = base + __popc(mask & ((1u << lane) - 1u));
    if (MODE == AP_LOCAL) {
        if (push)
            order[offset + idx] = v;
        return;
    }
    if (push && idx < V_QCAP)
        sh.q[idx] = v;
    if (base + __popc(mask) > V_QCAP) // warp-uniform
        v_warp_append(push && idx >= V_QCAP, v, order, offset, counter);
}

// Writes the block queue out: one atomicAdd on the global counter for the whole block.
__device__ __forceinline__ void v_flush(VShared &sh, int *order, int offset, int *counter)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        int k = min(sh.qn, V_QCAP);
        sh.misc[0] = k ? atomicAdd(counter, k) : 0;
        sh.misc[1] = k;
        sh.qn = 0;
    }
    __syncthreads();
    int base = sh.misc[0], k = sh.misc[1];
    for (int i = threadIdx.x; i < k; i += blockDim.x)
        order[offset + base + i] = sh.q[i];
    // the next append comes after a grid or block barrier
}

// Expands the frontier order[lo, hi): GR lanes per node, the walk unrolled UNR times.
template <int GR, int UNR, int MODE>
__device__ __forceinline__ void v_expand(VShared &sh, const VParams &p, int lo, int hi, long long wid,
                                         long long nw, int offset, int *counter)
{
    const int lane = threadIdx.x & 31;
    const int sub = lane % GR;
    const int gpw = 32 / GR;
    for (long long first = lo + wid * gpw; first < hi; first += nw * gpw) {
        long long slot = first + lane / GR;
        int beg = 0, end = 0;
        if (slot < hi) {
            int u = __ldcg(p.order + slot);
            beg = __ldg(p.row_ptr + u);
            end = __ldg(p.row_ptr + u + 1);
        }
        for (int k = beg + sub; __any_sync(0xffffffffu, k < end); k += UNR * GR) {
            int v[UNR];
            bool push[UNR];
#pragma unroll
            for (int j = 0; j < UNR; j++) {
                v[j] = 0;
                if (k + j * GR < end)
                    v[j] = __ldg(p.col + k + j * GR);
            }
#pragma unroll
            for (int j = 0; j < UNR; j++)
                push[j] = k + j * GR < end && atomicSub(&p.indeg[v[j]], 1) == 1;
#pragma unroll
            for (int j = 0; j < UNR; j++)
                v_append<MODE>(sh, push[j], v[j], p.order, offset, counter);
        }
    }
}

// A hand-written grid barrier: one arrival counter and a generation word in global memory.
// Thread 0 of each block reads the generation, arrives (atomicAdd after a fence that
// publishes the block's writes), and spins on a volatile load of the generation until the
// last arriver resets the counter and bumps it. SLEEP: __nanosleep backoff in the spin
// (fewer loads hammering the line the last arriver must write, a little release latency).
// The counter must be 0 when the kernel starts using it (zeroed before a cg barrier).
template <bool SLEEP>
__device__ __forceinline__ void v_grid_barrier(unsigned *count, unsigned *gen)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned *vgen = gen;
        const unsigned g = *vgen; // cannot move before this block arrives
        __threadfence();
        const unsigned nb = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(count, 1u) == nb - 1) {
            atomicExch(count, 0u);
            __threadfence();
            atomicExch(gen, g + 1);
        } else {
            unsigned ns = 32;
            while (*vgen == g) {
                if (SLEEP) {
                    __nanosleep(ns);
                    ns = ns < 256 ? ns * 2 : 256;
                }
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// Asynchronous Kahn (no barrier per level): order is a queue. A warp claims the next
// 32/GR slots (atomicAdd on a head counter) and polls them (order is pre-filled with -1);
// it walks the rows of those already written, appends the nodes whose in-degree reaches 0
// through a per-warp shared buffer (one atomicAdd on the tail counter per 64 appends or
// per round), then polls the rest again: a warp never sits on a written slot while it
// waits, so it cannot wait for itself (a chain). A node is appended after its last
// predecessor's decrement, which follows that predecessor's slot, so queue order is a
// topological order. End: after a round a warp adds its nodes to `done` (after a fence
// that follows its appends); the warp that brings done up to tail (read after) knows no
// node can come and writes -2 into the slots [tail, n) that are still polled: the others
// see it and stop (a cycle when tail < n). No hot flag is polled.
#define V_WBUF 64
template <int TH, int GR, int UNR>
__device__ __forceinline__ void v_async(const VParams &p, int (*wbuf)[V_WBUF])
{
    const int n = p.n;
    const int lane = threadIdx.x & 31, sub = lane % GR, gpw = 32 / GR;
    int *buf = wbuf[threadIdx.x / 32];
    int *tailc = &p.cnt[0], *headc = &p.cnt[32], *donec = &p.cnt[64];
    volatile int *vtail = tailc;
    const volatile int *vorder = p.order;
    int nbuf = 0; // warp-uniform
    auto flush = [&]() {
        __syncwarp();
        int base = 0;
        if (lane == 0 && nbuf)
            base = atomicAdd(tailc, nbuf);
        base = __shfl_sync(0xffffffffu, base, 0);
        for (int i = lane; i < nbuf; i += 32)
            p.order[base + i] = buf[i];
        __syncwarp();
        nbuf = 0;
    };
    auto push = [&](bool pu, int v) {
        unsigned mask = __ballot_sync(0xffffffffu, pu);
        if (!mask)
            return;
        int c = __popc(mask);
        if (nbuf + c > V_WBUF)
            flush();
        if (pu)
            buf[nbuf + __popc(mask & ((1u << lane) - 1u))] = v;
        nbuf += c;
    };
    for (;;) {
        int s = 0;
        if (lane == 0)
            s = atomicAdd(headc, gpw);
        s = __shfl_sync(0xffffffffu, s, 0);
        if (s >= n)
            break;
        const int slot = s + lane / GR;
        bool pending = slot < n, stop = false;
        int ns = 64;
        unsigned long long waited_since = 0;
        while (__any_sync(0xffffffffu, pending)) {
            int u = -1;
            if (pending) {
                int x = vorder[slot];
                if (x >= 0) {
                    u = x;
                    pending = false;
                } else if (x == -2) { // the queue ran dry: never written
                    pending = false;
                    stop = true;
                }
            }
            unsigned ready = __ballot_sync(0xffffffffu, u >= 0 && sub == 0);
            if (!ready) {
                if (__any_sync(0xffffffffu, pending)) {
                    if (ns == 1024) { // a watchdog for this harness: a bug must not hang the run
                        unsigned long long now = v_globaltimer();
                        if (!waited_since)
                            waited_since = now;
                        else if (now - waited_since > 500000000ull) { // 0.5 s
                            p.cnt[96] = 1; // reported as HUNG by the host
                            stop = true;
                            pending = false;
                        }
                    }
                    __nanosleep(ns);
                    ns = ns < 1024 ? ns * 2 : 1024;
                }
                continue;
            }
            waited_since = 0;
            ns = 64;
            int beg = 0, end = 0;
            if (u >= 0) {
                beg = __ldg(p.row_ptr + u);
                end = __ldg(p.row_ptr + u + 1);
            }
            for (int k = beg + sub; __any_sync(0xffffffffu, k < end); k += UNR * GR) {
                int v[UNR];
                bool pu[UNR];
#pragma unroll
                for (int j = 0; j < UNR; j++) {
                    v[j] = 0;
                    if (k + j * GR < end)
                        v[j] = __ldg(p.col + k + j * GR);
                }
#pragma unroll
                for (int j = 0; j < UNR; j++)
                    pu[j] = k + j * GR < end && atomicSub(&p.indeg[v[j]], 1) == 1;
#pragma unroll
                for (int j = 0; j < UNR; j++)
                    push(pu[j], v[j]);
            }
            flush();
            __threadfence(); // the appends above are seen before done counts these nodes
            int t = 0, d = 0;
            if (lane == 0) {
                d = atomicAdd(donec, __popc(ready)) + __popc(ready);
                __threadfence();
                t = *vtail;
            }
            d = __shfl_sync(0xffffffffu, d, 0);
            t = __shfl_sync(0xffffffffu, t, 0);
            if (d == t) // every appended node processed: nothing can come; poison the rest
                for (int i = t + lane; i < n; i += 32)
                    p.order[i] = -2;
        }
        if (__any_sync(0xffffffffu, stop))
            break;
    }
}

template <int TH, int GR, bool BUCKET, bool SHQ, bool SMALL, int UNR, bool ASYNC = false, int BAR = 0>
__global__ void __launch_bounds__(TH, 2048 / TH) v_kernel(VParams p) // 32 registers: full occupancy
{
    // grid barriers after the first: cg's (BAR 0) or the hand-written one (BAR 1: pure spin,
    // BAR 2: __nanosleep backoff); its words (cnt[112], cnt[120]) are zeroed before the first
#define V_SYNC()                                                                                               \
    do {                                                                                                       \
        if (BAR == 0)                                                                                          \
            grid.sync();                                                                                       \
        else                                                                                                   \
            v_grid_barrier<BAR == 2>((unsigned *)&p.cnt[112], (unsigned *)&p.cnt[120]);                        \
    } while (0)
    cg::grid_group grid = cg::this_grid();
    __shared__ VShared sh;
    __shared__ int s_base[BUCKET ? V_NBMAX + 1 : 1];
    __shared__ int s_work[BUCKET ? V_RMAX : 1];
    constexpr int AP = SHQ ? AP_SHQ : AP_GLOBAL;

    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int n = p.n, m = p.m;
    int pi = 0;
    const bool stamper = p.prof && blockIdx.x == 0 && threadIdx.x == 0;
#define V_STAMP()                                                                                              \
    do {                                                                                                       \
        if (stamper && pi < p.prof_cap)                                                                        \
            p.prof[pi++] = v_globaltimer();                                                                    \
    } while (0)
    V_STAMP(); // 0: start

    // 1. zero what is counted into
    const bool bucket = BUCKET && p.use_bucket;
    if (!bucket)
        for (long long i = tid; i < n; i += nthreads)
            p.indeg[i] = 0;
    else
        for (long long i = tid; i < p.nb; i += nthreads)
            p.bcur[i] = 0;
    if (tid < 128)
        p.cnt[tid] = 0;
    if (ASYNC) // the queue's empty slots
        for (long long i = tid; i < n; i += nthreads)
            p.order[i] = -1;
    if (threadIdx.x == 0) {
        sh.qn = 0;
        sh.sn = 0;
    }
    grid.sync();
    V_STAMP(); // 1: zeroed

    if (BUCKET && bucket) {
        // 2a. per-block histogram of its chunk of col over the nb ranges (shared atomics),
        //     then one global atomic per range reserves the block's slots in that range
        const int nb = p.nb, rs = p.rshift;
        long long chunk = ((long long)m + gridDim.x - 1) / gridDim.x;
        chunk = (chunk + 3) & ~3LL;
        const int c0 = (int)min((long long)m, chunk * blockIdx.x), c1 = (int)min((long long)m, c0 + chunk);
        const bool vec = ((uintptr_t)p.col & 15) == 0;
        for (int b = threadIdx.x; b < nb; b += TH)
            s_work[b] = 0;
        __syncthreads();
        if (vec) {
            const int4 *col4 = reinterpret_cast<const int4 *>(p.col + c0);
            const int q = (c1 - c0) / 4;
            for (int i = threadIdx.x; i < q; i += TH) {
                int4 e = __ldg(col4 + i);
                atomicAdd(&s_work[e.x >> rs], 1);
                atomicAdd(&s_work[e.y >> rs], 1);
                atomicAdd(&s_work[e.z >> rs], 1);
                atomicAdd(&s_work[e.w >> rs], 1);
            }
            for (int i = c0 + q * 4 + threadIdx.x; i < c1; i += TH)
                atomicAdd(&s_work[__ldg(p.col + i) >> rs], 1);
        } else {
            for (int i = c0 + threadIdx.x; i < c1; i += TH)
                atomicAdd(&s_work[__ldg(p.col + i) >> rs], 1);
        }
        __syncthreads();
        for (int b = threadIdx.x; b < nb; b += TH) {
            int h = s_work[b];
            s_work[b] = h ? atomicAdd(&p.bcur[b], h) : 0; // the block's offset inside range b
        }
        V_SYNC();
        V_STAMP(); // 2: histograms

        // 2b. range starts = exclusive scan of the totals (every block, in shared), then
        //     scatter the chunk into its slots (order inside a range does not matter)
        for (int b = threadIdx.x; b < nb; b += TH)
            s_base[b] = __ldcg(p.bcur + b);
        __syncthreads();
        if (threadIdx.x < 32) {
            const int per = (nb + 31) / 32;
            int lo = threadIdx.x * per, hi = min(nb, lo + per), s = 0;
            for (int b = lo; b < hi; b++)
                s += s_base[b];
            int incl = s;
            for (int d = 1; d < 32; d <<= 1) {
                int y = __shfl_up_sync(0xffffffffu, incl, d);
                if (threadIdx.x >= d)
                    incl += y;
            }
            int run = incl - s;
            for (int b = lo; b < hi; b++) {
                int t = s_base[b];
                s_base[b] = run;
                run += t;
            }
            if (threadIdx.x == 31)
                s_base[nb] = incl;
        }
        __syncthreads();
        for (int b = threadIdx.x; b < nb; b += TH)
            s_work[b] += s_base[b];
        __syncthreads();
        if (vec) {
            const int4 *col4 = reinterpret_cast<const int4 *>(p.col + c0);
            const int q = (c1 - c0) / 4;
            for (int i = threadIdx.x; i < q; i += TH) {
                int4 e = __ldg(col4 + i);
                p.bucketed[atomicAdd(&s_work[e.x >> rs], 1)] = e.x;
                p.bucketed[atomicAdd(&s_work[e.y >> rs], 1)] = e.y;
                p.bucketed[atomicAdd(&s_work[e.z >> rs], 1)] = e.z;
                p.bucketed[atomicAdd(&s_work[e.w >> rs], 1)] = e.w;
            }
            for (int i = c0 + q * 4 + threadIdx.x; i < c1; i += TH) {
                int v = __ldg(p.col + i);
                p.bucketed[atomicAdd(&s_work[v >> rs], 1)] = v;
            }
        } else {
            for (int i = c0 + threadIdx.x; i < c1; i += TH) {
                int v = __ldg(p.col + i);
                p.bucketed[atomicAdd(&s_work[v >> rs], 1)] = v;
            }
        }
        V_SYNC();
        V_STAMP(); // 3: scattered

        // 2c. one block per range: count with shared atomics, write indeg, append the
        //     nodes with none to the first frontier (through cnt[0])
        const int R = 1 << rs;
        for (int b = blockIdx.x; b < nb; b += gridDim.x) {
            for (int i = threadIdx.x; i < R; i += TH)
                s_work[i] = 0;
            __syncthreads();
            const int e0 = s_base[b], e1 = s_base[b + 1];
            int k = e0 + threadIdx.x;
            for (; k + 3 * TH < e1; k += 4 * TH) { // 4 loads in flight, then 4 shared atomics
                int a = __ldcg(p.bucketed + k), b2 = __ldcg(p.bucketed + k + TH);
                int c = __ldcg(p.bucketed + k + 2 * TH), d = __ldcg(p.bucketed + k + 3 * TH);
                atomicAdd(&s_work[a & (R - 1)], 1);
                atomicAdd(&s_work[b2 & (R - 1)], 1);
                atomicAdd(&s_work[c & (R - 1)], 1);
                atomicAdd(&s_work[d & (R - 1)], 1);
            }
            for (; k < e1; k += TH)
                atomicAdd(&s_work[__ldcg(p.bucketed + k) & (R - 1)], 1);
            __syncthreads();
            const int v0 = b << rs;
            for (int i = threadIdx.x; i < R; i += TH) { // R is a multiple of 32: warp-uniform
                int v = v0 + i;
                int c = s_work[i];
                if (v < n)
                    p.indeg[v] = c;
                v_append<AP>(sh, v < n && c == 0, v, p.order, 0, &p.cnt[0]);
            }
            __syncthreads();
        }
        if (SHQ)
            v_flush(sh, p.order, 0, &p.cnt[0]);
        V_SYNC();
        V_STAMP(); // 4: counted + first frontier
    } else {
        // 2. in-degrees: one RED per edge (the reference)
        if (((uintptr_t)p.col & 15) == 0) {
            const int4 *col4 = reinterpret_cast<const int4 *>(p.col);
            long long m4 = m / 4;
            for (long long i = tid; i < m4; i += nthreads) {
                int4 e = __ldg(col4 + i);
                atomicAdd(&p.indeg[e.x], 1);
                atomicAdd(&p.indeg[e.y], 1);
                atomicAdd(&p.indeg[e.z], 1);
                atomicAdd(&p.indeg[e.w], 1);
            }
            for (long long i = m4 * 4 + tid; i < m; i += nthreads)
                atomicAdd(&p.indeg[__ldg(p.col + i)], 1);
        } else {
            for (long long i = tid; i < m; i += nthreads)
                atomicAdd(&p.indeg[__ldg(p.col + i)], 1);
        }
        V_SYNC();
        V_STAMP();
        V_STAMP(); // 2, 3: (same slot layout as the bucketed path)
        // 3. first frontier
        long long span = (n + 31) / 32 * 32;
        for (long long i = tid; i < span; i += nthreads) {
            bool push = i < n && __ldcg(p.indeg + i) == 0;
            v_append<AP>(sh, push, (int)i, p.order, 0, &p.cnt[0]);
        }
        if (SHQ)
            v_flush(sh, p.order, 0, &p.cnt[0]);
        V_SYNC();
        V_STAMP(); // 4
    }

    if (ASYNC) {
        __shared__ int wbuf[TH / 32][V_WBUF];
        if (*(volatile int *)&p.cnt[0] > 0) // an empty first frontier: nothing will ever be done
            v_async<TH, GR, UNR>(p, wbuf);
        V_SYNC();
        V_STAMP();
        if (tid == 0)
            *p.status = *(volatile int *)&p.cnt[0] < n ? 1 : 0;
        return;
    }

    // 4. levels
    volatile int *vcnt = p.cnt;
    const long long warp_id = tid / 32, nwarps = nthreads / 32;
    int head = 0, tail = vcnt[0], ci = 0;
    while (head < tail) {
        if (SMALL && tail - head <= p.small_t) {
            if (blockIdx.x == 0) {
                // levels inside block 0 while they stay small: __syncthreads, no grid barrier
                int h = head, t = tail;
                while (h < t && t - h <= p.small_t) {
                    v_expand<GR, UNR, AP_LOCAL>(sh, p, h, t, threadIdx.x / 32, TH / 32, t, nullptr);
                    __syncthreads();
                    int added = sh.sn;
                    __syncthreads();
                    if (threadIdx.x == 0)
                        sh.sn = 0;
                    __syncthreads(); // reset before the next level's appends
                    h = t;
                    t += added;
                }
                if (threadIdx.x == 0) {
                    p.cnt[4] = h;
                    p.cnt[5] = t;
                }
            }
            V_SYNC();
            V_STAMP();
            head = vcnt[4];
            tail = vcnt[5];
            continue;
        }
        int *next = &p.cnt[(ci + 1) % 3];
        if (tid == 0)
            p.cnt[(ci + 2) % 3] = 0; // last read two barriers ago
        v_expand<GR, UNR, AP>(sh, p, head, tail, warp_id, nwarps, tail, next);
        if (SHQ)
            v_flush(sh, p.order, tail, next);
        V_SYNC();
        V_STAMP();
        int added = vcnt[(ci + 1) % 3];
        head = tail;
        tail += added;
        ci++;
    }
    if (tid == 0)
        *p.status = tail < n ? 1 : 0;
#undef V_STAMP
#undef V_SYNC
}

// =====================================================================================
// v18..: block-local frontiers, one fused arrival per level
// =====================================================================================
// The nodes a block appends stay in its shared memory and the block expands them itself
// at the next level: no load of order on the level's critical path, no flush atomic. The
// level barrier is hand-written and carries the counts: thread 0 arrives with ONE 64-bit
// atomicAdd on bar = (arrivals << 32 | nodes placed so far) adding (1 << 32 | its count);
// the old low half is where its nodes go in order (written after the barrier, off the
// critical path), and the last arriver sees the level's total. Nodes that do not fit the
// shared queue (QC) go to a global spill array (warp-aggregated atomic on a spill counter);
// the last arriver places them after the local ones, and at the next level every block
// takes a grid-strided share of them (they are visible after the barrier). So the first
// frontier (each block scans its own range of indeg) needs no barrier of its own either: it
// is published by the first level's arrival. Termination: a level that adds nothing.
// Words (cnt): [32..33] bar (64-bit), [64] generation, [65] tail, [66..67] spill range of the
// level, [68] where the spilled nodes go; [80] spill counter. Row_ptr is prefetched into L2
// (prefetch.global.L2) during the first-frontier scan (it is read at random by the levels).
// NS: __nanosleep backoff (ns, 0 = pure spin) of the waiting thread 0s.
template <int TH, int GR, int UNR, int QC, int NS>
__global__ void __launch_bounds__(TH, 2048 / TH) v_local(VParams p)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int q[2][QC];
    __shared__ int s_qn;
    __shared__ int s_b[5]; // offset, tail, spill lo, spill hi, spill placement
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int n = p.n, m = p.m;
    const unsigned G = gridDim.x;
    unsigned long long *bar = reinterpret_cast<unsigned long long *>(p.cnt + 32);
    unsigned *rel = reinterpret_cast<unsigned *>(p.cnt + 64);
    int *spillc = p.cnt + 80;
    int *spill = p.bucketed;
    const int lane = threadIdx.x & 31, sub = lane % GR, gpw = 32 / GR;
    int pi = 0;
    const bool stamper = p.prof && blockIdx.x == 0 && threadIdx.x == 0;
#define L_STAMP()                                                                                              \
    do {                                                                                                       \
        if (stamper && pi < p.prof_cap)                                                                        \
            p.prof[pi++] = v_globaltimer();                                                                    \
    } while (0)
    L_STAMP(); // 0

    // appends v (where push) to q[b]; lanes past QC go to the spill array
    auto append = [&](int b, bool push, int v) {
        unsigned mask = __ballot_sync(0xffffffffu, push);
        if (!mask)
            return;
        int leader = __ffs(mask) - 1;
        int base = 0;
        if (lane == leader)
            base = atomicAdd(&s_qn, __popc(mask));
        base = __shfl_sync(0xffffffffu, base, leader);
        int idx = base + __popc(mask & ((1u << lane) - 1u));
        if (push && idx < QC)
            q[b][idx] = v;
        if (base + __popc(mask) > QC) // warp-uniform
            v_warp_append(push && idx >= QC, v, spill, 0, spillc);
    };
    // expands node u (valid where has) with the group's lanes, appending to q[b]
    auto walk = [&](int b, bool has, int u) {
        int beg = 0, end = 0;
        if (has) {
            beg = __ldg(p.row_ptr + u);
            end = __ldg(p.row_ptr + u + 1);
        }
        for (int k = beg + sub; __any_sync(0xffffffffu, k < end); k += UNR * GR) {
            int v[UNR];
            bool pu[UNR];
#pragma unroll
            for (int j = 0; j < UNR; j++) {
                v[j] = 0;
                if (k + j * GR < end)
                    v[j] = __ldg(p.col + k + j * GR);
            }
#pragma unroll
            for (int j = 0; j < UNR; j++)
                pu[j] = k + j * GR < end && atomicSub(&p.indeg[v[j]], 1) == 1;
#pragma unroll
            for (int j = 0; j < UNR; j++)
                append(b, pu[j], v[j]);
        }
    };

    // 1. zero
    for (long long i = tid; i < n; i += nthreads)
        p.indeg[i] = 0;
    if (tid < 128)
        p.cnt[tid] = 0;
    if (threadIdx.x == 0)
        s_qn = 0;
    grid.sync();
    L_STAMP(); // 1

    // 2. in-degrees: one RED per edge (the reference)
    if (((uintptr_t)p.col & 15) == 0) {
        const int4 *col4 = reinterpret_cast<const int4 *>(p.col);
        long long m4 = m / 4;
        for (long long i = tid; i < m4; i += nthreads) {
            int4 e = __ldg(col4 + i);
            atomicAdd(&p.indeg[e.x], 1);
            atomicAdd(&p.indeg[e.y], 1);
            atomicAdd(&p.indeg[e.z], 1);
            atomicAdd(&p.indeg[e.w], 1);
        }
        for (long long i = m4 * 4 + tid; i < m; i += nthreads)
            atomicAdd(&p.indeg[__ldg(p.col + i)], 1);
    } else {
        for (long long i = tid; i < m; i += nthreads)
            atomicAdd(&p.indeg[__ldg(p.col + i)], 1);
    }
    grid.sync();
    L_STAMP();
    L_STAMP(); // 2, 3

    // 3. first frontier: the block's own range of nodes, into q[0] (no barrier of its own)
    {
        long long chunk = ((long long)n + G - 1) / G;
        chunk = (chunk + 31) & ~31LL;
        const long long lo = chunk * blockIdx.x, hi = min((long long)n, lo + chunk);
        for (long long i = lo + threadIdx.x; i < lo + chunk && lo < hi; i += TH) { // warp-uniform bound
            if ((i & 31) == 0 && i < hi)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p.row_ptr + i));
            append(0, i < hi && __ldcg(p.indeg + i) == 0, (int)i);
        }
    }
    L_STAMP(); // 4: scanned (published by the first arrival below)

    // 4. levels
    int cur = 0;
    unsigned prev_tail = 0;
    for (;;) {
        __syncthreads();
        const int qn = s_qn;
        const int myn = min(qn, QC);
        __syncthreads(); // every thread has read s_qn
        if (threadIdx.x == 0) {
            s_qn = 0;
            volatile unsigned *vrel = rel;
            const unsigned g = vrel[0];
            __threadfence(); // this block's spills and decrements before its arrival
            unsigned long long old = atomicAdd(bar, (1ull << 32) | (unsigned)myn);
            unsigned off = (unsigned)old;
            if ((unsigned)(old >> 32) == G - 1) { // last: every block's spills are done
                __threadfence();
                unsigned s_lo = vrel[3], s_hi = (unsigned)*(volatile int *)spillc;
                unsigned place = off + (unsigned)myn;
                unsigned tail = place + (s_hi - s_lo);
                atomicExch(bar, (unsigned long long)tail); // arrivals 0, placed = tail
                vrel[1] = tail;
                vrel[2] = s_lo;
                vrel[3] = s_hi;
                vrel[4] = place;
                __threadfence();
                atomicExch(&rel[0], g + 1);
            } else {
                unsigned ns = NS;
                const unsigned ns_max = 8u * NS + 1u;
                while (vrel[0] == g)
                    if (NS) {
                        __nanosleep(ns);
                        ns = 2 * ns < ns_max ? ns * 2 : ns;
                    }
            }
            __threadfence();
            s_b[0] = (int)off;
            s_b[1] = (int)vrel[1];
            s_b[2] = (int)vrel[2];
            s_b[3] = (int)vrel[3];
            s_b[4] = (int)vrel[4];
        }
        __syncthreads();
        L_STAMP();
        const int off = s_b[0], tail = s_b[1], s_lo = s_b[2], s_hi = s_b[3], place = s_b[4];
        if ((unsigned)tail == prev_tail) // the level added nothing: done
            break;
        prev_tail = (unsigned)tail;
        for (int i = threadIdx.x; i < myn; i += TH) // this block's part of the level, in order
            p.order[off + i] = q[cur][i];
        const int nxt = cur ^ 1;
        // its own nodes from shared memory
        for (int first = (threadIdx.x / 32) * gpw; first < myn; first += (TH / 32) * gpw) {
            int slot = first + lane / GR;
            bool has = slot < myn;
            walk(nxt, has, has ? q[cur][slot] : 0);
        }
        // a grid-strided share of the spilled nodes (placed at order[place, tail))
        if (s_hi > s_lo) {
            const long long wid = tid / 32, nw = nthreads / 32;
            for (long long first = s_lo + wid * gpw; first < s_hi; first += nw * gpw) {
                long long slot = first + lane / GR;
                bool has = slot < s_hi;
                int u = has ? __ldcg(spill + slot) : 0;
                if (has && sub == 0)
                    p.order[place + (slot - s_lo)] = u;
                walk(nxt, has, u);
            }
        }
        cur = nxt;
    }
    if (tid == 0)
        *p.status = prev_tail < (unsigned)n ? 1 : 0;
#undef L_STAMP
}

// =====================================================================================
// Host side of the variants
// =====================================================================================
typedef void (*kernel_fn)(VParams);

static int grid_blocks_of_ref() // as the reference sizes its grid
{
    int sms, per = 0;
    BENCH_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    BENCH_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, topo_kernel, TOPO_THREADS, 0));
    return sms * (per < 1 ? 1 : per);
}

struct Variant {
    const char *name, *what;
    kernel_fn k; // null: the reference's topo_sort()
    int threads, cap_per_sm, small;
    bool bucket;
    int grid;   // filled on first use
    bool local; // v_local: needs an n-int spill array
    bool timed; // false: checked on every graph, but not timed (known from earlier runs)
    int alt; // with k null: 1 ref_before.cu's topo_sort, 2 the reference with tiny slabs, 3 with 256 buckets
};

static unsigned long long *g_prof = nullptr; // device stamps
static const int PROF_CAP = 1 << 15;
static bool g_use_prof = false;

static void run_variant(Variant &V, const int *row_ptr, const int *col, int n, int m, int *order, int *status)
{
    if (!V.k) {
#if TOPO_HAVE_BEFORE
        if (V.alt == 1) {
            before::topo_sort_before(row_ptr, col, n, m, order, status, 0);
            return;
        }
#endif
        if (V.alt == 2)
            spill::topo_sort_spill(row_ptr, col, n, m, order, status, 0);
        else if (V.alt == 4)
            nospec::topo_sort_nospec(row_ptr, col, n, m, order, status, 0);
        else if (V.alt == 3)
            nb256::topo_sort_nb256(row_ptr, col, n, m, order, status, 0);
        else
            topo_sort(row_ptr, col, n, m, order, status, 0);
        return;
    }
    if (n == 0) {
        cudaMemsetAsync(status, 0, sizeof(int), 0);
        return;
    }
    if (!V.grid) {
        int sms, per = 0;
        BENCH_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        BENCH_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, V.k, V.threads, 0));
        if (per > V.cap_per_sm)
            per = V.cap_per_sm;
        V.grid = sms * (per < 1 ? 1 : per);
    }
    // ranges for the bucketed count: ~2 per block, a power of two of nodes each, <= V_RMAX
    int rshift = 5;
    while ((1LL << rshift) * 2LL * V.grid < n && rshift < 12)
        rshift++;
    int nb = (int)(((long long)n + (1 << rshift) - 1) >> rshift);
    int use_bucket = V.bucket && nb <= V_NBMAX && m >= (1 << 16);
    size_t extra = use_bucket ? (size_t)m : 0;
    if (V.local && extra < (size_t)n)
        extra = (size_t)n;
    size_t ints = (size_t)n + 128 + V_NBMAX + extra;
    int *scratch = (int *)cudalab_scratch(ints * sizeof(int));
    if (!scratch) {
        fprintf(stderr, "no scratch\n");
        exit(1);
    }
    VParams p;
    p.row_ptr = row_ptr;
    p.col = col;
    p.n = n;
    p.m = m;
    p.order = order;
    p.status = status;
    p.cnt = scratch;
    p.bcur = scratch + 128;
    p.indeg = scratch + 128 + V_NBMAX;
    p.bucketed = p.indeg + n;
    p.rshift = rshift;
    p.nb = nb;
    p.use_bucket = use_bucket;
    p.small_t = V.small;
    p.prof = g_use_prof ? g_prof : nullptr;
    p.prof_cap = PROF_CAP;
    void *args[] = {&p};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)V.k, V.grid, V.threads, args, 0, 0);
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: cooperative launch failed: %s\n", V.name, cudaGetErrorString(e));
        exit(1);
    }
}

// =====================================================================================
// The lab's graph generator (a port of grader/labs/topo_sort.c)
// =====================================================================================
struct Piece {
    long long off, n, m, levels, span;
    int jitter;
};
struct Edge {
    int src, dst;
};
struct Case {
    const char *name;
    const char *kind; // layered, chain, components
    long long n, m, levels, span, dup, self_loops, cycle_len;
    double cycle_at;
};
struct Graph {
    std::string name;
    long long n = 0, m = 0;
    std::vector<int> row_ptr, col;
    int cyclic = 0;
};

static uint64_t sample_index(uint64_t seed, uint64_t k, uint64_t n) { return n ? cl_rand64(seed, k, 7) % n : 0; }
static long long level_start(const Piece *p, long long l) { return l * p->n / p->levels; }
static long long level_of(const Piece *p, long long r) { return ((r + 1) * p->levels - 1) / p->n; }
static long long piece_sources(const Piece *p) { return p->levels < 2 ? 0 : level_start(p, p->levels - 1); }
static long long piece_degree(const Piece *p, long long r, uint64_t seed)
{
    long long ns = piece_sources(p);
    if (r >= ns || ns == 0)
        return 0;
    long long q = p->m / ns, rem = p->m % ns;
    long long d0 = q + (r < rem);
    if (!p->jitter)
        return d0;
    long long mate = r ^ 1;
    if (mate >= ns)
        return d0;
    long long lo = r & ~1LL;
    long long dlo = q + (lo < rem), dhi = q + (lo + 1 < rem);
    uint64_t h = cl_rand64(seed ^ 0x6A09E667F3BCC909ull, (uint64_t)(p->off + lo), 0);
    long long cap = dlo < dhi ? dlo : dhi;
    long long shift = (long long)((h >> 1) % (uint64_t)(cap + 1));
    int to_low = (int)(h & 1);
    if (r == lo)
        return to_low ? d0 + shift : d0 - shift;
    return to_low ? d0 - shift : d0 + shift;
}
static long long piece_target(const Piece *p, long long r, long long j, uint64_t seed)
{
    uint64_t h = cl_rand64(seed ^ 0xBB67AE8584CAA73Bull, ((uint64_t)(p->off + r) << 24) ^ (uint64_t)j, 0);
    long long a = level_of(p, r);
    long long b = a + 1 + (long long)((h >> 40) % (uint64_t)p->span);
    if (b > p->levels - 1)
        b = p->levels - 1;
    long long s = level_start(p, b), e = level_start(p, b + 1);
    return s + (long long)((h & 0xFFFFFFFFull) % (uint64_t)(e - s));
}

static long long cpu_kahn(long long n, const int *row_ptr, const int *col, std::vector<int> &indeg,
                          std::vector<int> &queue)
{
    indeg.assign((size_t)(n ? n : 1), 0);
    queue.assign((size_t)(n ? n : 1), 0);
    long long m = n ? row_ptr[n] : 0;
    for (long long k = 0; k < m; k++)
        indeg[col[k]]++;
    long long head = 0, tail = 0;
    for (long long u = 0; u < n; u++)
        if (indeg[u] == 0)
            queue[tail++] = (int)u;
    while (head < tail) {
        int u = queue[head++];
        for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++)
            if (--indeg[col[k]] == 0)
                queue[tail++] = col[k];
    }
    return tail;
}

static Graph make_graph(const Case &c, uint64_t seed)
{
    Graph g;
    g.name = c.name;
    long long n = c.n, m = c.m, levels = c.levels, span = c.span;
    Piece pieces[4];
    int np = 1;
    if (!strcmp(c.kind, "layered")) {
        pieces[0] = {0, n, m, n ? levels : 1, span, 1};
    } else if (!strcmp(c.kind, "chain")) {
        pieces[0] = {0, n, n > 0 ? n - 1 : 0, n ? n : 1, 1, 0};
    } else { // components
        long long n0 = n / 2, n1 = n / 8, n2 = n / 4, n3 = n - n0 - n1 - n2;
        long long m0 = m * 3 / 4, m2 = m - m0;
        np = 4;
        pieces[0] = {0, n0, m0, levels, span, 1};
        pieces[1] = {n0, n1, n1 - 1, n1, 1, 0};
        pieces[2] = {n0 + n1, n2, m2, 3, 2, 1};
        pieces[3] = {n0 + n1 + n2, n3, 0, 1, 1, 0};
    }
    auto find_piece = [&](long long rank) {
        for (int i = np - 1; i > 0; i--)
            if (rank >= pieces[i].off)
                return i;
        return 0;
    };
    long long base = 0;
    for (int i = 0; i < np; i++)
        base += pieces[i].m;
    g.n = n;
    g.m = base * c.dup + c.self_loops + c.cycle_len;
    g.row_ptr.assign((size_t)n + 1, 0);
    g.col.assign((size_t)(g.m ? g.m : 1), 0);
    if (n == 0)
        return g;
    std::vector<int> id_of(n), rank_of(n);
    for (long long i = 0; i < n; i++)
        id_of[i] = (int)i;
    for (long long i = n - 1; i > 0; i--) {
        long long j = (long long)sample_index(seed ^ 0xA54FF53A5F1D36F1ull, (uint64_t)i, (uint64_t)(i + 1));
        std::swap(id_of[i], id_of[j]);
    }
    for (long long r = 0; r < n; r++)
        rank_of[id_of[r]] = (int)r;
    std::vector<Edge> extra;
    for (long long i = 0; i < c.self_loops; i++) {
        int r = (int)sample_index(seed ^ 0x3C6EF372FE94F82Bull, (uint64_t)i, (uint64_t)n);
        extra.push_back({r, r});
    }
    if (c.cycle_len > 0) {
        const Piece *p = &pieces[0];
        long long a = (long long)(c.cycle_at * (double)(p->levels - c.cycle_len));
        if (a < 0)
            a = 0;
        for (long long k = 0; k < c.cycle_len; k++) {
            long long from = level_start(p, a + k), to = level_start(p, a + (k + 1) % c.cycle_len);
            extra.push_back({(int)(p->off + from), (int)(p->off + to)});
        }
    }
    std::sort(extra.begin(), extra.end(), [](const Edge &x, const Edge &y) {
        return x.src != y.src ? x.src < y.src : x.dst < y.dst;
    });
    int *rp = g.row_ptr.data(), *col = g.col.data();
    for (long long r = 0; r < n; r++) {
        const Piece *p = &pieces[find_piece(r)];
        rp[id_of[r] + 1] = (int)(piece_degree(p, r - p->off, seed) * c.dup);
    }
    for (auto &e : extra)
        rp[id_of[e.src] + 1]++;
    for (long long u = 0; u < n; u++)
        rp[u + 1] += rp[u];
    for (long long u = 0; u < n; u++) {
        long long r = rank_of[u];
        const Piece *p = &pieces[find_piece(r)];
        long long rel = r - p->off, deg = piece_degree(p, rel, seed);
        int *out = col + rp[u];
        for (long long j = 0; j < deg; j++) {
            int v = id_of[p->off + piece_target(p, rel, j, seed)];
            for (long long d = 0; d < c.dup; d++)
                *out++ = v;
        }
    }
    for (size_t e = 0; e < extra.size();) {
        int src = extra[e].src, u = id_of[src];
        const Piece *p = &pieces[find_piece(src)];
        long long b = piece_degree(p, src - p->off, seed) * c.dup;
        int *out = col + rp[u] + b;
        for (; e < extra.size() && extra[e].src == src; e++)
            *out++ = id_of[extra[e].dst];
    }
    std::vector<int> indeg, queue;
    g.cyclic = cpu_kahn(n, rp, col, indeg, queue) < n;
    return g;
}

// =====================================================================================
// Checking, timing, reporting
// =====================================================================================
struct Dev {
    int *row_ptr = nullptr, *col = nullptr, *order = nullptr, *status = nullptr;
    long long n = 0, m = 0;
};

static Dev upload(const Graph &g)
{
    Dev d;
    d.n = g.n;
    d.m = g.m;
    BENCH_CK(cudaMalloc(&d.row_ptr, (g.n + 1) * sizeof(int)));
    BENCH_CK(cudaMalloc(&d.col, (g.m ? g.m : 1) * sizeof(int)));
    BENCH_CK(cudaMalloc(&d.order, (g.n ? g.n : 1) * sizeof(int)));
    BENCH_CK(cudaMalloc(&d.status, sizeof(int)));
    BENCH_CK(cudaMemcpy(d.row_ptr, g.row_ptr.data(), (g.n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    if (g.m)
        BENCH_CK(cudaMemcpy(d.col, g.col.data(), g.m * sizeof(int), cudaMemcpyHostToDevice));
    return d;
}
static void release(Dev &d)
{
    cudaFree(d.row_ptr);
    cudaFree(d.col);
    cudaFree(d.order);
    cudaFree(d.status);
}

static int g_wrong = 0;

// The checker's rules. Returns an empty string when right.
static std::string check(const Graph &g, const Dev &d)
{
    int st = -1;
    BENCH_CK(cudaMemcpy(&st, d.status, sizeof(int), cudaMemcpyDeviceToHost));
    char buf[256];
    if (st != 0 && st != 1) {
        snprintf(buf, sizeof buf, "status = %d (not 0/1)", st);
        return buf;
    }
    if (st != g.cyclic) {
        snprintf(buf, sizeof buf, "status = %d, CPU Kahn says %s", st, g.cyclic ? "cycle" : "DAG");
        return buf;
    }
    if (g.cyclic || g.n == 0) {
        if (g.n == 0) {
            int slot;
            BENCH_CK(cudaMemcpy(&slot, d.order, sizeof(int), cudaMemcpyDeviceToHost));
            if (slot != -1)
                return "n = 0 but order[0] was written";
        }
        return "";
    }
    std::vector<int> order(g.n), pos(g.n, -1);
    BENCH_CK(cudaMemcpy(order.data(), d.order, g.n * sizeof(int), cudaMemcpyDeviceToHost));
    for (long long i = 0; i < g.n; i++) {
        int v = order[i];
        if (v < 0 || v >= g.n) {
            snprintf(buf, sizeof buf, "order[%lld] = %d is not a node", i, v);
            return buf;
        }
        if (pos[v] >= 0) {
            snprintf(buf, sizeof buf, "node %d twice (order[%d], order[%lld])", v, pos[v], i);
            return buf;
        }
        pos[v] = (int)i;
    }
    for (long long u = 0; u < g.n; u++)
        for (int k = g.row_ptr[u]; k < g.row_ptr[u + 1]; k++)
            if (pos[u] >= pos[g.col[k]]) {
                snprintf(buf, sizeof buf, "edge %lld -> %d goes backward", u, g.col[k]);
                return buf;
            }
    return "";
}

static std::string run_and_check(Variant &V, const Graph &g, const Dev &d)
{
    BENCH_CK(cudaMemset(d.order, 0xff, (g.n ? g.n : 1) * sizeof(int)));
    BENCH_CK(cudaMemset(d.status, 0xff, sizeof(int)));
    run_variant(V, d.row_ptr, d.col, (int)g.n, (int)g.m, d.order, d.status);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s on %s: %s\n", V.name, g.name.c_str(), cudaGetErrorString(e));
        exit(1);
    }
    if (V.k && g.n > 0) { // the async variants' watchdog flag (scratch cnt[96])
        int hung = 0;
        BENCH_CK(cudaMemcpy(&hung, (int *)g_scratch + 96, sizeof(int), cudaMemcpyDeviceToHost));
        if (hung)
            return "HUNG: a warp waited 0.5 s for a queue slot (watchdog)";
    }
    return check(g, d);
}

static void report_wrong(const Variant &V, const Graph &g, const std::string &why, const char *when)
{
    g_wrong++;
    printf("  WRONG WRONG WRONG: %s on \"%s\" (%s): %s\n", V.name, g.name.c_str(), when, why.c_str());
}

// Phase breakdown from one stamped run: stamps 0 start, 1 zeroed, 2 histograms,
// 3 scattered, 4 counted + first frontier, 5.. one per level barrier.
// The stamped run is also the variant's first checked run (its result is returned).
static std::string stamped_run(Variant &V, const Graph &g, const Dev &d, std::vector<unsigned long long> &s)
{
    if (!V.k)
        return run_and_check(V, g, d);
    BENCH_CK(cudaMemset(g_prof, 0, PROF_CAP * sizeof(unsigned long long)));
    g_use_prof = true;
    std::string why = run_and_check(V, g, d);
    g_use_prof = false;
    s.assign(PROF_CAP, 0);
    BENCH_CK(cudaMemcpy(s.data(), g_prof, PROF_CAP * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    return why;
}

static void print_phases(const Variant &V, const std::vector<unsigned long long> &s)
{
    if (!V.k)
        return;
    int ns = 0;
    while (ns < PROF_CAP && s[ns])
        ns++;
    if (ns < 5) {
        printf("    phases: %d stamps only\n", ns);
        return;
    }
    auto us = [&](int a, int b) { return (double)(s[b] - s[a]) * 1e-3; };
    std::vector<double> lv;
    for (int i = 5; i < ns; i++)
        lv.push_back(us(i - 1, i));
    std::vector<double> sorted = lv;
    std::sort(sorted.begin(), sorted.end());
    double lsum = ns > 5 ? us(4, ns - 1) : 0;
    printf("    phases (us, block 0's globaltimer): zero %.1f | %s %.1f | scatter %.1f | %s %.1f | "
           "levels %.1f in %zu barriers (min %.2f, med %.2f, max %.2f) | total %.1f\n",
           us(0, 1), V.bucket ? "histograms" : "RED count", us(1, 2), us(2, 3),
           V.bucket ? "range counts + first frontier" : "first frontier", us(3, 4), lsum, lv.size(),
           sorted.empty() ? 0 : sorted[0],
           sorted.empty() ? 0 : sorted[sorted.size() / 2], sorted.empty() ? 0 : sorted.back(), us(0, ns - 1));
    if (lv.size() > 1 && lv.size() <= 80) {
        printf("    per level (us):");
        for (double x : lv)
            printf(" %.1f", x);
        printf("\n");
    }
}

#ifndef TOPO_HOST_TEST // (a host-only test of the generator includes this file without main)
int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30;
    setvbuf(stdout, nullptr, _IOLBF, 0);
    cudaDeviceProp prop;
    BENCH_CK(cudaGetDeviceProperties(&prop, 0));
    printf("topo_sort variants on %s (%d SMs, L2 %d MB)\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20);
    BENCH_CK(cudaMalloc(&g_prof, PROF_CAP * sizeof(unsigned long long)));

    // (name, what, kernel, threads, cap per SM, small, bucket, grid, local, timed)
    Variant vs[] = {
        {"ref", "reference/topo_sort.cu as is", nullptr, 512, 99, 0, false, 0, false, true},
#if TOPO_HAVE_BEFORE
        {"bef", "ref_before.cu (an earlier reference)", nullptr, 512, 99, 0, false, 0, false, true, 1},
#endif
        {"spil", "the reference, 8-entry slabs (overflow)", nullptr, 512, 99, 0, false, 0, false, true, 2},
        {"nspc", "the reference, rows after the level size", nullptr, 512, 99, 0, false, 0, false, true, 4},
        {"b256", "the reference, 256 buckets", nullptr, 512, 99, 0, false, 0, false, true, 3},
        {"v1", "old reference's algorithm, stamped", v_kernel<512, 8, false, false, false, 1>, 512, 99, 0, false, 0, false, true},
        {"v2", "v1 + block append queue", v_kernel<512, 8, false, true, false, 1>, 512, 99, 0, false, 0, false, false},
        {"v3", "v2 + walk unrolled x2 (= new ref)", v_kernel<512, 8, false, true, false, 2>, 512, 99, 0, false, 0, false, true},
        {"v4", "v3 + bucketed in-degrees", v_kernel<512, 8, true, true, false, 2>, 512, 99, 0, true, 0, false, false},
        {"v5", "v4 + small levels in block 0", v_kernel<512, 8, true, true, true, 2>, 512, 99, 128, true, 0, false, false},
        {"v6", "v5, 1024 threads x 2/SM", v_kernel<1024, 8, true, true, true, 2>, 1024, 2, 256, true, 0, false, false},
        {"v7", "v5, 1024 threads x 1/SM", v_kernel<1024, 8, true, true, true, 2>, 1024, 1, 256, true, 0, false, true},
        {"v8", "v5, 4 lanes per node", v_kernel<512, 4, true, true, true, 2>, 512, 99, 256, true, 0, false, false},
        {"v9", "v1 + bucketed in-degrees only", v_kernel<512, 8, true, false, false, 1>, 512, 99, 0, true, 0, false, false},
        {"v10", "v4 counting + async queue, 8 lanes", v_kernel<512, 8, true, true, false, 2, true>, 512, 99, 1, true, 0, false, true},
        {"v11", "v4 counting + async queue, 4 lanes", v_kernel<512, 4, true, true, false, 2, true>, 512, 99, 1, true, 0, false, false},
        {"v12", "RED counting + async queue, 8 lanes", v_kernel<512, 8, false, true, false, 2, true>, 512, 99, 1, false, 0, false, false},
        {"v13", "v10 with 2 blocks/SM (fewer pollers)", v_kernel<512, 8, true, true, false, 2, true>, 512, 2, 1, true, 0, false, false},
        // round 2
        {"v14", "v3, 1024 threads x 1/SM", v_kernel<1024, 8, false, true, false, 2>, 1024, 1, 0, false, 0, false, true},
        {"v15", "v3, 1024 threads x 2/SM", v_kernel<1024, 8, false, true, false, 2>, 1024, 2, 0, false, 0, false, true},
        {"v16", "v3 + hand barrier, spin", v_kernel<512, 8, false, true, false, 2, false, 1>, 512, 99, 0, false, 0, false, true},
        {"v17", "v3 + hand barrier, nanosleep", v_kernel<512, 8, false, true, false, 2, false, 2>, 512, 99, 0, false, 0, false, true},
        {"v18", "v16, 1024 threads x 1/SM", v_kernel<1024, 8, false, true, false, 2, false, 1>, 1024, 1, 0, false, 0, false, true},
        {"v19", "block-local frontiers, fused arrival", v_local<512, 8, 2, 2048, 0>, 512, 99, 0, false, 0, true, true},
        {"v20", "v19, 1024 threads x 1/SM", v_local<1024, 8, 2, 4096, 0>, 1024, 1, 0, false, 0, true, true},
        {"v21", "v19, 1024 threads x 2/SM", v_local<1024, 8, 2, 4096, 0>, 1024, 2, 0, false, 0, true, true},
        {"v22", "v20 + nanosleep 32..256 ns", v_local<1024, 8, 2, 4096, 32>, 1024, 1, 0, false, 0, true, true},
        {"v23", "v19, 4 lanes x unroll 4 per node", v_local<512, 4, 4, 2048, 0>, 512, 99, 0, false, 0, true, true},
    };
    const int nv = sizeof vs / sizeof vs[0];

    // ---- 1. the lab's correctness cases (lab.yaml), every variant ----
    Case cases[] = {
        {"empty graph", "layered", 0, 0, 2, 4, 1, 0, 0, 0.6},
        {"one node", "layered", 1, 0, 1, 4, 1, 0, 0, 0.6},
        {"one self-loop", "layered", 1, 0, 1, 4, 1, 1, 0, 0.6},
        {"two-node cycle", "layered", 2, 0, 2, 4, 1, 0, 2, 0.6},
        {"small DAG", "layered", 33, 100, 5, 2, 1, 0, 0, 0.6},
        {"multi-edges", "layered", 1000, 8000, 20, 3, 3, 0, 0, 0.6},
        {"self-loop in a DAG", "layered", 5000, 40000, 30, 4, 1, 1, 0, 0.6},
        {"long chain", "chain", 20000, 0, 2, 4, 1, 0, 0, 0.6},
        {"wide layered DAG", "layered", 200000, 2000000, 3, 2, 1, 0, 0, 0.6},
        {"deep layered DAG", "layered", 100000, 400000, 2000, 4, 1, 0, 0, 0.6},
        {"disconnected parts", "components", 100003, 600000, 50, 4, 1, 0, 0, 0.6},
        {"cycle hidden deep", "layered", 300000, 3000000, 100, 4, 1, 0, 8, 0.7},
        {"cycle in a chain", "chain", 5000, 0, 2, 4, 1, 0, 3, 0.9},
    };
    printf("\n== correctness: the lab's cases, every variant (CPU Kahn decides cycle / DAG; order checked edge by edge)\n");
    for (const Case &c : cases) {
        Graph g = make_graph(c, 0x70B0ull + (uint64_t)(&c - cases));
        Dev d = upload(g);
        printf("  %-22s n=%lld m=%lld %s:", c.name, g.n, g.m, g.cyclic ? "cycle" : "DAG");
        for (int i = 0; i < nv; i++) {
            std::string why = run_and_check(vs[i], g, d);
            if (why.empty()) {
                printf(" %s ok", vs[i].name);
            } else {
                printf("\n");
                report_wrong(vs[i], g, why, "correctness case");
            }
            fflush(stdout);
        }
        printf("\n");
        release(d);
    }
    fflush(stdout);

    // ---- 2. the ceiling, same process ----
    double copy_gbps = 0;
    {
        size_t bytes = 1ull << 30;
        void *a, *b;
        BENCH_CK(cudaMalloc(&a, bytes));
        BENCH_CK(cudaMalloc(&b, bytes));
        BENCH_CK(cudaMemset(a, 1, bytes));
        bench_timing t = bench_time([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0); }, runs, 3);
        double gbps = 2.0 * bytes / (t.median_ms * 1e-3) / 1e9;
        printf("\n== ceiling: cudaMemcpy D2D 1 GiB: %.3f ms = %.0f GB/s (read + write)\n", t.median_ms, gbps);
        BENCH_CK(cudaFree(a));
        BENCH_CK(cudaFree(b));
        copy_gbps = gbps;
    }

    // ---- 3. timed graphs ----
    Case timed[] = {
        {"bench: layered 1M/16M, 64 levels", "layered", 1 << 20, 1 << 24, 64, 4, 1, 0, 0, 0.6},
        {"layered 1M/16M, 4 levels", "layered", 1 << 20, 1 << 24, 4, 4, 1, 0, 0, 0.6},
        {"layered 1M/16M, 1024 levels", "layered", 1 << 20, 1 << 24, 1024, 4, 1, 0, 0, 0.6},
        {"deep layered 100k/400k, 2000 levels", "layered", 100000, 400000, 2000, 4, 1, 0, 0, 0.6},
        {"chain 20000", "chain", 20000, 0, 2, 4, 1, 0, 0, 0.6},
    };
    for (const Case &c : timed) {
        Graph g = make_graph(c, 0xBE7C4ull + (uint64_t)(&c - timed));
        Dev d = upload(g);
        const bool chain = !strcmp(c.kind, "chain");
        double lab_bytes = (double)(2 * g.n + 2 + g.m) * sizeof(int);
        printf("\n== %s: n=%lld m=%lld (%s); lab bytes %.1f MB; ms = median of %d, L2 flushed\n", c.name, g.n, g.m,
               g.cyclic ? "CYCLE" : "DAG", lab_bytes / 1e6, runs);
        double ref_ms = 0;
        for (int i = 0; i < nv; i++) {
            Variant &V = vs[i];
            // the chain is ~90 ms per call without small mode: time only ref, the small-mode and
            // the async variants (small = 1 marks the async ones; their kernels ignore it)
            // TOPO_ONLY=name,name,...: time only those variants (the others are still checked)
            const char *only = getenv("TOPO_ONLY");
            const bool picked = !only || strstr((std::string(",") + only + ",").c_str(),
                                                (std::string(",") + V.name + ",").c_str());
            if ((chain && V.k && !V.small) || !V.timed || !picked) {
                std::string why = run_and_check(V, g, d);
                if (!why.empty())
                    report_wrong(V, g, why, "untimed");
                printf("  %-4s %-34s (checked, not timed: %s)%s\n", V.name, V.what,
                       V.timed ? "no small mode on the chain" : "timed in round 1", why.empty() ? " ok" : "");
                continue;
            }
            std::vector<unsigned long long> stamps;
            std::string why = stamped_run(V, g, d, stamps);
            if (!why.empty())
                report_wrong(V, g, why, "first (stamped) run");
            bench_timing t = bench_time(
                [&] { run_variant(V, d.row_ptr, d.col, (int)g.n, (int)g.m, d.order, d.status); }, runs,
                chain ? 1 : 3);
            BENCH_CK(cudaDeviceSynchronize());
            std::string why2 = check(g, d); // the last timed output
            if (!why2.empty())
                report_wrong(V, g, why2, "last timed run");
            if (!V.k && !V.alt)
                ref_ms = t.median_ms;
            double gbps = lab_bytes / (t.median_ms * 1e-3) / 1e9;
            cudaFuncAttributes fa;
            BENCH_CK(cudaFuncGetAttributes(&fa, V.k ? (const void *)V.k : (const void *)topo_kernel));
            printf("  %-4s %-34s %9.4f ms (min %.4f) %7.2f G edges/s  x%.2f vs ref  lab bytes %.0f GB/s = "
                   "%.1f%% of copy  grid %d x %d, %d regs  %s\n",
                   V.name, V.what, t.median_ms, t.min_ms, g.m / (t.median_ms * 1e6), ref_ms / t.median_ms, gbps,
                   100.0 * gbps / copy_gbps, V.k ? V.grid : grid_blocks_of_ref(), V.threads, fa.numRegs,
                   why.empty() && why2.empty() ? "ok" : "WRONG");
            if (&c == timed) { // the bench graph: also a JSON line, as bench/table.py reads them
                char extra[96];
                snprintf(extra, sizeof extra, ", \"gedges_per_s\": %.3f, \"vs_ref\": %.3f", g.m / (t.median_ms * 1e6),
                         ref_ms / t.median_ms);
                bench_emit("topo_sort", "layered 1M/16M, 64 levels", V.name, t, lab_bytes, 0, extra);
            }
            if (!V.k && V.alt != 1) { // the last timed run's phases, from the TOPO_MARK stamps
                unsigned long long mk[5];
                BENCH_CK(cudaMemcpyFromSymbol(mk, V.alt == 2 ? spill::topo_marks : V.alt == 3 ? nb256::topo_marks : V.alt == 4 ? nospec::topo_marks : topo_marks,
                                              sizeof mk));
                printf("    phases (us, block 0's globaltimer): zero %.1f | count %.1f | first frontier %.1f | levels %.1f | "
                       "total %.1f\n",
                       (mk[1] - mk[0]) / 1e3, (mk[2] - mk[1]) / 1e3, (mk[3] - mk[2]) / 1e3, (mk[4] - mk[3]) / 1e3,
                       (mk[4] - mk[0]) / 1e3);
            }
            fflush(stdout);
            print_phases(V, stamps);
        }
        release(d);
    }
    printf("\n%s\n", g_wrong ? "SOME OUTPUTS WERE WRONG (see WRONG lines above)" : "all outputs checked: right");
    return g_wrong ? 1 : 0;
}
#endif
