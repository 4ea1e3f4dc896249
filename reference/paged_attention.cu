// paged_attention.cu: reference solution of the paged_attention lab: one decode step over a
// paged KV cache, on Tensor Cores, in one persistent kernel with an exactly balanced split.
//
// Decode attention reads every K and V row of the context once and does about 2 FLOPs per
// byte: it is bound by memory bandwidth, so the game is to keep HBM busy from the first
// microsecond to the last while spending few instructions per byte.
//
// Work and balance (flash-decoding splits the context into fixed partitions; this splits it
// exactly):
// - A unit is 16 tokens of one sequence for a chunk of up to 8 "groups" (a group is a kv
//   head and the query heads that share it, GQA). All units cost the same, so the grid is
//   persistent (as many CTAs as are resident at once, or up to 3% fewer where that count
//   divides the groups evenly: even_grid, below) and CTA c takes the contiguous range
//   [c*U/grid, (c+1)*U/grid) of the U units, stream-K style: every CTA reads the same number
//   of bytes, to within one unit. Fixed 512-token partitions (4096 CTAs of 4 warps for the
//   bench shape: 15.5 waves) cost a tail and a second kernel to combine them: 4% (measured).
// - A range that starts or ends inside a sequence holds a piece of that group: a partial
//   result (max, sum, unnormalised output). A warp finishing a piece at the end of its
//   CTA's run first reads the group's counter: when every other piece is already in, it
//   folds their partials into its registers and writes the output, leaving nothing behind
//   (the usual case at the end of the kernel, where it saves a store, a fence and an
//   atomic); otherwise, and always for a piece that ends mid-run (rarely the last one in),
//   it leaves its partial in scratch, counts itself in, and whoever is counted last merges.
//   The counters carry the call's epoch in their high bits, so a stale value counts as zero
//   and nothing has to clear them.
// - Few sequences (a long context over few groups): every CTA cuts the same groups, so the
//   partials are merged by a second, small kernel, many CTAs at once (pa_wide_merge_kernel),
//   instead of by one warp after every CTA has contended for one counter. It launches one CTA
//   per cut group and head (32 for one 32k sequence; one per CTA, warp and head was 4224, most
//   returning at once) and reads the partials in one pass with 16 loads in flight a thread:
//   1 x 32768 0.0602 -> 0.0567 ms, 3 x 20000 0.0595 -> 0.0530 ms (H100).
// - One warp per group: warp w of the CTA owns group w of the chunk for every unit, so warps
//   never wait for each other, and the 8 warps read the 8 kv heads' rows of the same tokens
//   at about the same time: together a contiguous 32 KB of a cache block (the rows of one kv
//   head alone are 256 B every 2 KB).
// Per warp:
// - cp.async ring (3 tiles of K and V of 8 KB at head_dim 128, 4 of 4 KB at 64): the next
//   tiles are in flight while tile k is computed; one table lookup per tile (blocks of 16
//   tokens or more); rows past the context are zero-filled (src-size 0): stale V rows times
//   p = 0 could still be NaN. Address arithmetic is kept out of the per-row loop: it was
//   half of all instructions in a first version. The copies carry an L2 evict-first policy:
//   K and V are read once, so they leave L2 to q, the tables and the partials (0.8% faster).
// - Tensor Cores (mma.sync m16n8k16, fp16 in, fp32 accumulate), transposed ("swap AB"): a
//   group has at most 8 query heads, so they are the N = 8 of the MMA and the tile's 16
//   tokens its M. S^T = K Q^T for 16 tokens is 8 MMAs at head_dim 128, O^T += V^T P^T
//   another 8. With the heads as the M = 16 rows (the usual layout) half or more of every
//   MMA was padding: 16 + 16 MMAs, twice the accumulator registers (232 registers a thread
//   against 128 now), and 1.2% slower at 32 x 4096 with 64 / 8 heads and at head_dim 64,
//   0.4% on the bench shape (H100). On CUDA cores the same is ~1000 FMAs and shuffles per
//   16 tokens.
// - The probabilities never leave registers (FlashAttention-2's trick, transposed): the
//   scores' fragment holds P by tokens, the B operand of V^T P^T wants P^T by heads, and one
//   movmatrix per 8x8 half transposes it in registers. ldmatrix loads K as it is (A of
//   K Q^T) and V with .trans (A of V^T P^T); 16-byte chunks are swizzled (chunk ^ row % 8)
//   so the 8 rows an ldmatrix reads fall in 8 different bank groups.
// - Online softmax in the log2 domain (scale * log2(e) applied to the fp32 scores, exp2f),
//   with lazy rescaling (the reference maximum moves only when a score passes it by 2^8).
// Precision: scores are exact fp16 products summed in fp32; p (<= 256) is rounded to fp16
// for the V^T P^T MMA (2^-11 relative), which the lab's tolerance admits (lab.yaml).
// Which path runs where (__CUDA_ARCH__ guards and a per-device query):
//   sm_80 and newer   cp.async ring with an L2 evict-first policy, mma.sync m16n8k16
//   sm_75 (Turing)    synchronous 16-byte loads into the same ring, two mma.sync m16n8k8 per
//                     k16 step (cp.async, createpolicy and m16n8k16 need sm_80)
//   every GPU         as many warps (groups) per CTA as its shared memory holds rings: 8 on
//                     Hopper (227 KB a block), 6 on sm_80 (163 KB) at head_dim 128, 4 on
//                     sm_86/89/120 (99 KB), 2 on sm_75 (64 KB); the other groups are chunks
// Measured on an H100 (docs/PERFORMANCE.md, after run 10): 95.7% of the read-only bandwidth
// on the bench shape (0.358 ms); SDPA (cuDNN) on contiguous K/V 97.4% (0.352 ms), as fast as
// this kernel with its arithmetic and its segment ends (partials, counters, merges) compiled
// out. At 32 x 4096 with 64 / 8 heads those two cost 8.5 and 12.5 us of 0.19 ms (measured
// before the MMAs were transposed, which took 2 us off).
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

