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
//   persistent (as many CTAs as are resident at once) and CTA c takes the contiguous range
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
// - Tensor Cores (mma.sync m16n8k16, fp16 in, fp32 accumulate), the group's query heads as
//   the 16 rows: S = Q K^T for 16 tokens is 16 MMAs at head_dim 128, O += P V another 16;
//   on CUDA cores the same is ~1000 FMAs and shuffles per 16 tokens.
// - FlashAttention-2's register trick: the S accumulator fragment is laid out as the A
//   operand of P V, so probabilities never leave registers. ldmatrix loads K as it is (B of
//   Q K^T) and V with .trans; 16-byte chunks are swizzled (chunk ^ row % 8) so the 8 rows an
//   ldmatrix reads fall in 8 different bank groups.
// - Online softmax in the log2 domain (scale * log2(e) applied to the fp32 scores, exp2f),
//   with lazy rescaling (the reference maximum moves only when a score passes it by 2^8).
// Precision: scores are exact fp16 products summed in fp32; p (<= 256) is rounded to fp16
// for the P V MMA (2^-11 relative), which the lab's tolerance admits (lab.yaml).
// Which path runs where (__CUDA_ARCH__ guards and a per-device query):
//   sm_80 and newer   cp.async ring with an L2 evict-first policy, mma.sync m16n8k16
//   sm_75 (Turing)    synchronous 16-byte loads into the same ring, two mma.sync m16n8k8 per
//                     k16 step (cp.async, createpolicy and m16n8k16 need sm_80)
//   every GPU         as many warps (groups) per CTA as its shared memory holds rings: 8 on
//                     Hopper (227 KB a block), 6 on sm_80 (163 KB) at head_dim 128, 4 on
//                     sm_86/89/120 (99 KB), 2 on sm_75 (64 KB); the other groups are chunks
// Measured on an H100 (docs/PERFORMANCE.md, run 10): 95.3% of the read-only bandwidth on the
// bench shape (0.359 ms); SDPA (cuDNN) on contiguous K/V 97.3% (0.352 ms), as fast as this
// kernel with its arithmetic and its segment ends (partials, counters, merges) compiled out.
// At 32 x 4096 with 64 / 8 heads those two cost 8.5 and 12.5 us of 0.19 ms.
#include <cstdint>
#include <cstdio>

#include "cudalab_lab.h"

