// transpose_variants.cu: the transpose reference next to candidate kernels and the copy
// ceiling, in one process (issue 17: transpose >= 97% of cudaMemcpy D2D's copy rate).
//
// Every variant is the reference's 4x4-register-transpose + XOR-swizzled float4 tile,
// with one knob changed at a time:
//   TR x TC     tile rows (of in) x tile cols; a thread moves TR*TC/4096 4x4 blocks.
//               The write side's contiguous run per out row is TR*4 bytes, the read
//               side's TC*4 bytes.
//   ld / st     cache hints: ldcs = ld.global.cs (the reference), ldg = ld.global.nc,
//               ld = plain; stcs = st.global.cs (the reference), st = plain (write-back),
//               stcg = st.global.cg.
//   G           raster order of the tiles. 0: row-major (the reference: the CTAs
//               resident at one time read a few whole tile-rows of `in` but scatter their
//               writes over every row of `out`). G > 0: bands of G tile-rows walked
//               column by column, so the resident CTAs cover a squarer region and both
//               the read and the write side stay within fewer DRAM pages.
//   P           persistent: grid = P CTAs per SM, each loops over tiles with a stride of
//               the grid and issues the next tile's loads before storing the current
//               tile (bytes in flight during the store phase). 0: one CTA per tile.
// Round 2 (batching loads before stores), 64x64 tiles kept in a "raw" shared layout
// (tile rows as they are in `in`, float4 slot XOR-swizzled by (row / 4) % 8); the 4x4
// register transpose happens on the way out (4 float4 smem reads -> 4 float4 stores):
//   raw NTxA Tt  NT tiles per CTA (A = c: neighbours along cols of in, so each in row
//               gets an NT*256-byte run; A = r: along rows, so each out row gets one),
//               T threads; all NT*1024/T float4 loads of all tiles are issued into
//               registers before the first shared store (8 or 16 loads in flight per
//               thread at NT = 2, 4 with 256 threads). T = 512 with NT = 1: 2 loads per
//               thread, each thread writes 2 of a 4x4 block's 4 columns.
//               ldcoh = ld.global.v4 through inline asm (coherent, not .nc): only with it
//               does ptxas keep all F loads in flight (see the comment in traw).
//   cpasync     the same, but the tile goes global -> shared with cp.async (LDGSTS, 16 B,
//               .cg): no register staging, every load of every tile in flight at once.
//   bulk        sm_90: each tile row (256 B) is one cp.async.bulk (TMA engine, 1-D) into
//               shared memory, completion on an mbarrier; rows padded by (row / 4) float4
//               instead of swizzled (a bulk copy lands contiguous).
// Round 3 ("R3" lines; round 2's best was 96.3 / 96.1%, a batched copy kernel 98.3%):
//   t3 TRxTC Tn MINBm   one tile per CTA as the reference, but __launch_bounds__(T, MINB):
//               MINB 8 caps 256-thread CTAs at 32 registers, so 8 fit an SM (the reference's
//               36 registers fit 6: 96 KB of loads in flight an SM against 128 KB for the copy
//               kernel); bigger tiles with the same 4 float4 a thread (128x128 with 1024
//               threads: 512-byte runs on both sides); 32x32 with 64 threads (128-byte runs);
//               i32 = 32-bit offsets (no spill at 32 registers; bench shapes only);
//               ld256B / ldnoL1.256B / ldevictfirst: L2 prefetch-size and eviction hints on
//               the loads; stwt: write-through stores (see t3's comment); colmajor: tiles
//               walked down columns (resident CTAs write long runs of out, read short runs):
//               the round-3 winner, now the reference's order ("reference" and "t3 ... (=
//               ref)" lines before round 3 were row-major).
//   cpasync/raw/bulk 2x2   2 x 2 tiles of 64x64 per CTA (both runs 512 bytes).
// Round 5 ("R5" lines, 2026-11-27): 8 or 16 float4 loads a thread in flight before its
// shared stores, in the column-major order. With plain loads ptxas interleaves loads and
// shared stores (40 registers whatever the tile); "ldcoh" (coherent asm loads and a barrier
// after them) keeps them all ahead (56 registers at 128x64, 80 at 128x128). All within
// 96.2-97.2% against the reference's 96.9 / 97.1% in the same process: more bytes in flight
// a thread does not move the transpose.
// Round 6 ("R6" lines, 2026-11-27, a twelfth session): a persistent TMA pipeline (ttma, sm_90):
// tensor-map loads of TR x 32 (or 2 x 32) fp32 boxes with the 128-byte swizzle into a ring of
// STAGES, a 4x4 block a thread through shared memory, TMA stores of 32 x 32 boxes. Bitwise
// correct everywhere, and slower: 74-83% with the L2 256-byte promotion, 90.5-91% without
// promotion (or 64/128 B), 91.5-93.3% with 64-column tiles (two boxes, 256-byte runs),
// against the reference's 96.9 / 97.2% in the same process; its loads alone (no stores, a
// diagnostic) read 1 GiB in 0.38 ms, 2.8 TB/s, below the read-only ceiling.
// TV_ONLY=a,b runs only the variants whose names contain a or b (and the reference).
// Copy kernels of the same bytes show what the copy rate itself depends on.
//
// Correctness: `in` holds bench_uniform(i, seed); a check kernel compares every element
// of out with the generator value bit for bit (out is first filled with 0xFF bytes, so
// a variant that skips a store is caught). The checker itself is validated once on the
// CPU (odd shape, full compare). Any mismatch prints WRONG.
//
// Build and run: bash bench/dev/variants/transpose/run.sh   (writes $OUT/transpose.txt)
#include <cstdint>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../../peers/cuda_timing.cuh"
#include "../../../../reference/transpose.cu"

namespace tv {

enum { LD_CS = 0, LD_NC = 1, LD_PLAIN = 2, LD_COH = 3 };
enum { ST_CS = 0, ST_PLAIN = 1, ST_CG = 2 };

template <int LD> __device__ __forceinline__ float4 ld4(const float *p)
{
    const float4 *q = reinterpret_cast<const float4 *>(p);
    if (LD == LD_CS)
        return __ldcs(q);
    if (LD == LD_NC)
        return __ldg(q);
    if (LD == LD_COH) { // ld.global.v4 (coherent, not .nc): ptxas may not move it below a barrier
        float4 v;
        asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(q));
        return v;
    }
    return *q;
}

template <int ST> __device__ __forceinline__ void st4(float *p, float4 v)
{
    float4 *q = reinterpret_cast<float4 *>(p);
    if (ST == ST_CS)
        __stcs(q, v);
    else if (ST == ST_CG)
        __stcg(q, v);
    else
        *q = v;
}

__device__ __forceinline__ void tile_of(long long t, int tiles_r, int tiles_c, int G, int &tr, int &tc)
{
    if (G <= 0) {
        tr = (int)(t / tiles_c);
        tc = (int)(t % tiles_c);
        return;
    }
    const long long per = (long long)G * tiles_c;
    const int grp = (int)(t / per);
    const int rem = (int)(t % per);
    const int gsz = min(G, tiles_r - grp * G);
    tr = grp * G + rem % gsz;
    tc = rem / gsz;
}