#define PA_MAX_WARPS 8 // groups (warps) per CTA
#define PA_TILE 16     // tokens per unit: the M of K Q^T, the K of V^T P^T
#define PA_LAZY 8.f    // log2 of the largest p before the reference maximum moves
// Tiles in a warp's cp.async ring: 3 of 8 KB at head_dim 128 (192 KB of shared memory, one
// CTA per SM); at head_dim 64 a tile is 4 KB and 4 stages (one CTA per SM) beat 3 (two CTAs
// per SM, twice the cut sequences) by 7%, 2 and 6 by 5% and 3% (measured, H100).
template <int D> __host__ __device__ constexpr int pa_stages() { return D == 64 ? 4 : 3; }
#ifndef PA_MARK
#define PA_MARK(point) // a no-op: bench/dev/pa_probe.cu's trace build times each CTA's phases here
#endif

// ---- PTX wrappers ----

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// 16 bytes global -> shared, bypassing L1; src_bytes 0 writes zeros. sm_75 has no cp.async:
// a synchronous 16-byte load and shared store (the warp's __syncwarp after the wait orders it).
__device__ __forceinline__ void cp_async16(uint32_t dst, const void *src, int src_bytes, uint64_t policy)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;\n" ::"r"(dst), "l"(src), "r"(src_bytes),
                 "l"(policy));
#else
    (void)policy;
    uint4 v = src_bytes ? __ldcg(reinterpret_cast<const uint4 *>(src)) : make_uint4(0, 0, 0, 0);
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
#endif
}
// An L2 policy for data read once: its lines are the first to go, the rest of L2 (q, the
// block tables, the partials) stays.
__device__ __forceinline__ uint64_t evict_first_policy()
{
    uint64_t p = 0;
#if __CUDA_ARCH__ >= 800
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(p));
#endif
    return p;
}
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
#else // sm_75: the copies above were synchronous
__device__ __forceinline__ void cp_async_commit() {}
template <int N> __device__ __forceinline__ void cp_async_wait() {}
#endif

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// c += a (16x16, row-major) * b (16x8, column-major); fp16 in, fp32 accumulate. sm_75 has
// only m16n8k8: the k16 fragments are two k8 fragments side by side (a0 a1 | a2 a3, b0 | b1).
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b0));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&h);
}

// Transposes an 8x8 fp16 matrix held by the warp in the MMA fragment layout (lane l: row
// l / 4, columns 2 (l % 4) and the next), in registers (sm_75 and newer).
__device__ __forceinline__ uint32_t movmatrix_trans(uint32_t x)
{
    uint32_t y;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
    return y;
}

// Byte offset of 16-byte chunk c of row r in a swizzled [rows][D] fp16 tile.
template <int D> __device__ __forceinline__ uint32_t swz(int r, int c)
{
    return (uint32_t)(r * D + ((c ^ (r & 7)) << 3)) * 2u;
}

// ---- the plan, the cursor over units, the merge counters ----

struct pa_plan {
    float *po;                   // partials [cta][slot 0/1][warp][head][D]
    float2 *pml;                 // their (m, l) [cta][slot][warp][head]: a row's pair in one 8-byte store
    unsigned long long *arrived; // [cta][warp]: (epoch << 16) | partials in, of the group beginning there
    unsigned long long epoch;    // 48 bits, new at every call: the counters need no zeroing
    struct pa_wide *wide;        // [sequence][chunk][warp]: the cut groups, for pa_wide_merge_kernel
    bool wide_merge;             // merge in pa_wide_merge_kernel, not in the last CTA to arrive
    int nkc;                     // chunks of groups per sequence
    int warps;                   // groups per chunk = warps per CTA
    int hpc;                     // query heads per group (the N of the MMAs, at most 8)
    int log2_bs;
};

// A group cut into partials, noted by the CTA where it begins, when pa_wide_merge_kernel
// merges them (few sequences: each is cut into many partials). Indexed by group, so the
// merge kernel's grid is one CTA per group and head, not per CTA, warp and head.
struct pa_wide {
    unsigned long long epoch; // the call that left it
    int first, first_slot, ncon; // CTAs first .. first + ncon - 1 hold its partials
    size_t out_row; // (sequence * heads + first head of the group)
};

// A position in the unit order: sequence s, group chunk kc, tile t of ntile.
struct pa_cursor {
    int s, kc, t, ntile, ctx;
};

__device__ __forceinline__ void pa_advance(pa_cursor &c, const paged_attention_args &a, int nkc)
{
    if (++c.t < c.ntile)
        return;
    c.t = 0;
    if (++c.kc < nkc)
        return;
    c.kc = 0;
    if (++c.s < a.num_seqs) {
        c.ctx = __ldg(a.context_lens + c.s);
        c.ntile = (c.ctx + PA_TILE - 1) / PA_TILE;
    }
}

// The merge counters hold (epoch << 16) | partials counted in; a stale epoch counts as 0.
__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ int arrivals(unsigned long long counter, unsigned long long epoch)
{
    return (counter >> 16) == epoch ? (int)(counter & 0xffff) : 0;
}
// Counts one more partial in; returns how many are in now.
__device__ __forceinline__ int count_in(unsigned long long *counter, unsigned long long epoch)
{
    unsigned long long old = *reinterpret_cast<volatile unsigned long long *>(counter);
    for (;;) {
        const unsigned long long now = (epoch << 16) | (unsigned long long)(arrivals(old, epoch) + 1);
        const unsigned long long seen = atomicCAS(counter, old, now);
        if (seen == old)
            return (int)(now & 0xffff);
        old = seen;
    }
}