#define PA_MAX_WARPS 8 // groups (warps) per CTA
#define PA_TILE 16     // tokens per unit: the N of Q K^T, the K of P V
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
    int hpc;                     // query heads per group (rows of the MMA tile)
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
// a cut group left, into this warp's own piece, in registers: the MMA accumulator layout,
// rows gr and gr + 8, columns 8n + 2tq and the next. CTA q of first..first+ncon-1 keeps
// the partial of its first segment in slot 0 and of its last in slot 1: the group is the
// first CTA's first segment only when it begins exactly where that CTA's range begins
// (first_slot), and it is always the first segment of the others.
template <int D>
__device__ void pa_fold_partials(const pa_plan &pl, int first, int first_slot, int ncon, int self, int warp, int gr, int tq,
                                 float (&acc)[D / 8][4], float &m_lo, float &m_hi, float &l_lo, float &l_hi)
{
    const bool lo = gr < pl.hpc, hi = gr + 8 < pl.hpc;
    for (int q = 0; q < ncon; q++) {
        const int cc = first + q;
        if (cc == self)
            continue;
        const size_t pi = ((size_t)(cc * 2 + (q == 0 ? first_slot : 0)) * pl.warps + warp) * pl.hpc + gr;
        const float2 ml_lo = lo ? __ldcg(pl.pml + pi) : make_float2(-INFINITY, 0.f);
        const float2 ml_hi = hi ? __ldcg(pl.pml + pi + 8) : make_float2(-INFINITY, 0.f);
        const float pm_lo = ml_lo.x, pl_lo = ml_lo.y, pm_hi = ml_hi.x, pl_hi = ml_hi.y;
        float2 v[D / 8][2]; // every load in flight before the first is used
#pragma unroll
        for (int n = 0; n < D / 8; n++) {
            v[n][0] = lo ? __ldcg(reinterpret_cast<const float2 *>(pl.po + pi * D + n * 8 + 2 * tq)) : make_float2(0.f, 0.f);
            v[n][1] = hi ? __ldcg(reinterpret_cast<const float2 *>(pl.po + (pi + 8) * D + n * 8 + 2 * tq)) : make_float2(0.f, 0.f);
        }
        const float mn_lo = fmaxf(m_lo, pm_lo), mn_hi = fmaxf(m_hi, pm_hi); // m is finite: a piece has a token
        const float a_lo = exp2f(m_lo - mn_lo), b_lo = exp2f(pm_lo - mn_lo);
        const float a_hi = exp2f(m_hi - mn_hi), b_hi = exp2f(pm_hi - mn_hi);
#pragma unroll
        for (int n = 0; n < D / 8; n++) {
            acc[n][0] = fmaf(acc[n][0], a_lo, v[n][0].x * b_lo);
            acc[n][1] = fmaf(acc[n][1], a_lo, v[n][0].y * b_lo);
            acc[n][2] = fmaf(acc[n][2], a_hi, v[n][1].x * b_hi);
            acc[n][3] = fmaf(acc[n][3], a_hi, v[n][1].y * b_hi);
        }
        l_lo = fmaf(l_lo, a_lo, pl_lo * b_lo);
        l_hi = fmaf(l_hi, a_hi, pl_hi * b_hi);
        m_lo = mn_lo;
        m_hi = mn_hi;
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

// The running attention of the segment being computed: the group's query heads as the A
// operand of Q K^T, and the unnormalised output, maximum and sum of rows gr and gr + 8.
template <int D> struct pa_segment {
    uint32_t qa[D / 16][4];
    float acc[D / 8][4];
    float m_lo, m_hi, l_lo, l_hi;
    int h0; // first query head of the group
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

// A new (sequence, group): its query heads as the A operand (rows >= hpc zero), an empty
// accumulator.
template <int D>
__device__ __forceinline__ void pa_begin_segment(const paged_attention_args &a, const pa_plan &pl, const pa_lane &ln,
                                                 const pa_cursor &cur, pa_segment<D> &sg)
{
    const int grp = cur.kc * pl.warps + ln.warp;
    sg.h0 = (grp / ln.qchunks) * ln.G + (grp % ln.qchunks) * pl.hpc;
    const __half *q = a.q + ((size_t)cur.s * a.num_heads + sg.h0) * D;
    const int gr = ln.gr, tq = ln.tq;
    const bool lo = gr < pl.hpc, hi = gr + 8 < pl.hpc;
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        const int col = kk * 16 + 2 * tq;
        sg.qa[kk][0] = lo ? *reinterpret_cast<const uint32_t *>(q + gr * D + col) : 0u;
        sg.qa[kk][1] = hi ? *reinterpret_cast<const uint32_t *>(q + (gr + 8) * D + col) : 0u;
        sg.qa[kk][2] = lo ? *reinterpret_cast<const uint32_t *>(q + gr * D + col + 8) : 0u;
        sg.qa[kk][3] = hi ? *reinterpret_cast<const uint32_t *>(q + (gr + 8) * D + col + 8) : 0u;
    }
#pragma unroll
    for (int n = 0; n < D / 8; n++)
        sg.acc[n][0] = sg.acc[n][1] = sg.acc[n][2] = sg.acc[n][3] = 0.f;
    sg.m_lo = sg.m_hi = -INFINITY;
    sg.l_lo = sg.l_hi = 0.f;
}

// S = Q K^T for the tile whose K rows start at shared address sk: s0 holds tokens 0-7 of the
// tile, s1 tokens 8-15.
template <int D>
__device__ __forceinline__ void pa_scores(const pa_lane &ln, const pa_segment<D> &sg, uint32_t sk, float (&s0)[4],
                                          float (&s1)[4])
{
#pragma unroll
    for (int kk = 0; kk < D / 16; kk++) {
        uint32_t b[4];
        ldmatrix_x4(b, sk + swz<D>((ln.lm / 2) * 8 + ln.lr, kk * 2 + (ln.lm & 1)));
        mma_16816(s0, sg.qa[kk], b[0], b[1]);
        mma_16816(s1, sg.qa[kk], b[2], b[3]);
    }
}

// Online softmax over one tile: masks tokens past the context, moves the reference maximum
// when it must (rescaling the accumulator), adds the tile's probabilities to the sums and
// returns them as the A fragment of P V (rounded to fp16). This lane holds tokens 2tq, 2tq+1
// (s0) and 8+2tq, 9+2tq (s1).
template <int D>
__device__ __forceinline__ void pa_online_softmax(const pa_lane &ln, const pa_cursor &cu, float scl, float (&s0)[4],
                                                  float (&s1)[4], pa_segment<D> &sg, uint32_t (&pa)[4])
{
    const int t0 = cu.t * PA_TILE + 2 * ln.tq;
#pragma unroll
    for (int i = 0; i < 4; i++) {
        s0[i] = t0 + (i & 1) < cu.ctx ? s0[i] * scl : -INFINITY;
        s1[i] = t0 + 8 + (i & 1) < cu.ctx ? s1[i] * scl : -INFINITY;
    }
    float mx_lo = fmaxf(fmaxf(s0[0], s0[1]), fmaxf(s1[0], s1[1]));
    float mx_hi = fmaxf(fmaxf(s0[2], s0[3]), fmaxf(s1[2], s1[3]));
    // Lazy rescaling: the reference maximum moves only when a score exceeds it by more than
    // 2^8, so p <= 256 (exact enough in fp16) and the accumulator is rescaled a few times
    // per sequence instead of at every tile where a maximum grows. Each lane tests its own
    // scores; only when one passes does the warp reduce the row maxima (4 shuffles).
    if (__any_sync(0xffffffffu, mx_lo > sg.m_lo + PA_LAZY || mx_hi > sg.m_hi + PA_LAZY)) {
#pragma unroll
        for (int off = 1; off < 4; off *= 2) {
            mx_lo = fmaxf(mx_lo, __shfl_xor_sync(0xffffffffu, mx_lo, off));
            mx_hi = fmaxf(mx_hi, __shfl_xor_sync(0xffffffffu, mx_hi, off));
        }
        const float mn_lo = fmaxf(sg.m_lo, mx_lo), mn_hi = fmaxf(sg.m_hi, mx_hi); // finite: the tile has a token
        const float al_lo = exp2f(sg.m_lo - mn_lo), al_hi = exp2f(sg.m_hi - mn_hi);
        sg.m_lo = mn_lo;
        sg.m_hi = mn_hi;
        sg.l_lo *= al_lo;
        sg.l_hi *= al_hi;
#pragma unroll
        for (int n = 0; n < D / 8; n++) {
            sg.acc[n][0] *= al_lo;
            sg.acc[n][1] *= al_lo;
            sg.acc[n][2] *= al_hi;
            sg.acc[n][3] *= al_hi;
        }
    }
    float p0[4], p1[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float mi = i < 2 ? sg.m_lo : sg.m_hi;
        p0[i] = exp2f(s0[i] - mi);
        p1[i] = exp2f(s1[i] - mi);
    }
    sg.l_lo += p0[0] + p0[1] + p1[0] + p1[1];
    sg.l_hi += p0[2] + p0[3] + p1[2] + p1[3];
    pa[0] = pack_half2(p0[0], p0[1]);
    pa[1] = pack_half2(p0[2], p0[3]);
    pa[2] = pack_half2(p1[0], p1[1]);
    pa[3] = pack_half2(p1[2], p1[3]);
}

// O += P V for the tile whose V rows start at shared address sv: P's A fragment is the S
// accumulator's layout, so the probabilities never leave registers.
template <int D>
__device__ __forceinline__ void pa_accumulate_pv(const pa_lane &ln, const uint32_t (&pa)[4], uint32_t sv, pa_segment<D> &sg)
{
#pragma unroll
    for (int dp = 0; dp < D / 16; dp++) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, sv + swz<D>((ln.lm & 1) * 8 + ln.lr, dp * 2 + ln.lm / 2));
        mma_16816(sg.acc[2 * dp], pa, b[0], b[1]);
        mma_16816(sg.acc[2 * dp + 1], pa, b[2], b[3]);
    }
}