// TR x TC tile, 256 threads, float4 tile[TC][TR/4] with the column index XOR-swizzled.
template <int TR, int TC, int LD, int ST>
__global__ void __launch_bounds__(256)
    tv4(const float *__restrict__ in, float *__restrict__ out, int rows, int cols, int tiles_r, int tiles_c,
        int G)
{
    constexpr int RG = TR / 4;                  // float4 groups along a tile column (= out row)
    constexpr int CG = TC / 4;                  // column groups of a tile row
    constexpr int ROWSTEP = 256 / CG;           // row groups covered by one pass of 256 threads
    constexpr int BL = (RG * CG) / 256;         // 4x4 blocks per thread
    static_assert(RG >= 8 && CG >= 8 && BL >= 1 && (RG * CG) % 256 == 0, "tile shape");
    __shared__ float4 tile[TC][RG];

    const long long tiles = (long long)tiles_r * tiles_c;
    const int cb = threadIdx.x % CG;
    const int swz = cb & 7;
    float4 v[BL][4];

    auto load = [&](long long t) {
        int tr, tcI;
        tile_of(t, tiles_r, tiles_c, G, tr, tcI);
        const int r0 = tr * TR, c = tcI * TC + 4 * cb;
#pragma unroll
        for (int b = 0; b < BL; b++) {
            const int g = (int)(threadIdx.x / CG) + ROWSTEP * b;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int r = r0 + 4 * g + k;
                v[b][k] = (r < rows && c < cols) ? ld4<LD>(in + (size_t)r * cols + c) : make_float4(0.f, 0.f, 0.f, 0.f);
            }
        }
    };

    long long t = blockIdx.x;
    if (t >= tiles)
        return;
    load(t);
    for (;;) {
        const long long tn = t + gridDim.x;
        __syncthreads(); // the previous tile's store phase has read the tile
#pragma unroll
        for (int b = 0; b < BL; b++) {
            const int g = (int)(threadIdx.x / CG) + ROWSTEP * b;
            tile[4 * cb + 0][g ^ swz] = make_float4(v[b][0].x, v[b][1].x, v[b][2].x, v[b][3].x);
            tile[4 * cb + 1][g ^ swz] = make_float4(v[b][0].y, v[b][1].y, v[b][2].y, v[b][3].y);
            tile[4 * cb + 2][g ^ swz] = make_float4(v[b][0].z, v[b][1].z, v[b][2].z, v[b][3].z);
            tile[4 * cb + 3][g ^ swz] = make_float4(v[b][0].w, v[b][1].w, v[b][2].w, v[b][3].w);
        }
        __syncthreads();
        if (tn < tiles)
            load(tn); // next tile's loads in flight while this one is stored
        int tr, tcI;
        tile_of(t, tiles_r, tiles_c, G, tr, tcI);
        const int r0 = tr * TR, c0 = tcI * TC;
#pragma unroll
        for (int i = 0; i < BL * 4; i++) {
            const int idx = i * 256 + threadIdx.x;
            const int tc = idx / RG, g = idx % RG;
            const int orow = c0 + tc, ocol = r0 + 4 * g;
            if (orow < cols && ocol < rows)
                st4<ST>(out + (size_t)orow * rows + ocol, tile[tc][g ^ ((tc >> 2) & 7)]);
        }
        if (tn >= tiles)
            break;
        t = tn;
    }
}


// ---- round 2: raw-layout tiles, loads batched before stores ----
enum { LM_REG = 0, LM_CPASYNC = 1, LM_BULK = 2 };

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
#if __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
#else
    *reinterpret_cast<float4 *>(smem) = *reinterpret_cast<const float4 *>(gmem);
#endif
}
__device__ __forceinline__ void cp_async_wait_all()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
#endif
}

// Shared float4 index of (tile t, row r, float4 column cb).
template <int LM> __device__ __forceinline__ int raw_slot(int t, int r, int cb)
{
    if (LM == LM_BULK) // rows padded: row r starts at r * 16 + r / 4, 1040 float4 per tile
        return t * 1040 + r * 16 + (r >> 2) + cb;
    return t * 1024 + r * 16 + (cb ^ ((r >> 2) & 7));
}

template <int NTR, int NTC, int T, int LM, int LD, int ST>
__global__ void __launch_bounds__(T)
    traw(const float *__restrict__ in, float *__restrict__ out, int rows, int cols, int grp_c)
{
    extern __shared__ float4 sm[]; // NT tiles (+ an mbarrier for LM_BULK)
    constexpr int NT = NTR * NTC;  // tiles of the CTA: NTR along rows of in, NTC along cols
    constexpr int F = NT * 1024 / T; // float4 loads per thread
    static_assert(F >= 1 && NT * 1024 % T == 0, "shape");
    const int gr = (int)(blockIdx.x / grp_c), gcI = (int)(blockIdx.x % grp_c);
    auto r0_of = [&](int t) { return 64 * (gr * NTR + t / NTC); };
    auto c0_of = [&](int t) { return 64 * (gcI * NTC + t % NTC); };

    if (LM == LM_REG) {
        float4 v[F];
#pragma unroll
        for (int i = 0; i < F; i++) {
            const int f = i * T + threadIdx.x, t = f >> 10, r = (f >> 4) & 63, cb = f & 15;
            const int R = r0_of(t) + r, C = c0_of(t) + 4 * cb;
            v[i] = (R < rows && C < cols) ? ld4<LD>(in + (size_t)R * cols + C) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
        // The barrier keeps coherent loads (ldcs, ldcoh) above it, so all F loads are in
        // flight at once (ptxas -v: 80 registers at F = 16 with ldcoh). Read-only .nc loads
        // (the plain `ld` of a const __restrict__ pointer compiles to ld.global.nc) may be
        // sunk past it by ptxas: 44 registers at F = 16, i.e. not all in flight.
        __syncthreads();
#pragma unroll
        for (int i = 0; i < F; i++) {
            const int f = i * T + threadIdx.x, t = f >> 10, r = (f >> 4) & 63, cb = f & 15;
            sm[raw_slot<LM>(t, r, cb)] = v[i];
        }
        __syncthreads();
    } else if (LM == LM_CPASYNC) {
#pragma unroll
        for (int i = 0; i < F; i++) {
            const int f = i * T + threadIdx.x, t = f >> 10, r = (f >> 4) & 63, cb = f & 15;
            const int R = r0_of(t) + r, C = c0_of(t) + 4 * cb;
            if (R < rows && C < cols)
                cp_async16(&sm[raw_slot<LM>(t, r, cb)], in + (size_t)R * cols + C);
        }
        cp_async_wait_all();
        __syncthreads();
    } else {
#if __CUDA_ARCH__ >= 900
        uint64_t *bar = reinterpret_cast<uint64_t *>(sm + NT * 1040);
        const unsigned bar_a = (unsigned)__cvta_generic_to_shared(bar);
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar_a) : "memory");
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned bytes = 0;
            for (int t = 0; t < NT; t++) {
                const int vr = min(64, rows - r0_of(t)), vc = min(64, cols - c0_of(t));
                if (vr > 0 && vc > 0)
                    bytes += (unsigned)(vr * vc * 4);
            }
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar_a), "r"(bytes)
                         : "memory");
        }
        for (int q = threadIdx.x; q < NT * 64; q += T) { // one bulk copy per tile row
            const int t = q >> 6, r = q & 63;
            const int R = r0_of(t) + r, C = c0_of(t), vc = min(64, cols - C);
            if (R < rows && vc > 0) {
                const unsigned dst = (unsigned)__cvta_generic_to_shared(&sm[raw_slot<LM>(t, r, 0)]);
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                             "l"(in + (size_t)R * cols + C), "r"((unsigned)(vc * 4)), "r"(bar_a)
                             : "memory");
            }
        }
        unsigned done = 0;
        while (!done)
            asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}\n"
                         : "=r"(done)
                         : "r"(bar_a)
                         : "memory");