// Folds the partials (max, sum, unnormalised output) that the other CTAs holding a piece of
// a cut group left, into this warp's own piece, in registers: the transposed accumulator's
// layout, dims 16 dp + gr and 16 dp + 8 + gr of heads 2 tq and 2 tq + 1. CTA q of
// first..first+ncon-1 keeps the partial of its first segment in slot 0 and of its last in
// slot 1: the group is the first CTA's first segment only when it begins exactly where that
// CTA's range begins (first_slot), and it is always the first segment of the others.
template <int D>
__device__ void pa_fold_partials(const pa_plan &pl, int first, int first_slot, int ncon, int self, int warp, int gr, int tq,
                                 float (&acc)[D / 16][4], float &m0, float &m1, float &l0, float &l1)
{
    const int h = 2 * tq;
    const bool v0 = h < pl.hpc, v1 = h + 1 < pl.hpc;
    for (int q = 0; q < ncon; q++) {
        const int cc = first + q;
        if (cc == self)
            continue;
        const size_t pi = ((size_t)(cc * 2 + (q == 0 ? first_slot : 0)) * pl.warps + warp) * pl.hpc + h;
        const float2 ml0 = v0 ? __ldcg(pl.pml + pi) : make_float2(-INFINITY, 0.f);
        const float2 ml1 = v1 ? __ldcg(pl.pml + pi + 1) : make_float2(-INFINITY, 0.f);
        float v[D / 16][4]; // every load in flight before the first is used
        const float *p0 = pl.po + pi * D + gr, *p1 = p0 + D;
#pragma unroll
        for (int dp = 0; dp < D / 16; dp++) {
            v[dp][0] = v0 ? __ldcg(p0 + dp * 16) : 0.f;
            v[dp][2] = v0 ? __ldcg(p0 + dp * 16 + 8) : 0.f;
            v[dp][1] = v1 ? __ldcg(p1 + dp * 16) : 0.f;
            v[dp][3] = v1 ? __ldcg(p1 + dp * 16 + 8) : 0.f;
        }
        const float mn0 = fmaxf(m0, ml0.x), mn1 = fmaxf(m1, ml1.x); // m is finite: a piece has a token
        const float a0 = exp2f(m0 - mn0), b0 = exp2f(ml0.x - mn0);
        const float a1 = exp2f(m1 - mn1), b1 = exp2f(ml1.x - mn1);
#pragma unroll
        for (int dp = 0; dp < D / 16; dp++) {
            acc[dp][0] = fmaf(acc[dp][0], a0, v[dp][0] * b0);
            acc[dp][2] = fmaf(acc[dp][2], a0, v[dp][2] * b0);
            acc[dp][1] = fmaf(acc[dp][1], a1, v[dp][1] * b1);
            acc[dp][3] = fmaf(acc[dp][3], a1, v[dp][3] * b1);
        }
        l0 = fmaf(l0, a0, ml0.y * b0);
        l1 = fmaf(l1, a1, ml1.y * b1);
        m0 = mn0;
        m1 = mn1;
    }
}

template <int D> __host__ __device__ constexpr int warp_ring_bytes() { return pa_stages<D>() * 2 * PA_TILE * D * 2; }

// ---- the kernel's steps, in the order it takes them ----

// This CTA's units: thread t sums the units of sequences [t*per, (t+1)*per), a block scan
// gives U and each range's first unit, and the thread whose range holds the CTA's first unit
// finds its sequence (all loads of context_lens in flight at once). Leaves U, the first
// unit's sequence and that sequence's first unit in s_info[0..2].
__device__ __forceinline__ void pa_find_first_unit(const paged_attention_args &a, int nkc, long long *s_info, int warp,
                                                   int lane)
{
    const int nt = blockDim.x, per = (a.num_seqs + nt - 1) / nt;
    const int sb = min((int)threadIdx.x * per, a.num_seqs), se = min(sb + per, a.num_seqs);
    long long mine = 0;
    for (int s = sb; s < se; s++)
        mine += (long long)nkc * ((__ldg(a.context_lens + s) + PA_TILE - 1) / PA_TILE);
    long long incl = mine; // inclusive scan: in the warp, then over the warps' totals
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
        const long long y = __shfl_up_sync(0xffffffffu, incl, off);
        if (lane >= off)
            incl += y;
    }
    long long *s_warp = s_info + 3; // [PA_MAX_WARPS]
    if (lane == 31)
        s_warp[warp] = incl;
    __syncthreads();
    long long before = 0, U = 0;
    for (int w = 0; w < (int)blockDim.x / 32; w++) {
        before += w < warp ? s_warp[w] : 0;
        U += s_warp[w];
    }
    const long long grid = min((long long)gridDim.x, U);
    if (blockIdx.x < grid) {
        const long long u0 = blockIdx.x * U / grid;
        long long p = before + incl - mine; // first unit of sequence sb
        if (p <= u0 && u0 < p + mine)
            for (int s = sb; s < se; s++) {
                const long long n = (long long)nkc * ((__ldg(a.context_lens + s) + PA_TILE - 1) / PA_TILE);
                if (u0 < p + n) {
                    s_info[1] = s;
                    s_info[2] = p;
                    break;
                }
                p += n;
            }
    }
    if (threadIdx.x == 0)
        s_info[0] = U;
}

// What a lane needs at every tile, fixed for the whole kernel.
struct pa_lane {
    int warp, lane;
    int gr, tq;         // MMA fragment: row group, column pair
    int lm, lr;         // ldmatrix: which 8x8 matrix, which of its rows
    int lrow, lch;      // copies: first row, 16-byte chunk of the row
    int G, qchunks;     // query heads per kv head, chunks of them
    int bs_mask;        // token -> slot in its block
    size_t row_stride;  // halves between slots of a block
    uint32_t ring;      // the warp's ring in shared memory
    uint64_t pol;       // L2 evict-first
};

// The running attention of the segment being computed, transposed: the tile's 16 tokens are
// the M of the MMAs and the group's query heads (at most 8) their N, so S^T = K Q^T and
// O^T += V^T P^T, and no MMA row is padding.
template <int D> struct pa_segment {
    uint32_t qb[D / 16][2]; // Q^T as the B operand: head gr, dims 16 kk + 2 tq (+ 8)
    float acc[D / 16][4];   // O^T: dims 16 dp + gr (+ 8) x heads 2 tq, 2 tq + 1
    float m0, m1, l0, l1;   // heads 2 tq (0) and 2 tq + 1 (1); l: this lane's tokens only
    int h0;                 // first query head of the group
};