// Leaves this warp's piece of a cut group in scratch: slot 0 for the CTA's first segment, 1
// for its last.
template <int D>
__device__ __forceinline__ void pa_write_partial(const pa_plan &pl, const pa_lane &ln, int c, bool first_seg,
                                                 const pa_segment<D> &sg)
{
    const int gr = ln.gr, tq = ln.tq;
    const size_t pi = ((size_t)(c * 2 + (first_seg ? 0 : 1)) * pl.warps + ln.warp) * pl.hpc;
    float *o = pl.po + pi * D + 2 * tq;
#pragma unroll
    for (int n = 0; n < D / 8; n++) {
        if (gr < pl.hpc)
            *reinterpret_cast<float2 *>(o + gr * D + n * 8) = make_float2(sg.acc[n][0], sg.acc[n][1]);
        if (gr + 8 < pl.hpc)
            *reinterpret_cast<float2 *>(o + (gr + 8) * D + n * 8) = make_float2(sg.acc[n][2], sg.acc[n][3]);
    }
    if (tq == 0 && gr < pl.hpc)
        pl.pml[pi + gr] = make_float2(sg.m_lo, sg.l_lo);
    if (tq == 0 && gr + 8 < pl.hpc)
        pl.pml[pi + gr + 8] = make_float2(sg.m_hi, sg.l_hi);
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
        pa_fold_partials<D>(pl, first, first_slot, ncon, c, warp, ln.gr, ln.tq, sg.acc, sg.m_lo, sg.m_hi, sg.l_lo,
                            sg.l_hi);
    return write_out;
}