#endif
    }

    // store phase: 4x4 block (t, g, cb): tile rows 4g..4g+3, float4 column cb -> out rows
    // c0 + 4cb + j, out cols r0 + 4g .. + 3. Consecutive lanes take consecutive g, so a
    // half-warp writes 256 contiguous bytes of an out row per store.
    constexpr int BLK = NT * 256;
    constexpr bool HALF = T > BLK; // T = 2 * BLK: each thread does 2 of the 4 columns
    constexpr int BPT = HALF ? 1 : BLK / T;
    static_assert(HALF ? T == 2 * BLK : BLK % T == 0, "threads");
#pragma unroll
    for (int i = 0; i < BPT; i++) {
        const int bi = HALF ? (int)threadIdx.x % BLK : i * T + threadIdx.x;
        const int j0 = HALF ? 2 * ((int)threadIdx.x / BLK) : 0;
        const int t = bi >> 8, g = bi & 15, cb = (bi >> 4) & 15;
        float4 x[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            x[k] = sm[raw_slot<LM>(t, 4 * g + k, cb)];
        const int ocol = r0_of(t) + 4 * g;
#pragma unroll
        for (int jj = 0; jj < (HALF ? 2 : 4); jj++) {
            const int j = j0 + jj;
            const int orow = c0_of(t) + 4 * cb + j;
            const float4 o = j == 0   ? make_float4(x[0].x, x[1].x, x[2].x, x[3].x)
                             : j == 1 ? make_float4(x[0].y, x[1].y, x[2].y, x[3].y)
                             : j == 2 ? make_float4(x[0].z, x[1].z, x[2].z, x[3].z)
                                      : make_float4(x[0].w, x[1].w, x[2].w, x[3].w);
            if (orow < cols && ocol < rows)
                st4<ST>(out + (size_t)orow * rows + ocol, o);
        }
    }
}

// ---- round 3: one tile per CTA (the reference's structure), with the knobs round 2 left ----
// TR x TC tile, T threads, __launch_bounds__(T, MINB) (MINB caps the registers so MINB
// CTAs fit an SM: the reference, 36 registers, fits 6 x 256 threads; 32 registers fit 8;
// MINB 0: no minimum, as the reference).
// Every thread issues all its BL x 4 float4 loads before its first shared store.
// LDH: load kind. 0: plain (ld.global.nc, as the reference), 1: ld.global.nc.L2::256B (the
//      L2 fetches the whole 256-byte run a half-warp reads, not 2 x 128-byte lines as the
//      requests arrive), 2: ld.global.nc.L1::no_allocate.L2::256B, 3: ld.global.nc with an
//      L2 evict_first cache policy (read lines leave L2 first; written lines stay to merge).
// STH: store kind. 0: plain st.global (the reference), 1: st.global.wt (__stwt), 2: st.global.cs.
enum { LDH_PLAIN = 0, LDH_256B = 1, LDH_NOL1_256B = 2, LDH_EVICT_FIRST = 3, LDH_COH = 4 };
enum { STH_PLAIN = 0, STH_WT = 1, STH_CS = 2 };

template <int LDH> __device__ __forceinline__ float4 ldh4(const float *p, uint64_t pol)
{
    float4 v;
    if (LDH == LDH_256B)
        asm volatile("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if (LDH == LDH_NOL1_256B)
        asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if (LDH == LDH_COH) // coherent ld.global.v4: ptxas keeps it above the barrier t3 adds
        asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
    else if (LDH == LDH_EVICT_FIRST)
        asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    else
        v = *reinterpret_cast<const float4 *>(p);
    return v;
}

template <int STH> __device__ __forceinline__ void sth4(float *p, float4 v)
{
    if (STH == STH_WT)
        __stwt(reinterpret_cast<float4 *>(p), v);
    else if (STH == STH_CS)
        __stcs(reinterpret_cast<float4 *>(p), v);
    else
        *reinterpret_cast<float4 *>(p) = v;
}

template <int TR, int TC, int T, int MINB, int LDH, int STH, bool I32 = false, bool COLMAJ = false>
__global__ void __launch_bounds__(T, MINB)
    t3(const float *__restrict__ in, float *__restrict__ out, int rows, int cols, int tiles_c)
{
    constexpr int RG = TR / 4, CG = TC / 4, ROWSTEP = T / CG, BL = RG * CG / T;
    static_assert(RG >= 8 && CG >= 8 && T % CG == 0 && BL >= 1 && (RG * CG) % T == 0, "tile shape");
    extern __shared__ float4 t3_smem[]; // dynamic: a 128 x 128 tile is 64 KB, over the 48 KB static limit
    float4(*tile)[RG] = reinterpret_cast<float4(*)[RG]>(t3_smem); // [TC][RG]; tile[c][g ^ swz(c)]:
                                                                   // in[r0 + 4g .. + 3][c0 + c], a row of out
    uint64_t pol = 0;
    if (LDH == LDH_EVICT_FIRST)
        asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    // COLMAJ: consecutive CTAs walk down a column of tiles (the CTAs resident at one time
    // write a few whole rows of out and read short runs of every row of in: the mirror image
    // of the reference's order)
    const int tiles_r = (rows + TR - 1) / TR;
    const int r0 = (int)(COLMAJ ? blockIdx.x % tiles_r : blockIdx.x / tiles_c) * TR;
    const int c0 = (int)(COLMAJ ? blockIdx.x / tiles_r : blockIdx.x % tiles_c) * TC;
    const int cb = (int)threadIdx.x % CG, c = c0 + 4 * cb, swz = cb & 7;
    float4 v[BL][4];
#pragma unroll
    for (int b = 0; b < BL; b++) {
        const int g = (int)threadIdx.x / CG + ROWSTEP * b;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int r = r0 + 4 * g + k;
            const size_t off = I32 ? (size_t)(unsigned)(r * cols + c) : (size_t)r * cols + c;
            v[b][k] = (r < rows && c < cols) ? ldh4<LDH>(in + off, pol) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }
    if (LDH == LDH_COH)
        __syncthreads(); // every load of the tile is issued before the first shared store
#pragma unroll
    for (int b = 0; b < BL; b++) {
        const int g = (int)threadIdx.x / CG + ROWSTEP * b;
        tile[4 * cb + 0][g ^ swz] = make_float4(v[b][0].x, v[b][1].x, v[b][2].x, v[b][3].x);
        tile[4 * cb + 1][g ^ swz] = make_float4(v[b][0].y, v[b][1].y, v[b][2].y, v[b][3].y);
        tile[4 * cb + 2][g ^ swz] = make_float4(v[b][0].z, v[b][1].z, v[b][2].z, v[b][3].z);
        tile[4 * cb + 3][g ^ swz] = make_float4(v[b][0].w, v[b][1].w, v[b][2].w, v[b][3].w);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < BL * 4; i++) {
        const int idx = i * T + (int)threadIdx.x;
        const int tc = idx / RG, g = idx % RG;
        const int orow = c0 + tc, ocol = r0 + 4 * g;
        if (orow < cols && ocol < rows)
            sth4<STH>(out + (I32 ? (size_t)(unsigned)(orow * rows + ocol) : (size_t)orow * rows + ocol),
                      tile[tc][g ^ ((tc >> 2) & 7)]);
    }
}

// ---- copy kernels of the same bytes ----
// Each CTA copies a contiguous chunk of K*256 float4: K loads per thread before any store.
template <int K, int ST>
__global__ void __launch_bounds__(256) copy_batch(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n4)
{
    const size_t base = (size_t)blockIdx.x * (256 * K) + threadIdx.x;
    float4 v[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        v[k] = base + k * 256 < n4 ? __ldcs(src + base + k * 256) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int k = 0; k < K; k++)
        if (base + k * 256 < n4)
            st4<ST>(reinterpret_cast<float *>(dst + base + k * 256), v[k]);
}

// The probe's copy_strided (streaming): grid-stride, 4 float4 per thread per iteration.
__global__ void copy_strided_cs(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = __ldcs(src + i), b = __ldcs(src + i + stride), c = __ldcs(src + i + 2 * stride),
               d = __ldcs(src + i + 3 * stride);
        __stcs(dst + i, a);
        __stcs(dst + i + stride, b);
        __stcs(dst + i + 2 * stride, c);
        __stcs(dst + i + 3 * stride, d);
    }
    for (; i < n4; i += stride)
        __stcs(dst + i, __ldcs(src + i));
}