// Issues the copies of the K and V rows of tile ld into ring slot `stage`. Lane l copies
// 16-byte chunk l % CPR of rows l / CPR, l / CPR + RPI, ... of the tile; rows past the
// context are zero-filled.
template <int D>
__device__ __forceinline__ void pa_load_tile(const paged_attention_args &a, const pa_plan &pl, const pa_lane &ln,
                                             const pa_cursor &ld, int stage)
{
    constexpr int CPR = D / 8, RPI = 32 / CPR, STAGE_BYTES = 2 * PA_TILE * D * 2;
    const int grp = ld.kc * pl.warps + ln.warp, g = ln.qchunks == 1 ? grp : grp / ln.qchunks;
    const int *table = a.block_tables + (size_t)ld.s * a.max_blocks_per_seq;
    const size_t lane_off = (size_t)g * D + ln.lch * 8;
    const int tok0 = ld.t * PA_TILE;
    const uint32_t dst = ln.ring + stage * STAGE_BYTES;
    if (pl.log2_bs >= 4) { // the tile lies in one block: one table entry, rows one stride apart
        const size_t row0 = ((size_t)__ldg(table + (tok0 >> pl.log2_bs)) << pl.log2_bs) + (tok0 & ln.bs_mask) + ln.lrow;
        const __half *kr = a.k_cache + row0 * ln.row_stride + lane_off, *vr = a.v_cache + row0 * ln.row_stride + lane_off;
#pragma unroll
        for (int i = 0; i < PA_TILE / RPI; i++) {
            const int r = i * RPI + ln.lrow, n = tok0 + r < ld.ctx ? 16 : 0; // past the context: zeros
            const size_t step = (size_t)i * RPI * ln.row_stride;
            cp_async16(dst + swz<D>(r, ln.lch), kr + step, n, ln.pol);
            cp_async16(dst + PA_TILE * D * 2 + swz<D>(r, ln.lch), vr + step, n, ln.pol);
        }
    } else { // small blocks: a table entry per row
#pragma unroll
        for (int i = 0; i < PA_TILE / RPI; i++) {
            const int r = i * RPI + ln.lrow, tok = tok0 + r;
            const bool ok = tok < ld.ctx;
            const size_t row = ok ? ((size_t)__ldg(table + (tok >> pl.log2_bs)) << pl.log2_bs) + (tok & ln.bs_mask) : 0;
            cp_async16(dst + swz<D>(r, ln.lch), a.k_cache + row * ln.row_stride + lane_off, ok ? 16 : 0, ln.pol);
            cp_async16(dst + PA_TILE * D * 2 + swz<D>(r, ln.lch), a.v_cache + row * ln.row_stride + lane_off, ok ? 16 : 0,
                       ln.pol);
        }
    }
}

// A new (sequence, group): its query heads as the B operand (heads >= hpc zero), an empty
// accumulator.
template <int D>
__device__ __forceinline__ void pa_begin_segment(const paged_attention_args &a, const pa_plan &pl, const pa_lane &ln,
                                                 const pa_cursor &cur, pa_segment<D> &sg)
{
    const int grp = cur.kc * pl.warps + ln.warp;
    sg.h0 = (grp / ln.qchunks) * ln.G + (grp % ln.qchunks) * pl.hpc;
    const __half *q = a.q + ((size_t)cur.s * a.num_heads + sg.h0) * D + ln.gr * D + 2 * ln.tq;
    const bool head = ln.gr < pl.hpc;
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        sg.qb[kk][0] = head ? *reinterpret_cast<const uint32_t *>(q + kk * 16) : 0u;
        sg.qb[kk][1] = head ? *reinterpret_cast<const uint32_t *>(q + kk * 16 + 8) : 0u;
    }
#pragma unroll
    for (int dp = 0; dp < D / 16; dp++)
        sg.acc[dp][0] = sg.acc[dp][1] = sg.acc[dp][2] = sg.acc[dp][3] = 0.f;
    sg.m0 = sg.m1 = -INFINITY;
    sg.l0 = sg.l1 = 0.f;
}

// S^T = K Q^T for the tile whose K rows start at shared address sk: this lane gets tokens gr
// (s[0], s[1]) and gr + 8 (s[2], s[3]) of heads 2 tq and 2 tq + 1. Two accumulators, even
// and odd k-steps, halve the chain of dependent MMAs.
template <int D>
__device__ __forceinline__ void pa_scores(const pa_lane &ln, const pa_segment<D> &sg, uint32_t sk, float (&s)[4])
{
    float t[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        uint32_t ka[4];
        ldmatrix_x4(ka, sk + swz<D>((ln.lm & 1) * 8 + ln.lr, kk * 2 + (ln.lm >> 1)));
        if (kk & 1)
            mma_16816(t, ka, sg.qb[kk][0], sg.qb[kk][1]);
        else
            mma_16816(s, ka, sg.qb[kk][0], sg.qb[kk][1]);
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        s[i] += t[i];
}

// Online softmax over one tile: masks tokens past the context, moves the reference maximum
// when it must (rescaling the accumulator), adds the tile's probabilities to this lane's
// sums and returns them as the B operand of O^T += V^T P^T (rounded to fp16): the scores'
// fragment holds P (tokens x heads), the B operand wants P^T by lanes, and movmatrix
// transposes each 8x8 half in registers.
template <int D>
__device__ __forceinline__ void pa_online_softmax(const pa_lane &ln, const pa_cursor &cu, float scl, float (&s)[4],
                                                  pa_segment<D> &sg, uint32_t (&pb)[2])
{
    const int t = cu.t * PA_TILE + ln.gr;
    const bool in0 = t < cu.ctx, in1 = t + 8 < cu.ctx;
    s[0] = in0 ? s[0] * scl : -INFINITY;
    s[1] = in0 ? s[1] * scl : -INFINITY;
    s[2] = in1 ? s[2] * scl : -INFINITY;
    s[3] = in1 ? s[3] * scl : -INFINITY;
    float mx0 = fmaxf(s[0], s[2]), mx1 = fmaxf(s[1], s[3]);
    // Lazy rescaling: the reference maximum moves only when a score exceeds it by more than
    // 2^8, so p <= 256 (exact enough in fp16) and the accumulator is rescaled a few times
    // per sequence instead of at every tile where a maximum grows. Each lane tests its own
    // scores; only when one passes does the warp reduce the heads' maxima over the tokens
    // (the 8 lanes of a column: 6 shuffles).
    if (__any_sync(0xffffffffu, mx0 > sg.m0 + PA_LAZY || mx1 > sg.m1 + PA_LAZY)) {
#pragma unroll
        for (int off = 4; off < 32; off *= 2) {
            mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, off));
            mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, off));
        }
        const float mn0 = fmaxf(sg.m0, mx0), mn1 = fmaxf(sg.m1, mx1); // finite: the tile has a token
        const float al0 = exp2f(sg.m0 - mn0), al1 = exp2f(sg.m1 - mn1);
        sg.m0 = mn0;
        sg.m1 = mn1;
        sg.l0 *= al0;
        sg.l1 *= al1;