// The group's output: the accumulator divided by the sums, rounded to fp16.
template <int D>
__device__ __forceinline__ void pa_write_output(const paged_attention_args &a, const pa_plan &pl, const pa_lane &ln,
                                                const pa_cursor &cu, const pa_segment<D> &sg)
{
    const int gr = ln.gr;
    __half *o = a.out + ((size_t)cu.s * a.num_heads + sg.h0) * D + 2 * ln.tq;
    const float r_lo = 1.f / sg.l_lo, r_hi = 1.f / sg.l_hi;
#pragma unroll
    for (int n = 0; n < D / 8; n++) {
        if (gr < pl.hpc)
            *reinterpret_cast<__half2 *>(o + gr * D + n * 8) = __floats2half2_rn(sg.acc[n][0] * r_lo, sg.acc[n][1] * r_lo);
        if (gr + 8 < pl.hpc)
            *reinterpret_cast<__half2 *>(o + (gr + 8) * D + n * 8) =
                __floats2half2_rn(sg.acc[n][2] * r_hi, sg.acc[n][3] * r_hi);
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

    pa_segment<D> sg;
    sg.m_lo = sg.m_hi = -INFINITY;
    sg.l_lo = sg.l_hi = 0.f;
    sg.h0 = 0;
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

        float s0[4] = {0.f, 0.f, 0.f, 0.f}, s1[4] = {0.f, 0.f, 0.f, 0.f};
        uint32_t pa[4];
        pa_scores<D>(ln, sg, sk, s0, s1);
        pa_online_softmax<D>(ln, cu, scl, s0, s1, sg, pa);
        pa_accumulate_pv<D>(ln, pa, sv, sg);
        __syncwarp(); // every lane is done with this stage before it is refilled
        PA_MARK(3);

        // end of a segment (the group's last tile, or the CTA's): the output, or a partial
        const bool group_end = cu.t == cu.ntile - 1;
        if (group_end || k == n_my - 1) {
#pragma unroll
            for (int off = 1; off < 4; off *= 2) {
                sg.l_lo += __shfl_xor_sync(0xffffffffu, sg.l_lo, off);
                sg.l_hi += __shfl_xor_sync(0xffffffffu, sg.l_hi, off);
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

template <int D> static int launch(const paged_attention_args &a, int log2_bs, cudaStream_t stream)
{
    pa_plan pl;
    pl.hpc = divisor_at_most(a.num_heads / a.num_kv_heads, 16);
    const int groups = a.num_kv_heads * (a.num_heads / a.num_kv_heads / pl.hpc);
    pl.warps = divisor_at_most(groups, warps_that_fit<D>());
    pl.nkc = groups / pl.warps;
    pl.log2_bs = log2_bs;
    const size_t smem = kernel_smem<D>(pl.warps);
    const int grid = resident_grid<D>(pl.warps, smem);
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