__global__ void fill(float *p, size_t n, unsigned seed)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = bench_uniform(i, seed);
}

// out (cols x rows) against the generator, bit for bit; counts mismatches.
__global__ void check(const float *out, int rows, int cols, unsigned seed, unsigned long long *bad)
{
    unsigned long long nb = 0;
    const size_t n = (size_t)rows * cols;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        const size_t j = k / rows, i = k % rows; // out[j][i] = in[i][j]
        const float want = bench_uniform(i * (size_t)cols + j, seed);
        nb += __float_as_uint(out[k]) != __float_as_uint(want);
    }
    if (nb)
        atomicAdd(bad, nb);
}


// ---- round 6: a persistent TMA pipeline (sm_90) ----
// Each CTA walks its tiles (TR rows of `in` x 32 columns) with a ring of STAGES tiles in
// flight: thread 0 issues cp.async.bulk.tensor loads (128-byte swizzle, completion on an
// mbarrier), the CTA's 2*TR threads each move one 4x4 block from the ring into an output
// tile (32 rows of `out` x TR columns, also 128-byte swizzled, NBUF of them), and thread 0
// writes each output tile with TMA stores (TR / 32 boxes of 32 x 32). No thread holds a
// load in a register, the copy engine keeps STAGES * TR * 128 bytes a CTA in flight.
// Bank conflicts: a quarter-warp's 8 lanes take q = lane % 8 (float4 column of the input
// tile) and row group rg = ((q + s) & 7) + 8h, s and h from the quarter-warp index; then
// both its shared loads (chunk q ^ row % 8) and its shared stores (chunk rg % 8 ^ out row
// % 8) fall in 8 different bank groups.
PFN_cuTensorMapEncodeTiled_v12000 g_encode_tiled = nullptr;

__device__ __forceinline__ uint32_t su32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

template <int TR, int STAGES, int NBUF, bool STORE = true, int NC = 1>
__global__ void __launch_bounds__(2 * TR * NC)
    ttma(const __grid_constant__ CUtensorMap tin, const __grid_constant__ CUtensorMap tout, int tiles_r, long long tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int BOX = TR * 128, TILE = NC * BOX; // bytes of an input tile (TR rows x 128 B) = an output tile (32 x TR * 4)
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = reinterpret_cast<uint8_t *>(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    uint8_t *sin = smem, *sout = smem + STAGES * TILE;
    __shared__ __align__(8) uint64_t full[STAGES];
    const int tid = threadIdx.x;
    const long long step = gridDim.x;
    auto issue = [&](int s, long long t) {
        const int r0 = (int)(t % tiles_r) * TR, c0 = (int)(t / tiles_r) * 32 * NC;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(su32(&full[s])), "r"(TILE) : "memory");
        for (int n = 0; n < NC; n++)
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
                    su32(sin + s * TILE + n * BOX)),
                "l"(reinterpret_cast<uint64_t>(&tin)), "r"(su32(&full[s])), "r"(c0 + 32 * n), "r"(r0)
                : "memory");
    };
    if (tid == 0) {
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tin)) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tout)) : "memory");
        for (int s = 0; s < STAGES; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(su32(&full[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        for (int s = 0; s < STAGES; s++) {
            const long long t = blockIdx.x + s * step;
            if (t < tiles)
                issue(s, t);
        }
    }
    __syncthreads();
    const int half = tid / (2 * TR), i = tid & 7, w = (tid % (2 * TR)) >> 3;
    const int q = i, rg = ((i + (w & 7)) & 7) + 8 * (w >> 3);
    int it = 0;
    for (long long t = blockIdx.x; t < tiles; t += step, it++) {
        const int s = it % STAGES, b = it % NBUF;
        const uint32_t parity = (uint32_t)(it / STAGES) & 1u;
        const uint32_t bar = su32(&full[s]);
        for (;;) {
            uint32_t done;
            asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                         : "=r"(done)
                         : "r"(bar), "r"(parity)
                         : "memory");
            if (done)
                break;
        }
        float4 v[4];
        const uint8_t *src = sin + s * TILE + half * BOX;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int r = 4 * rg + k;
            v[k] = *reinterpret_cast<const float4 *>(src + r * 128 + ((q ^ (r & 7)) << 4));
        }
        uint8_t *dst = sout + b * TILE + half * BOX + (rg >> 3) * 4096;
        const float c[4][4] = {{v[0].x, v[1].x, v[2].x, v[3].x},
                               {v[0].y, v[1].y, v[2].y, v[3].y},
                               {v[0].z, v[1].z, v[2].z, v[3].z},
                               {v[0].w, v[1].w, v[2].w, v[3].w}};
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int o = 4 * q + j;
            *reinterpret_cast<float4 *>(dst + o * 128 + (((rg & 7) ^ (o & 7)) << 4)) =
                make_float4(c[j][0], c[j][1], c[j][2], c[j][3]);
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        if (tid == 0) {
            const int r0 = (int)(t % tiles_r) * TR, c0 = (int)(t / tiles_r) * 32 * NC;
#pragma unroll
            for (int h = 0; h < (STORE ? NC * TR / 32 : 0); h++)
                asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                                 reinterpret_cast<uint64_t>(&tout)),
                             "r"(su32(sout + b * TILE + h * 4096)), "r"(r0 + 32 * (h % (TR / 32))), "r"(c0 + 32 * (h / (TR / 32)))
                             : "memory");
            asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
            const long long tn = t + STAGES * step;
            if (tn < tiles)
                issue(s, tn);
            asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(NBUF - 2) : "memory");
        }
    }
    if (tid == 0)
        asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
#endif
}

static bool tma_map(CUtensorMap *m, const float *p, int rows, int cols, int box_rows, CUtensorMapL2promotion promo)
{
    if (!g_encode_tiled) {
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult qr;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &qr) != cudaSuccess ||
            qr != cudaDriverEntryPointSuccess || !fn)
            return false;
        g_encode_tiled = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)cols * 4};
    cuuint32_t box[2] = {32, (cuuint32_t)box_rows};
    cuuint32_t es[2] = {1, 1};
    return g_encode_tiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float *>(p), dims, strides, box, es,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promo,
                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}
} // namespace tv