#pragma unroll
        for (int dp = 0; dp < D / 16; dp++) {
            sg.acc[dp][0] *= al0;
            sg.acc[dp][1] *= al1;
            sg.acc[dp][2] *= al0;
            sg.acc[dp][3] *= al1;
        }
    }
    const float p0 = exp2f(s[0] - sg.m0), p1 = exp2f(s[1] - sg.m1);
    const float p2 = exp2f(s[2] - sg.m0), p3 = exp2f(s[3] - sg.m1);
    sg.l0 += p0 + p2;
    sg.l1 += p1 + p3;
    pb[0] = movmatrix_trans(pack_half2(p0, p1)); // tokens 2 tq, 2 tq + 1 of head gr
    pb[1] = movmatrix_trans(pack_half2(p2, p3)); // tokens 8 + 2 tq, 9 + 2 tq
}

// O^T += V^T P^T for the tile whose V rows start at shared address sv: ldmatrix .trans reads
// V^T (dims x tokens) as the A operand, one MMA per 16 dims.
template <int D>
__device__ __forceinline__ void pa_accumulate_pv(const pa_lane &ln, const uint32_t (&pb)[2], uint32_t sv, pa_segment<D> &sg)
{
#pragma unroll
    for (int dp = 0; dp < D / 16; dp++) {
        uint32_t va[4];
        ldmatrix_x4_trans(va, sv + swz<D>((ln.lm >> 1) * 8 + ln.lr, dp * 2 + (ln.lm & 1)));
        mma_16816(sg.acc[dp], va, pb[0], pb[1]);
    }
}

// Leaves this warp's piece of a cut group in scratch: slot 0 for the CTA's first segment, 1
// for its last. Rows [head][D] as the wide merge reads them; this lane's 4-byte values.
template <int D>
__device__ __forceinline__ void pa_write_partial(const pa_plan &pl, const pa_lane &ln, int c, bool first_seg,
                                                 const pa_segment<D> &sg)
{
    const int h = 2 * ln.tq;
    const size_t pi = ((size_t)(c * 2 + (first_seg ? 0 : 1)) * pl.warps + ln.warp) * pl.hpc + h;
    float *o0 = pl.po + pi * D + ln.gr, *o1 = o0 + D;
#pragma unroll
    for (int dp = 0; dp < D / 16; dp++) {
        if (h < pl.hpc) {
            o0[dp * 16] = sg.acc[dp][0];
            o0[dp * 16 + 8] = sg.acc[dp][2];
        }
        if (h + 1 < pl.hpc) {
            o1[dp * 16] = sg.acc[dp][1];
            o1[dp * 16 + 8] = sg.acc[dp][3];
        }
    }
    if (ln.gr == 0 && h < pl.hpc)
        pl.pml[pi] = make_float2(sg.m0, sg.l0);
    if (ln.gr == 0 && h + 1 < pl.hpc)
        pl.pml[pi + 1] = make_float2(sg.m1, sg.l1);
}

// A group cut by CTA boundaries: CTAs first..last hold a piece each. The others count
// themselves in once their partial is visible. When all of them have, this warp merges
// theirs into its registers and leaves nothing behind; otherwise it leaves its partial,
// counts itself in, and the last one in merges. Returns whether this warp writes the output
// (its registers then hold the whole group).
template <int D>
__device__ __forceinline__ bool pa_merge_cut_group(const paged_attention_args &a, const pa_plan &pl, const pa_lane &ln,
                                                   const pa_cursor &cu, long long gstart, long long U, long long grid,
                                                   int c, bool first_seg, bool at_end, pa_segment<D> &sg)
{
    const int lane = ln.lane, warp = ln.warp;
    const long long gend = gstart + cu.ntile;
    const int first = (int)(((gstart + 1) * grid - 1) / U), last = (int)((gend * grid - 1) / U);
    const int ncon = last - first + 1, first_slot = gstart == first * U / grid ? 0 : 1;
    unsigned long long *counter = pl.arrived + (size_t)first * pl.warps + warp;
    bool write_out = false;
    int others_in = 0;
    // Only a piece that ends the CTA's run looks first: one that ends mid-run is almost never
    // the last of its group to finish (the others end with their CTAs' runs), and the look
    // is a round trip to L2 while the warp's copies wait (32 x 4096 at 64 / 8 heads: 1%).
    if (!pl.wide_merge && lane == 0 && at_end)
        others_in = arrivals(ld_acquire(counter), pl.epoch);
    others_in = __shfl_sync(0xffffffffu, others_in, 0);
    if (others_in == ncon - 1 && !pl.wide_merge) {
        write_out = true;
    } else {
        pa_write_partial<D>(pl, ln, c, first_seg, sg);
        if (pl.wide_merge) { // the CTA where the group begins leaves a note for the merge kernel
            if (first == c && lane == 0) {
                pa_wide &wd = pl.wide[((size_t)cu.s * pl.nkc + cu.kc) * pl.warps + warp];
                wd.first = first;
                wd.first_slot = first_slot;
                wd.ncon = ncon;
                wd.out_row = (size_t)cu.s * a.num_heads + sg.h0;
                wd.epoch = pl.epoch;
            }
        } else {
            __threadfence(); // our partial is visible before we are counted
            __syncwarp();
            int in = 0;
            if (lane == 0) {
                in = count_in(counter, pl.epoch);
                __threadfence();
            }
            write_out = __shfl_sync(0xffffffffu, in, 0) == ncon;
        }
    }
    if (write_out)
        pa_fold_partials<D>(pl, first, first_slot, ncon, c, warp, ln.gr, ln.tq, sg.acc, sg.m0, sg.m1, sg.l0, sg.l1);
    return write_out;
}

// The group's output: the accumulator divided by the sums, rounded to fp16 and transposed
// back (movmatrix), so that this lane writes dims 16 dp + 2 tq, + 1 (and + 8) of head gr.
template <int D>
__device__ __forceinline__ void pa_write_output(const paged_attention_args &a, const pa_plan &pl, const pa_lane &ln,
                                                const pa_cursor &cu, const pa_segment<D> &sg)
{
    __half *o = a.out + ((size_t)cu.s * a.num_heads + sg.h0 + ln.gr) * D + 2 * ln.tq;
    const float r0 = 1.f / sg.l0, r1 = 1.f / sg.l1;
#pragma unroll
    for (int dp = 0; dp < D / 16; dp++) {
        const uint32_t lo = movmatrix_trans(pack_half2(sg.acc[dp][0] * r0, sg.acc[dp][1] * r1));
        const uint32_t hi = movmatrix_trans(pack_half2(sg.acc[dp][2] * r0, sg.acc[dp][3] * r1));
        if (ln.gr < pl.hpc) {
            *reinterpret_cast<uint32_t *>(o + dp * 16) = lo;
            *reinterpret_cast<uint32_t *>(o + dp * 16 + 8) = hi;
        }
    }
}

// ---- the kernel ----

template <int D>
__global__ void __launch_bounds__(PA_MAX_WARPS * 32) pa_kernel(const paged_attention_args a, const pa_plan pl)
{
    constexpr int CPR = D / 8, STAGES = pa_stages<D>(), STAGE_BYTES = 2 * PA_TILE * D * 2;
    extern __shared__ __align__(128) unsigned char smem[];
    long long *s_info = reinterpret_cast<long long *>(smem + pl.warps * warp_ring_bytes<D>()); // U, first seq, its unit, scan
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int nkc = pl.nkc, G = a.num_heads / a.num_kv_heads;
    PA_MARK(0);

    // ---- this CTA's units [u0, u1) and the first one's position ----
    pa_find_first_unit(a, nkc, s_info, warp, lane);
    __syncthreads();
    PA_MARK(1);
    const long long U = s_info[0], grid = min((long long)gridDim.x, U);
    const int c = blockIdx.x;
    const long long u0 = c < grid ? c * U / grid : U, u1 = c < grid ? (c + 1) * U / grid : U;
    const int n_my = (int)(u1 - u0);
    pa_cursor first;
    first.s = (int)s_info[1];
    const long long first_unit = s_info[2];
    if (n_my > 0) {
        first.ctx = __ldg(a.context_lens + first.s);
        first.ntile = (first.ctx + PA_TILE - 1) / PA_TILE;
        first.kc = (int)((u0 - first_unit) / first.ntile);
        first.t = (int)((u0 - first_unit) % first.ntile);
    }

    // ---- the warp's stream of tiles: a cp.async ring STAGES - 1 tiles ahead ----
    pa_lane ln;
    ln.warp = warp;
    ln.lane = lane;
    ln.gr = lane / 4, ln.tq = lane % 4;
    ln.lm = lane / 8, ln.lr = lane % 8;
    ln.lrow = lane / CPR, ln.lch = lane % CPR;
    ln.G = G;
    ln.qchunks = G / pl.hpc;
    ln.bs_mask = (1 << pl.log2_bs) - 1;
    ln.row_stride = (size_t)a.num_kv_heads * D;
    ln.ring = smem_addr(smem + warp * warp_ring_bytes<D>());
    ln.pol = evict_first_policy();
    const float scl = a.scale * 1.4426950408889634f; // scores in the log2 domain

    pa_cursor ld = first; // the next tile to load
#pragma unroll
    for (int k = 0; k < STAGES - 1; k++) {
        if (k < n_my) {
            pa_load_tile<D>(a, pl, ln, ld, k);
            pa_advance(ld, a, nkc);
        }
        cp_async_commit();
    }
    int st_load = STAGES - 1, st_use = 0; // ring slots of the next load and of the tile computed

    pa_segment<D> sg; // set by pa_begin_segment at the first tile (seg_new)
    pa_cursor cu = first; // the tile being computed
    bool seg_new = true, seg_whole = first.t == 0, first_seg = true;
    for (int k = 0; k < n_my; k++) {
        if (k + STAGES - 1 < n_my) {
            pa_load_tile<D>(a, pl, ln, ld, st_load);
            pa_advance(ld, a, nkc);
        }
        cp_async_commit();
        st_load = st_load == STAGES - 1 ? 0 : st_load + 1;
        if (seg_new) {
            pa_begin_segment<D>(a, pl, ln, cu, sg);
            seg_new = false;
        }
        cp_async_wait<STAGES - 1>();
        __syncwarp();
        PA_MARK(2);
        const uint32_t sk = ln.ring + st_use * STAGE_BYTES, sv = sk + PA_TILE * D * 2;
        st_use = st_use == STAGES - 1 ? 0 : st_use + 1;

        float s[4] = {0.f, 0.f, 0.f, 0.f};
        uint32_t pb[2];
        pa_scores<D>(ln, sg, sk, s);
        pa_online_softmax<D>(ln, cu, scl, s, sg, pb);
        pa_accumulate_pv<D>(ln, pb, sv, sg);
        __syncwarp(); // every lane is done with this stage before it is refilled
        PA_MARK(3);

        // end of a segment (the group's last tile, or the CTA's): the output, or a partial
        const bool group_end = cu.t == cu.ntile - 1;
        if (group_end || k == n_my - 1) {
#pragma unroll
            for (int off = 4; off < 32; off *= 2) { // each head's sum over the tokens of the 8 lanes
                sg.l0 += __shfl_xor_sync(0xffffffffu, sg.l0, off);
                sg.l1 += __shfl_xor_sync(0xffffffffu, sg.l1, off);
            }
            bool write_out = seg_whole && group_end;
            if (!write_out)
                write_out = pa_merge_cut_group<D>(a, pl, ln, cu, u0 + k - cu.t, U, grid, c, first_seg, k == n_my - 1, sg);
            if (write_out)
                pa_write_output<D>(a, pl, ln, cu, sg);
            seg_new = true;
            seg_whole = true; // the next segment starts at a group's first tile
            first_seg = false;
        }
        pa_advance(cu, a, nkc);
    }
    cp_async_wait<0>();
    PA_MARK(4);
}