using namespace tv;

struct Variant {
    std::string name;
    void (*launch)(const float *, float *, int, int, int G, int P, int sms);
    int G, P;
};


template <int TR, int TC, int LD, int ST>
static void launch_tv4(const float *in, float *out, int rows, int cols, int G, int P, int sms)
{
    if (rows % 4 || cols % 4) { // the variants are the vec4 path; others take the reference's
        transpose(in, out, rows, cols, 0);
        return;
    }
    const int tiles_r = (rows + TR - 1) / TR, tiles_c = (cols + TC - 1) / TC;
    const long long tiles = (long long)tiles_r * tiles_c;
    long long grid = tiles;
    if (P > 0) {
        grid = (long long)P * sms;
        if (grid > tiles)
            grid = tiles;
    }
    tv4<TR, TC, LD, ST><<<(unsigned)grid, 256>>>(in, out, rows, cols, tiles_r, tiles_c, G);
}


template <int TR, int TC, int T, int MINB, int LDH, int STH, bool I32 = false, bool COLMAJ = false>
static void launch_t3(const float *in, float *out, int rows, int cols, int, int, int)
{
    if (rows % 4 || cols % 4) {
        transpose(in, out, rows, cols, 0);
        return;
    }
    if (I32 && (size_t)rows * cols >= (1u << 31)) { // 32-bit offsets: only below 2^31 elements
        transpose(in, out, rows, cols, 0);
        return;
    }
    const size_t smem = (size_t)TR * TC * 4;
    static bool shown = false;
    if (!shown) { // shared-memory limit; registers and CTAs per SM, once
        BENCH_CK(cudaFuncSetAttribute(t3<TR, TC, T, MINB, LDH, STH, I32, COLMAJ>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smem));
        cudaFuncAttributes fa;
        int per_sm = 0;
        BENCH_CK(cudaFuncGetAttributes(&fa, t3<TR, TC, T, MINB, LDH, STH, I32, COLMAJ>));
        BENCH_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, t3<TR, TC, T, MINB, LDH, STH, I32, COLMAJ>, T, smem));
        printf("  [t3 %dx%d T%d MINB%d ldh%d sth%d i32 %d: %d registers, %zu bytes local, %d CTAs per SM, %d KB of loads in "
               "flight per SM]\n",
               TR, TC, T, MINB, LDH, STH, (int)I32, fa.numRegs, (size_t)fa.localSizeBytes, per_sm, per_sm * TR * TC * 4 / 1024);
        shown = true;
    }
    const int tiles_c = (cols + TC - 1) / TC;
    const long long tiles = (long long)tiles_c * ((rows + TR - 1) / TR);
    t3<TR, TC, T, MINB, LDH, STH, I32, COLMAJ><<<(unsigned)tiles, T, smem>>>(in, out, rows, cols, tiles_c);
}

template <int NTR, int NTC, int T, int LM, int LD, int ST>
static void launch_traw(const float *in, float *out, int rows, int cols, int, int, int)
{
    if (rows % 4 || cols % 4) {
        transpose(in, out, rows, cols, 0);
        return;
    }
    constexpr int NT = NTR * NTC;
    const size_t smem = LM == LM_BULK ? (size_t)NT * 1040 * 16 + 16 : (size_t)NT * 1024 * 16;
    static bool attr = false;
    if (!attr) {
        BENCH_CK(cudaFuncSetAttribute(traw<NTR, NTC, T, LM, LD, ST>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smem));
        attr = true;
    }
    const int tiles_r = (rows + 63) / 64, tiles_c = (cols + 63) / 64;
    const int grp_r = (tiles_r + NTR - 1) / NTR, grp_c = (tiles_c + NTC - 1) / NTC;
    traw<NTR, NTC, T, LM, LD, ST><<<(unsigned)((long long)grp_r * grp_c), T, smem>>>(in, out, rows, cols, grp_c);
}


template <int TR, int STAGES, int NBUF, int PER_SM, int PROMO = 3, bool STORE = true, int NC = 1>
static void launch_ttma(const float *in, float *out, int rows, int cols, int, int, int sms)
{
    if (rows % 4 || cols % 4) {
        transpose(in, out, rows, cols, 0);
        return;
    }
    const int smem = (STAGES + NBUF) * NC * TR * 128 + 1024;
    static bool shown = false;
    if (!shown) {
        BENCH_CK(cudaFuncSetAttribute(ttma<TR, STAGES, NBUF, STORE, NC>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        int per_sm = 0;
        BENCH_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ttma<TR, STAGES, NBUF, STORE, NC>, 2 * TR * NC, smem));
        printf("  [ttma NC%d TR%d S%d B%d: %d B smem, %d CTAs per SM fit, %d launched per SM]\n", NC, TR, STAGES, NBUF, smem, per_sm,
               PER_SM);
        shown = true;
    }
    static CUtensorMap tin, tout; // encoded once per (pointers, shape): host time would count in the timing
    static const float *m_in = nullptr, *m_out = nullptr;
    static int m_rows = -1, m_cols = -1;
    if (m_in != in || m_out != out || m_rows != rows || m_cols != cols) {
        if (!tma_map(&tin, in, rows, cols, TR, (CUtensorMapL2promotion)PROMO) ||
            !tma_map(&tout, out, cols, rows, 32, (CUtensorMapL2promotion)PROMO)) {
            printf("ttma: tensor map refused\n");
            return;
        }
        m_in = in, m_out = out, m_rows = rows, m_cols = cols;
    }
    const long long tiles = (long long)((rows + TR - 1) / TR) * ((cols + 32 * NC - 1) / (32 * NC));
    long long grid = (long long)PER_SM * sms;
    if (grid > tiles)
        grid = tiles;
    ttma<TR, STAGES, NBUF, STORE, NC><<<(unsigned)grid, 2 * TR * NC, smem>>>(tin, tout, (rows + TR - 1) / TR, tiles);
}

static void launch_ref(const float *in, float *out, int rows, int cols, int, int, int)
{
    transpose(in, out, rows, cols, 0);
}