// ---- the wide merge: one CTA per (cut group, head), 256 threads ----
// Thread (slice, col) folds every SLICES-th partial into a running (max, sum, output) for
// its 4 output dims, PER partials at a time with all their loads in flight (one pass: the
// partials are read once, and the kernel waits for L2 about ncon / (SLICES x PER) + 1
// times); the slices are then folded together through shared memory.
template <int D>
__global__ void __launch_bounds__(256) pa_wide_merge_kernel(const pa_plan pl, __half *out)
{
    constexpr int COLS = D / 4, SLICES = 256 / COLS, PER = 16;
    __shared__ float4 s_o[SLICES][COLS];
    __shared__ float2 s_ml[SLICES];
    const pa_wide wd = pl.wide[blockIdx.x];
    if (wd.epoch != pl.epoch)
        return; // no wide merge here in this call
    const int warp = blockIdx.x % pl.warps, first = wd.first, j = blockIdx.y;
    auto row = [&](int q) { // partial row of contributor q for head j
        return ((size_t)((first + q) * 2 + (q == 0 ? wd.first_slot : 0)) * pl.warps + warp) * pl.hpc + j;
    };
    const int col = threadIdx.x % COLS, slice = threadIdx.x / COLS;
    float m = -INFINITY, l = 0.f; // m stays -inf only for a slice with no partial
    float4 o = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int q0 = slice; q0 < wd.ncon; q0 += SLICES * PER) {
        float2 ml[PER];
        float4 v[PER];
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const int q = q0 + i * SLICES;
            ml[i] = make_float2(-INFINITY, 0.f);
            v[i] = make_float4(0.f, 0.f, 0.f, 0.f);
            if (q < wd.ncon) {
                const size_t r = row(q);
                ml[i] = __ldcg(pl.pml + r);
                v[i] = __ldcg(reinterpret_cast<const float4 *>(pl.po + r * D + col * 4));
            }
        }
        float mx = m;
#pragma unroll
        for (int i = 0; i < PER; i++)
            mx = fmaxf(mx, ml[i].x); // finite: partial q0 is there
        const float a = exp2f(m - mx);
        l *= a;
        o.x *= a, o.y *= a, o.z *= a, o.w *= a;
#pragma unroll
        for (int i = 0; i < PER; i++) {
            const float w = exp2f(ml[i].x - mx);
            l = fmaf(ml[i].y, w, l);
            o.x = fmaf(v[i].x, w, o.x);
            o.y = fmaf(v[i].y, w, o.y);
            o.z = fmaf(v[i].z, w, o.z);
            o.w = fmaf(v[i].w, w, o.w);
        }
        m = mx;
    }
    s_o[slice][col] = o;
    if (col == 0)
        s_ml[slice] = make_float2(m, l);
    __syncthreads();
    if (threadIdx.x < COLS) {
        float M = s_ml[0].x;
        for (int sl = 1; sl < SLICES; sl++)
            M = fmaxf(M, s_ml[sl].x);
        float L = 0.f;
        float4 t = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int sl = 0; sl < SLICES; sl++) {
            const float w = exp2f(s_ml[sl].x - M); // 0 for a slice with no partial
            const float4 so = s_o[sl][col];
            L = fmaf(s_ml[sl].y, w, L);
            t.x = fmaf(so.x, w, t.x);
            t.y = fmaf(so.y, w, t.y);
            t.z = fmaf(so.z, w, t.z);
            t.w = fmaf(so.w, w, t.w);
        }
        __half2 *dst = reinterpret_cast<__half2 *>(out + (wd.out_row + j) * D + col * 4);
        dst[0] = __floats2half2_rn(t.x / L, t.y / L);
        dst[1] = __floats2half2_rn(t.z / L, t.w / L);
    }
}

// ---- host side ----

// A new tag for every call, whatever its head_dim: counters and merge records left by an
// earlier call (or never written: scratch is not cleared) never carry it.
static unsigned long long next_epoch()
{
    static unsigned long long calls;
    return (0xC1A5ull << 32 | ++calls) & 0xFFFFFFFFFFFFull;
}

// Largest divisor of n that is at most cap.
static int divisor_at_most(int n, int cap)
{
    for (int d = n < cap ? n : cap; d > 1; d--)
        if (n % d == 0)
            return d;
    return 1;
}

template <int D> static size_t kernel_smem(int warps)
{
    return (size_t)warps * warp_ring_bytes<D>() + (3 + PA_MAX_WARPS) * sizeof(long long);
}

// Warps (each with its own ring) that fit in one CTA's shared memory on the current device:
// 8 on Hopper (227 KB), fewer on sm_80 (163 KB), sm_86/89/120 (99 KB) and sm_75 (64 KB).
template <int D> static int warps_that_fit()
{
    static int fit_of[32]; // 0: not asked yet
    int dev = 0;
    cudaGetDevice(&dev);
    if (dev < 32 && fit_of[dev])
        return fit_of[dev];
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    int w = PA_MAX_WARPS;
    while (w > 1 && kernel_smem<D>(w) > (size_t)optin)
        w--;
    if (dev < 32)
        fit_of[dev] = w;
    return w;
}