static std::vector<Variant> variants()
{
    std::vector<Variant> v;
    v.push_back({"reference (transpose())", launch_ref, 0, 0});
    // the reference's kernel, reproduced (should match the line above)
    v.push_back({"tv4 64x64 ldcs stcs G0", launch_tv4<64, 64, LD_CS, ST_CS>, 0, 0});
    v.push_back({"tv4 128x64 ldcs stcs G0", launch_tv4<128, 64, LD_CS, ST_CS>, 0, 0});
    // cache hints
    v.push_back({"tv4 64x64 ldg stcs G0", launch_tv4<64, 64, LD_NC, ST_CS>, 0, 0});
    v.push_back({"tv4 64x64 ld st G0", launch_tv4<64, 64, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"tv4 64x64 ldcs st G0", launch_tv4<64, 64, LD_CS, ST_PLAIN>, 0, 0});
    v.push_back({"tv4 64x64 ldcs stcg G0", launch_tv4<64, 64, LD_CS, ST_CG>, 0, 0});
    // tile shapes: longer write runs (TR) or longer read runs (TC)
    v.push_back({"tv4 64x128 ldcs stcs G0", launch_tv4<64, 128, LD_CS, ST_CS>, 0, 0});
    v.push_back({"tv4 256x32 ldcs stcs G0", launch_tv4<256, 32, LD_CS, ST_CS>, 0, 0});
    v.push_back({"tv4 128x32 ldcs stcs G0", launch_tv4<128, 32, LD_CS, ST_CS>, 0, 0});
    v.push_back({"tv4 32x128 ldcs stcs G0", launch_tv4<32, 128, LD_CS, ST_CS>, 0, 0});
    // raster order
    for (int G : {8, 32}) { // round 1: G2..G64 all slower than G0; two kept for reference
        v.push_back({"tv4 64x64 ldcs stcs G" + std::to_string(G), launch_tv4<64, 64, LD_CS, ST_CS>, G, 0});
        v.push_back({"tv4 128x64 ldcs stcs G" + std::to_string(G), launch_tv4<128, 64, LD_CS, ST_CS>, G, 0});
    }
    for (int G : {8, 32})
        v.push_back({"tv4 64x64 ld st G" + std::to_string(G), launch_tv4<64, 64, LD_PLAIN, ST_PLAIN>, G, 0});
    // persistent, next tile's loads issued before the current tile's stores
    for (int P : {4}) { // round 1: P2..P8 all slower
        v.push_back({"tv4 64x64 ldcs stcs G0 P" + std::to_string(P), launch_tv4<64, 64, LD_CS, ST_CS>, 0, P});
        v.push_back({"tv4 64x64 ldcs stcs G16 P" + std::to_string(P), launch_tv4<64, 64, LD_CS, ST_CS>, 16, P});
        v.push_back({"tv4 128x64 ldcs stcs G8 P" + std::to_string(P), launch_tv4<128, 64, LD_CS, ST_CS>, 8, P});
    }
    v.push_back({"tv4 64x64 ld st G16 P4", launch_tv4<64, 64, LD_PLAIN, ST_PLAIN>, 16, 4});
    // round 2: raw-layout tiles, all loads of the CTA issued before any store
    v.push_back({"raw 1xc T256 ld st", launch_traw<1, 1, 256, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 1xc T512 ld st", launch_traw<1, 1, 512, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xc T256 ld st", launch_traw<1, 2, 256, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xr T256 ld st", launch_traw<2, 1, 256, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xc T512 ld st", launch_traw<1, 2, 512, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xr T512 ld st", launch_traw<2, 1, 512, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 4xc T256 ld st", launch_traw<1, 4, 256, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 4xr T256 ld st", launch_traw<4, 1, 256, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 4xc T512 ld st", launch_traw<1, 4, 512, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xc T256 ldcoh st", launch_traw<1, 2, 256, LM_REG, LD_COH, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xr T256 ldcoh st", launch_traw<2, 1, 256, LM_REG, LD_COH, ST_PLAIN>, 0, 0});
    v.push_back({"raw 4xc T512 ldcoh st", launch_traw<1, 4, 512, LM_REG, LD_COH, ST_PLAIN>, 0, 0});
    v.push_back({"raw 4xc T256 ldcoh st", launch_traw<1, 4, 256, LM_REG, LD_COH, ST_PLAIN>, 0, 0});
    v.push_back({"raw 4xr T256 ldcoh st", launch_traw<4, 1, 256, LM_REG, LD_COH, ST_PLAIN>, 0, 0});
    v.push_back({"raw 2xc T256 ldcs stcs", launch_traw<1, 2, 256, LM_REG, LD_CS, ST_CS>, 0, 0});
    v.push_back({"raw 2xc T256 ld stcs", launch_traw<1, 2, 256, LM_REG, LD_PLAIN, ST_CS>, 0, 0});
    // cp.async (LDGSTS) global -> shared
    v.push_back({"cpasync 1xc T256 st", launch_traw<1, 1, 256, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"cpasync 1xc T128 st", launch_traw<1, 1, 128, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"cpasync 2xc T256 st", launch_traw<1, 2, 256, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"cpasync 2xr T256 st", launch_traw<2, 1, 256, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"cpasync 4xc T256 st", launch_traw<1, 4, 256, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"cpasync 4xr T512 st", launch_traw<4, 1, 512, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"cpasync 2xc T256 stcs", launch_traw<1, 2, 256, LM_CPASYNC, LD_PLAIN, ST_CS>, 0, 0});
    // cp.async.bulk (TMA engine, 1-D row copies), sm_90
    v.push_back({"bulk 1xc T256 st", launch_traw<1, 1, 256, LM_BULK, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"bulk 2xc T256 st", launch_traw<1, 2, 256, LM_BULK, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"bulk 2xr T256 st", launch_traw<2, 1, 256, LM_BULK, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"bulk 4xc T512 st", launch_traw<1, 4, 512, LM_BULK, LD_PLAIN, ST_PLAIN>, 0, 0});
    // round 3: one tile per CTA, registers capped for more CTAs per SM, load/store kinds,
    // bigger tiles with the same bytes per thread (see t3)
    v.push_back({"R3 t3 64x64 T256 ld st (= ref)", launch_t3<64, 64, 256, 0, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 ld st", launch_t3<64, 64, 256, 8, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 ld256B st", launch_t3<64, 64, 256, 8, LDH_256B, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 ldnoL1.256B st", launch_t3<64, 64, 256, 8, LDH_NOL1_256B, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 ldevictfirst st", launch_t3<64, 64, 256, 8, LDH_EVICT_FIRST, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 ld stwt", launch_t3<64, 64, 256, 8, LDH_PLAIN, STH_WT>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 ld256B st", launch_t3<64, 64, 256, 0, LDH_256B, STH_PLAIN>, 0, 0});
    // 32-bit offsets (fewer registers: no spill at 32)
    v.push_back({"R3 t3 64x64 T256 MINB8 i32 ld st", launch_t3<64, 64, 256, 8, LDH_PLAIN, STH_PLAIN, true>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 i32 ld256B st", launch_t3<64, 64, 256, 8, LDH_256B, STH_PLAIN, true>, 0, 0});
    v.push_back({"R3 t3 128x128 T1024 MINB2 i32 ld st", launch_t3<128, 128, 1024, 2, LDH_PLAIN, STH_PLAIN, true>, 0, 0});
    // column-major tile order (writes in long runs, reads scattered)
    v.push_back({"R3 t3 64x64 T256 colmajor ld st", launch_t3<64, 64, 256, 0, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R3 t3 64x64 T256 MINB8 i32 colmajor ld st", launch_t3<64, 64, 256, 8, LDH_PLAIN, STH_PLAIN, true, true>, 0, 0});
    v.push_back({"R3 t3 64x64 T128 MINB12 ld st", launch_t3<64, 64, 128, 12, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 32x32 T64 MINB32 ld st", launch_t3<32, 32, 64, 32, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 128x128 T1024 MINB2 ld st", launch_t3<128, 128, 1024, 2, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 128x128 T1024 MINB2 ld256B st", launch_t3<128, 128, 1024, 2, LDH_256B, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 128x128 T512 MINB3 ld st", launch_t3<128, 128, 512, 3, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 128x64 T512 MINB4 ld st", launch_t3<128, 64, 512, 4, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 64x128 T512 MINB4 ld st", launch_t3<64, 128, 512, 4, LDH_PLAIN, STH_PLAIN>, 0, 0});
    v.push_back({"R3 t3 128x64 T512 MINB4 ld256B st", launch_t3<128, 64, 512, 4, LDH_256B, STH_PLAIN>, 0, 0});
    // round 3: 2 x 2 tiles of 64 x 64 per CTA (512-byte runs on both sides)
    v.push_back({"R3 cpasync 2x2 T256 st", launch_traw<2, 2, 256, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"R3 cpasync 2x2 T512 st", launch_traw<2, 2, 512, LM_CPASYNC, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"R3 raw 2x2 T1024 ld st", launch_traw<2, 2, 1024, LM_REG, LD_PLAIN, ST_PLAIN>, 0, 0});
    v.push_back({"R3 bulk 2x2 T256 st", launch_traw<2, 2, 256, LM_BULK, LD_PLAIN, ST_PLAIN>, 0, 0});
    // round 4: the column-major order with other tile shapes and occupancies
    v.push_back({"R4 t3 64x128 T512 MINB4 colmajor ld st", launch_t3<64, 128, 512, 4, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R4 t3 128x64 T512 MINB4 colmajor ld st", launch_t3<128, 64, 512, 4, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R4 t3 128x128 T1024 MINB2 colmajor ld st", launch_t3<128, 128, 1024, 2, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R4 t3 32x128 T256 MINB8 colmajor ld st", launch_t3<32, 128, 256, 8, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R4 t3 64x64 T256 MINB6 colmajor ld st", launch_t3<64, 64, 256, 6, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R4 t3 64x64 T256 colmajor ld256B st", launch_t3<64, 64, 256, 0, LDH_256B, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R4 t3 64x64 T256 colmajor ld stcs", launch_t3<64, 64, 256, 0, LDH_PLAIN, STH_CS, false, true>, 0, 0});
    // round 5: more loads a thread in flight before its stores (8 or 16 float4 instead of 4),
    // in the column-major order (round 2 tried 8 a thread only in the row-major order)
    v.push_back({"R5 t3 128x64 T256 colmajor ld st", launch_t3<128, 64, 256, 0, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R5 t3 128x64 T256 MINB6 colmajor ld st", launch_t3<128, 64, 256, 6, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R5 t3 64x128 T256 colmajor ld st", launch_t3<64, 128, 256, 0, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R5 t3 128x128 T256 colmajor ld st", launch_t3<128, 128, 256, 0, LDH_PLAIN, STH_PLAIN, false, true>, 0, 0});
    // the same with coherent asm loads and a barrier after them, so that ptxas keeps every
    // load ahead of the shared stores (with plain loads it interleaves them: 40 registers)
    v.push_back({"R5 t3 64x64 T256 colmajor ldcoh st", launch_t3<64, 64, 256, 0, LDH_COH, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R5 t3 128x64 T256 colmajor ldcoh st", launch_t3<128, 64, 256, 0, LDH_COH, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R5 t3 64x128 T256 colmajor ldcoh st", launch_t3<64, 128, 256, 0, LDH_COH, STH_PLAIN, false, true>, 0, 0});
    v.push_back({"R5 t3 128x128 T256 colmajor ldcoh st", launch_t3<128, 128, 256, 0, LDH_COH, STH_PLAIN, false, true>, 0, 0});
    // round 6: the persistent TMA pipeline (sm_90): TR rows x 32 cols, STAGES loads in flight
    v.push_back({"R6 tma 64 S8 B4 x2", launch_ttma<64, 8, 4, 2>, 0, 0});
    v.push_back({"R6 tma 64 S12 B4 x2", launch_ttma<64, 12, 4, 2>, 0, 0});
    v.push_back({"R6 tma 64 S4 B4 x3", launch_ttma<64, 4, 4, 3>, 0, 0});
    v.push_back({"R6 tma 64 S6 B3 x4", launch_ttma<64, 6, 3, 4>, 0, 0});
    v.push_back({"R6 tma 128 S6 B3 x1", launch_ttma<128, 6, 3, 1>, 0, 0});
    v.push_back({"R6 tma 128 S8 B4 x1", launch_ttma<128, 8, 4, 1>, 0, 0});
    v.push_back({"R6 tma 128 S4 B3 x2", launch_ttma<128, 4, 3, 2>, 0, 0});
    v.push_back({"R6 tma 256 S4 B2 x1", launch_ttma<256, 4, 2, 1>, 0, 0});
    v.push_back({"R6 tma 64 S8 B4 x2 promo none", launch_ttma<64, 8, 4, 2, 0>, 0, 0});
    v.push_back({"R6 tma 64 S8 B4 x2 promo 128B", launch_ttma<64, 8, 4, 2, 2>, 0, 0});
    v.push_back({"R6 tma 128 S6 B3 x1 promo none", launch_ttma<128, 6, 3, 1, 0>, 0, 0});
    v.push_back({"R6 DIAG tma 64 S8 B4 x2, no stores", launch_ttma<64, 8, 4, 2, 3, false>, 0, 0});
    v.push_back({"R6 DIAG tma 64 S8 B4 x2 promo none, no stores", launch_ttma<64, 8, 4, 2, 0, false>, 0, 0});
    // 64 columns a tile (two 32-column boxes: 256-byte runs of each row of `in`)
    v.push_back({"R6 tma2 64x64 S4 B3 x2 promo none", launch_ttma<64, 4, 3, 2, 0, true, 2>, 0, 0});
    v.push_back({"R6 tma2 64x64 S4 B3 x2 promo 256B", launch_ttma<64, 4, 3, 2, 3, true, 2>, 0, 0});
    v.push_back({"R6 tma2 64x64 S6 B4 x1 promo none", launch_ttma<64, 6, 4, 1, 0, true, 2>, 0, 0});
    v.push_back({"R6 tma2 64x64 S3 B2 x3 promo none", launch_ttma<64, 3, 2, 3, 0, true, 2>, 0, 0});
    v.push_back({"R6 tma2 128x64 S4 B2 x1 promo none", launch_ttma<128, 4, 2, 1, 0, true, 2>, 0, 0});
    v.push_back({"R6 tma 64 S8 B4 x2 promo 64B", launch_ttma<64, 8, 4, 2, 1>, 0, 0});
    // TV_ONLY=a,b,...: only the variants whose names contain one of these (and the reference)
    if (const char *only = getenv("TV_ONLY")) {
        std::vector<Variant> keep;
        for (auto &x : v) {
            bool in = x.name == v[0].name;
            for (const char *p = only; *p && !in;) {
                const char *e = strchr(p, ',');
                const std::string part(p, e ? (size_t)(e - p) : strlen(p));
                in = !part.empty() && x.name.find(part) != std::string::npos;
                p = e ? e + 1 : p + strlen(p);
            }
            if (in)
                keep.push_back(x);
        }
        v = keep;
    }
    return v;
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30;
    int sms = 0;
    BENCH_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    BENCH_CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs, L2 %d MB; median of %d runs, L2 flushed before each (bench_time)\n", prop.name, sms,
           prop.l2CacheSize >> 20, runs);

    const size_t max_elems = (size_t)16384 * 16384;
    float *in, *out;
    unsigned long long *bad;
    BENCH_CK(cudaMalloc(&in, max_elems * 4));
    BENCH_CK(cudaMalloc(&out, max_elems * 4));
    BENCH_CK(cudaMalloc(&bad, sizeof *bad));
    const unsigned seed = 12345u;
    int wrong_total = 0;

    auto run_check = [&](const Variant &var, int rows, int cols) -> unsigned long long {
        const size_t n = (size_t)rows * cols;
        BENCH_CK(cudaMemset(out, 0xFF, n * 4));
        var.launch(in, out, rows, cols, var.G, var.P, sms);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) {
            printf("%s: launch failed: %s  WRONG\n", var.name.c_str(), cudaGetErrorString(e));
            return ~0ull;
        }
        BENCH_CK(cudaMemset(bad, 0, sizeof *bad));
        check<<<sms * 8, 256>>>(out, rows, cols, seed, bad);
        unsigned long long h = 0;
        BENCH_CK(cudaMemcpy(&h, bad, sizeof h, cudaMemcpyDeviceToHost));
        return h;
    };

    // ---- 1. the checker against the CPU (odd shape, full compare of the reference's output) ----
    {
        const int rows = 1028, cols = 4100; // multiples of 4, not of any tile
        const size_t n = (size_t)rows * cols;
        fill<<<sms * 8, 256>>>(in, n, seed);
        Variant ref = variants()[0];
        const unsigned long long gpu_bad = run_check(ref, rows, cols);
        std::vector<float> hin(n), hout(n);
        BENCH_CK(cudaMemcpy(hin.data(), in, n * 4, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(hout.data(), out, n * 4, cudaMemcpyDeviceToHost));
        size_t cpu_bad = 0;
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < cols; j++)
                cpu_bad += memcmp(&hout[(size_t)j * rows + i], &hin[(size_t)i * cols + j], 4) != 0;
        // and the checker must see a planted error
        BENCH_CK(cudaMemset(out + 777, 0, 4));
        BENCH_CK(cudaMemset(bad, 0, sizeof *bad));
        check<<<sms * 8, 256>>>(out, rows, cols, seed, bad);
        unsigned long long planted = 0;
        BENCH_CK(cudaMemcpy(&planted, bad, sizeof planted, cudaMemcpyDeviceToHost));
        const bool ok = cpu_bad == 0 && gpu_bad == 0 && planted == 1;
        printf("checker self-test (%dx%d, reference): CPU mismatches %zu, GPU checker %llu, planted error seen %llu/1: %s\n",
               rows, cols, cpu_bad, gpu_bad, planted, ok ? "ok" : "WRONG WRONG WRONG");
        wrong_total += !ok;
    }

    // ---- 2. odd shapes: every variant, bit for bit ----
    const std::vector<Variant> vars = variants();
    // the lab's odd cases (non-multiples of 4 go through the reference's tile32 path) and
    // multiples of 4 that are not multiples of a tile or of NT tiles
    const int odd[][2] = {{1028, 4100}, {4100, 1028}, {4, 8196}, {8196, 4}, {1001, 777}, {36, 100}, {100, 36},
                          {2048, 520}, {33, 4097}, {4097, 33}, {63, 65}, {1, 1}, {1, 4097}, {4097, 1}, {1, 1 << 20},
                          {1 << 20, 1}, {196, 324}, {324, 196}, {4, 4}};
    for (auto &s : odd) {
        fill<<<sms * 8, 256>>>(in, (size_t)s[0] * s[1], seed);
        int nbad = 0;
        for (auto &var : vars) {
            const unsigned long long b = run_check(var, s[0], s[1]);
            if (b) {
                printf("odd shape %d x %d: %-32s %llu mismatches  WRONG WRONG WRONG\n", s[0], s[1], var.name.c_str(), b);
                nbad++;
            }
        }
        printf("odd shape %d x %d: %d of %zu variants bitwise correct%s\n", s[0], s[1], (int)vars.size() - nbad,
               vars.size(), nbad ? "  WRONG" : "");
        wrong_total += nbad;
    }

    // ---- 3. bench shapes ----
    const int shapes[][2] = {{16384, 16384}, {8192, 32768}};
    for (auto &s : shapes) {
        const int rows = s[0], cols = s[1];
        const size_t n = (size_t)rows * cols, bytes = n * 4;
        fill<<<sms * 8, 256>>>(in, n, seed);
        BENCH_CK(cudaDeviceSynchronize());
        char shape[64];
        snprintf(shape, sizeof shape, "%d x %d", rows, cols);
        printf("\n## %s fp32 (%.0f MiB in + out), bytes counted as the lab: 2 * rows * cols * 4\n", shape,
               2.0 * bytes / 1048576.0);
        auto t_memcpy = bench_time([&] { BENCH_CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, 0)); },
                                   runs, 3);
        const double ceil_gbps = 2.0 * bytes / (t_memcpy.median_ms * 1e-3) / 1e9;
        auto line = [&](const char *name, bench_timing t, const char *err) {
            const double gbps = 2.0 * bytes / (t.median_ms * 1e-3) / 1e9;
            printf("%-36s %8.4f ms (min %.4f) %7.0f GB/s %6.1f%% of cudaMemcpy  %s\n", name, t.median_ms, t.min_ms,
                   gbps, 100.0 * gbps / ceil_gbps, err);
            fflush(stdout);
        };
        line("cudaMemcpy D2D (ceiling)", t_memcpy, "");
        const size_t n4 = n / 4;
        line("copy grid-stride x4 cs, 4/SM x 256", bench_time([&] { copy_strided_cs<<<sms * 4, 256>>>((const float4 *)in, (float4 *)out, n4); }, runs, 3), "");
        line("copy grid-stride x4 cs, 8/SM x 256", bench_time([&] { copy_strided_cs<<<sms * 8, 256>>>((const float4 *)in, (float4 *)out, n4); }, runs, 3), "");
        line("copy batch K=4 cs", bench_time([&] { copy_batch<4, ST_CS><<<(unsigned)((n4 + 1023) / 1024), 256>>>((const float4 *)in, (float4 *)out, n4); }, runs, 3), "");
        line("copy batch K=8 cs", bench_time([&] { copy_batch<8, ST_CS><<<(unsigned)((n4 + 2047) / 2048), 256>>>((const float4 *)in, (float4 *)out, n4); }, runs, 3), "");
        line("copy batch K=16 cs", bench_time([&] { copy_batch<16, ST_CS><<<(unsigned)((n4 + 4095) / 4096), 256>>>((const float4 *)in, (float4 *)out, n4); }, runs, 3), "");
        line("copy batch K=8 plain st", bench_time([&] { copy_batch<8, ST_PLAIN><<<(unsigned)((n4 + 2047) / 2048), 256>>>((const float4 *)in, (float4 *)out, n4); }, runs, 3), "");
        for (auto &var : vars) {
            const unsigned long long b = run_check(var, rows, cols);
            char err[96];
            snprintf(err, sizeof err, b ? "mismatches %llu  WRONG WRONG WRONG" : "bitwise ok", b);
            wrong_total += b != 0;
            if (b == ~0ull)
                continue;
            auto t = bench_time([&] { var.launch(in, out, rows, cols, var.G, var.P, sms); }, runs, 3);
            BENCH_CK(cudaGetLastError());
            line(var.name.c_str(), t, err);
        }
        auto t2 = bench_time([&] { BENCH_CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, 0)); }, runs, 3);
        printf("%-36s %8.4f ms (drift check: the ceiling again at the end)\n", "cudaMemcpy D2D (again)", t2.median_ms);
    }
    printf("\n%s: %d wrong\n", wrong_total ? "WRONG" : "all correct", wrong_total);
    return wrong_total ? 1 : 0;
}