// The persistent grid: as many CTAs of this many warps as are resident at once on the
// current device. The queries cost microseconds of host time per call, so they are made once
// per device and warp count (the opt-in to large shared memory covers the largest CTA).
template <int D> static int resident_grid(int warps, size_t smem)
{
    static int grid_of[32][PA_MAX_WARPS + 1]; // 0: not asked yet
    int dev = 0;
    cudaGetDevice(&dev);
    int *cached = dev < 32 ? &grid_of[dev][warps] : nullptr;
    if (cached && *cached)
        return *cached;
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaFuncSetAttribute(pa_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kernel_smem<D>(warps_that_fit<D>()));
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pa_kernel<D>, warps * 32, smem);
    if (cached)
        *cached = sms * per_sm;
    return sms * per_sm;
}

// The CTAs that take units: of the resident count R down to R - R / 32, one that is a
// multiple or a divisor of the number of groups (sequences x chunks) where there is one,
// else R. When the context lengths are equal (a batch padded or bucketed to one length)
// every CTA boundary then falls on a group boundary or cuts every group at the same places,
// and no group ends inside a CTA's run: such an end costs its CTA a partial, a fence and a
// round trip to a counter before it goes on, while 4 SMs left idle cost nothing measurable,
// HBM being the limit (each CTA reads 3% more, and reads faster). H100, 32 x 4096 at 64 / 8
// heads, 128 CTAs (4 whole sequences' quarters) against 132 (31 sequences ending inside a
// run): 0.1893 -> 0.1853 ms; head_dim 64: 0.1867 -> 0.1845; the other shapes within 0.3%.
// More idle SMs do cost: 120 CTAs 2% slower than 132 on four shapes, 96 CTAs 4-7%. H200:
// 64 / 8 heads 0.1352 -> 0.1311 ms, head_dim 64 0.1333 -> 0.1302, MHA 0.955 -> 0.944.
// The host does not know the lengths (they are on the GPU), so with unequal lengths this is
// a guess. Choosing on the GPU instead (every CTA counting the boundaries inside runs for
// each candidate after its scan, the CTAs past the choice returning at once) was 1-2%
// slower than 132 CTAs at the bench shape, MHA and 256 x 1024: the count delays every CTA's
// first copies, and the idle SMs are wherever the hardware put the last CTAs.
static int even_grid(long long groups, int resident)
{
    for (int g = resident; g >= resident - resident / 32 && g > 0; g--)
        if (g % groups == 0 || groups % g == 0)
            return g;
    return resident;
}

template <int D> static int launch(const paged_attention_args &a, int log2_bs, cudaStream_t stream)
{
    pa_plan pl;
    pl.hpc = divisor_at_most(a.num_heads / a.num_kv_heads, 8); // the N of the MMAs
    const int groups = a.num_kv_heads * (a.num_heads / a.num_kv_heads / pl.hpc);
    pl.warps = divisor_at_most(groups, warps_that_fit<D>());
    pl.nkc = groups / pl.warps;
    pl.log2_bs = log2_bs;
    const size_t smem = kernel_smem<D>(pl.warps);
    const int grid = even_grid((long long)a.num_seqs * pl.nkc, resident_grid<D>(pl.warps, smem));
    if (grid < 1) {
        fprintf(stderr, "paged_attention: the kernel does not fit on an SM (%zu bytes of shared memory)\n", smem);
        return -1;
    }
    // Scratch: the merge counters, the wide notes, the partial outputs (read as float4 by the
    // wide merge: each part starts on 16 bytes, whatever the count of counters), their (m, l).
    const size_t rows = (size_t)grid * 2 * pl.warps * pl.hpc, counters = (size_t)grid * pl.warps;
    auto up16 = [](size_t n) { return (n + 15) & ~(size_t)15; };
    const size_t off_wide = up16(counters * sizeof(unsigned long long));
    const size_t off_po = off_wide + up16(counters * sizeof(pa_wide));
    const size_t off_pml = off_po + rows * D * sizeof(float);
    unsigned char *scratch = (unsigned char *)cudalab_scratch(off_pml + rows * sizeof(float2));
    if (!scratch) {
        fprintf(stderr, "paged_attention: no scratch memory for %zu partial rows\n", rows);
        return -1;
    }
    pl.epoch = next_epoch();
    pl.arrived = reinterpret_cast<unsigned long long *>(scratch);
    pl.wide = reinterpret_cast<pa_wide *>(scratch + off_wide);
    pl.po = reinterpret_cast<float *>(scratch + off_po);
    pl.pml = reinterpret_cast<float2 *>(scratch + off_pml);
    // A sequence spans about grid / (sequences x chunks) CTAs. With few sequences a group is
    // cut into many partials: too many for one warp to merge at the end, and too many CTAs
    // contending for one counter. Then a second kernel merges them, many CTAs at once.
    pl.wide_merge = (long long)a.num_seqs * pl.nkc * 8 < grid;
    pa_kernel<D><<<grid, pl.warps * 32, smem, stream>>>(a, pl);
    if (pl.wide_merge)
        pa_wide_merge_kernel<D><<<dim3((unsigned)(a.num_seqs * pl.nkc * pl.warps), pl.hpc), 256, 0, stream>>>(pl, a.out);
    return 0;
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    if (a.num_seqs <= 0) // nothing to attend to (and no groups for even_grid to divide)
        return;
    int log2_bs = 0;
    while ((1 << log2_bs) < a.block_size)
        log2_bs++;
    if ((1 << log2_bs) != a.block_size || (a.head_dim != 64 && a.head_dim != 128)) {
        fprintf(stderr, "paged_attention: needs a power-of-two block size and head_dim 64 or 128\n");
        return;
    }
    if (a.head_dim == 128)
        launch<128>(a, log2_bs, stream);
    else
        launch<64>(a, log2_bs, stream);
}
