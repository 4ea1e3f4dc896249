// iou_variants.cu: the iou reference next to candidate kernels and the write-only ceiling
// (cudaMemset and float4 write kernels of the same bytes), in one process (issue 17:
// iou >= 95% of write-only at 4096 x 50000).
//
// The reference (reference/iou.cu, included below; line "reference (box_iou())") has two
// paths since round 3: the aligned-rows path (= "A T128 MB8 R8 RP2 Q1" below) when n % 4 == 0
// and out, a, b are 16-byte aligned (the bench shape), else the general path (= "T128 MB8
// R16 U2 S1 cs P0"). The odd-shape checks print which path each shape takes.
//
// The iouv variants are the general path's kernel (7 b boxes in registers per 16-byte
// slot, rows of a in a loop, one float4 store per row and slot, slots aligned to the
// row's memory) with knobs:
//   T / MB      threads per block / min blocks per SM of __launch_bounds__
//   R / U       rows of a per work item / rows per unrolled loop iteration
//   S           16-byte slots per thread and row (2: slots g and g + T, so a block writes
//               2 * T * 16 contiguous bytes of a row; the warp's stores stay 512-byte runs)
//   st          store hint: cs = st.global.cs (the reference), wb = plain, cg = st.global.cg
//   P           0: one block per work item (the reference's grid, x over column blocks,
//               then row groups); P > 0: P blocks per SM, each looping over the work items
//               in the same order (no tail of partial waves, no block launch per item)
//   SO          store-only: the same layout storing a constant, no IoU (this layout's ceiling)
//
// Round 2, "A" variants: the aligned-rows path (n % 4 == 0 and a 16-byte aligned out, so
// every row starts on a 16-byte boundary: the bench shape). Each slot needs only its own 4
// b boxes (no 7-box window, no per-row misalignment switch, the slot's bounds test is
// per thread, not per row). Others fall back to the reference. Knobs:
//   Q           slots per thread: interleaved (slots g, g + T, ...: each store instruction
//               of a warp is one 512-byte run) or contiguous "Qc" (slots Q*g .. Q*g+Q-1:
//               one thread writes Q*16 contiguous bytes)
//   RP          rows computed together: all RP*Q float4 results are computed first, then
//               the RP*Q stores are issued back to back
//   R           rows per block (work item), as in the reference
//   fs          fewer instructions per IoU: inter * rcp.approx.ftz(max(union, FLT_MIN)) instead of
//               union > 0 ? inter / union : 0 (union = 0 implies inter = 0 -> 0; differs
//               from the reference only for a union below FLT_MIN, i.e. denormal areas)
//
// Correctness: the reference's output at 4096 x 50000 is checked in full against a CPU
// fp32 reference (the README's formula, IEEE division) with the lab's tolerance (rel 4e-6,
// expected 0 exactly 0). Every variant is compared with the reference's output on the GPU
// (bitwise; its maximum relative difference is printed) and, on odd shapes (n % 4 = 1, 2,
// 3, tiny rows, unaligned output pointers, n % 4 == 0 with m and n not multiples of a
// block's rows/slots, m > 65535 row blocks so both kernels' grid-stride row loops run), in
// full against the CPU; the reference alone also with box arrays that are not 16-byte
// aligned (its general path's scalar box loads). WRONG is printed for any failure.
//
// Build and run: bash bench/dev/variants/iou/run.sh   (writes $OUT/iou.txt)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../../../peers/cuda_timing.cuh"
#include "../../../../reference/iou.cu"

namespace iv {

enum { ST_CS = 0, ST_WB = 1, ST_CG = 2 };

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

template <bool SO>
__device__ __forceinline__ float iou1(float4 a, float aa, float4 b, float ab)
{
    if (SO)
        return 0.5f;
    float iw = fmaxf(__fsub_rn(fminf(a.z, b.z), fmaxf(a.x, b.x)), 0.0f);
    float ih = fmaxf(__fsub_rn(fminf(a.w, b.w), fmaxf(a.y, b.y)), 0.0f);
    float inter = __fmul_rn(iw, ih);
    float uni = __fsub_rn(__fadd_rn(aa, ab), inter);
    return uni > 0.0f ? __fdividef(inter, uni) : 0.0f;
}

#define IV4(K)                                                                                                    \
    do {                                                                                                          \
        v.x = iou1<SO>(ai, aa, bx[q][(K) + 0], ba[q][(K) + 0]);                                                  \
        v.y = iou1<SO>(ai, aa, bx[q][(K) + 1], ba[q][(K) + 1]);                                                  \
        v.z = iou1<SO>(ai, aa, bx[q][(K) + 2], ba[q][(K) + 2]);                                                  \
        v.w = iou1<SO>(ai, aa, bx[q][(K) + 3], ba[q][(K) + 3]);                                                  \
    } while (0)

// Work item w: column block xb = w % gx (S * T slots), row group rb = w / gx (R rows).
template <int T, int MB, int R, int U, int S, int ST, bool SO>
__global__ void __launch_bounds__(T, MB)
    iouv(const float *__restrict__ a, int m, const float *__restrict__ b, int n, float *__restrict__ out, int gx,
         long long items)
{
    for (long long w = blockIdx.x; w < items; w += gridDim.x) {
        const long long xb = w % gx, rb = w / gx;
        float4 bx[S][7];
        float ba[S][7];
#pragma unroll
        for (int q = 0; q < S; q++) {
            const long long g = (xb * S + q) * T + threadIdx.x;
            const long long c0 = 4 * g - 3;
#pragma unroll
            for (int k = 0; k < 7; k++) {
                const long long j = c0 + k;
                if (j >= 0 && j < n) {
                    bx[q][k] = load_box<true>(b, j);
                    ba[q][k] = area_of(bx[q][k]);
                } else {
                    bx[q][k] = make_float4(0.f, 0.f, 0.f, 0.f);
                    ba[q][k] = 0.0f;
                }
            }
        }
        const long long r0 = rb * R;
#pragma unroll(U)
        for (int r = 0; r < R; r++) {
            const long long i = r0 + r;
            if (i >= m)
                break;
            const float4 ai = load_box<true>(a, i);
            const float aa = area_of(ai);
            float *row = out + i * (long long)n;
            const int s = (int)(((uintptr_t)row >> 2) & 3);
#pragma unroll
            for (int q = 0; q < S; q++) {
                const long long g = (xb * S + q) * T + threadIdx.x;
                const long long j0 = 4 * g - s;
                float4 v;
                switch (s) {
                case 0: IV4(3); break;
                case 1: IV4(2); break;
                case 2: IV4(1); break;
                default: IV4(0); break;
                }
                if (j0 >= 0 && j0 + 3 < n) {
                    st4<ST>(row + j0, v);
                } else {
                    if (j0 + 0 >= 0 && j0 + 0 < n) row[j0 + 0] = v.x;
                    if (j0 + 1 >= 0 && j0 + 1 < n) row[j0 + 1] = v.y;
                    if (j0 + 2 >= 0 && j0 + 2 < n) row[j0 + 2] = v.z;
                    if (j0 + 3 >= 0 && j0 + 3 < n) row[j0 + 3] = v.w;
                }
            }
        }
    }
}


// ---- round 2: aligned rows, Q slots x RP rows per thread, stores back to back ----
template <bool SO, bool FS>
__device__ __forceinline__ float iou2(float4 a, float aa, float4 b, float ab)
{
    if (SO)
        return 0.5f;
    float iw = fmaxf(__fsub_rn(fminf(a.z, b.z), fmaxf(a.x, b.x)), 0.0f);
    float ih = fmaxf(__fsub_rn(fminf(a.w, b.w), fmaxf(a.y, b.y)), 0.0f);
    float inter = __fmul_rn(iw, ih);
    float uni = __fsub_rn(__fadd_rn(aa, ab), inter);
    if (FS) { // fmax, MUFU.RCP, FMUL: no compare/select, no division fix-up
        float r;
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmaxf(uni, 1.17549435e-38f)));
        return __fmul_rn(inter, r);
    }
    return uni > 0.0f ? __fdividef(inter, uni) : 0.0f;
}

template <int T, int MB, int R, int RP, int Q, bool CONTIG, bool FS, bool SO>
__global__ void __launch_bounds__(T, MB)
    iouA(const float *__restrict__ a, int m, const float *__restrict__ b, int n, float *__restrict__ out)
{
    static_assert(R % RP == 0, "rows");
    float4 bx[Q][4];
    float ba[Q][4];
    long long g[Q];
    bool ok[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
        const long long base = (long long)blockIdx.x * T * Q;
        g[q] = CONTIG ? base + (long long)threadIdx.x * Q + q : base + (long long)q * T + threadIdx.x;
        ok[q] = 4 * g[q] < n; // n % 4 == 0: a slot is wholly in or out
#pragma unroll
        for (int k = 0; k < 4; k++) {
            bx[q][k] = ok[q] ? __ldg(reinterpret_cast<const float4 *>(b) + 4 * g[q] + k) : make_float4(0.f, 0.f, 0.f, 0.f);
            ba[q][k] = area_of(bx[q][k]);
        }
    }
    for (long long r0 = (long long)blockIdx.y * R; r0 < m; r0 += (long long)gridDim.y * R) {
#pragma unroll 1
        for (int r = 0; r < R; r += RP) {
            float4 v[RP][Q];
            float4 ai[RP];
            float aa[RP];
#pragma unroll
            for (int p = 0; p < RP; p++) {
                const long long i = min(r0 + r + p, (long long)m - 1);
                ai[p] = __ldg(reinterpret_cast<const float4 *>(a) + i);
                aa[p] = area_of(ai[p]);
            }
#pragma unroll
            for (int p = 0; p < RP; p++)
#pragma unroll
                for (int q = 0; q < Q; q++) {
                    v[p][q].x = iou2<SO, FS>(ai[p], aa[p], bx[q][0], ba[q][0]);
                    v[p][q].y = iou2<SO, FS>(ai[p], aa[p], bx[q][1], ba[q][1]);
                    v[p][q].z = iou2<SO, FS>(ai[p], aa[p], bx[q][2], ba[q][2]);
                    v[p][q].w = iou2<SO, FS>(ai[p], aa[p], bx[q][3], ba[q][3]);
                }
#pragma unroll
            for (int p = 0; p < RP; p++) {
                const long long i = r0 + r + p;
#pragma unroll
                for (int q = 0; q < Q; q++)
                    if (i < m && ok[q])
                        __stcs(reinterpret_cast<float4 *>(out + i * (long long)n) + g[q], v[p][q]);
            }
            if (r0 + r + RP >= m)
                break;
        }
    }
}

// ---- write-only kernels of the same bytes (the probe's) ----
template <bool STREAM> __global__ void write_strided(float4 *__restrict__ dst, size_t n4, float4 v)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        if (STREAM) {
            __stcs(dst + i, v);
            __stcs(dst + i + stride, v);
            __stcs(dst + i + 2 * stride, v);
            __stcs(dst + i + 3 * stride, v);
        } else {
            dst[i] = v;
            dst[i + stride] = v;
            dst[i + 2 * stride] = v;
            dst[i + 3 * stride] = v;
        }
    }
    for (; i < n4; i += stride)
        dst[i] = v;
}

// One block writes K * 256 consecutive float4 (no grid-stride loop).
template <int K> __global__ void __launch_bounds__(256) write_chunk(float4 *__restrict__ dst, size_t n4, float4 v)
{
    const size_t base = (size_t)blockIdx.x * (256 * K) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++)
        if (base + k * 256 < n4)
            __stcs(dst + base + k * 256, v);
}

// got vs want (the reference's output): bitwise differences, tolerance failures, max rel diff.
__global__ void compare(const float *got, const float *want, size_t n, unsigned long long *cnt, unsigned *maxrel_bits)
{
    unsigned long long diff = 0, bad = 0;
    float mr = 0.f;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        const float g = got[k], e = want[k];
        if (__float_as_uint(g) != __float_as_uint(e)) {
            diff++;
            const float rel = e == 0.f ? INFINITY : fabsf(g - e) / fabsf(e);
            if (!(rel <= 4e-6f))
                bad++;
            mr = fmaxf(mr, rel);
        }
    }
    if (diff) {
        atomicAdd(&cnt[0], diff);
        atomicAdd(&cnt[1], bad);
        atomicMax(maxrel_bits, __float_as_uint(mr)); // non-negative floats order as their bits
    }
}

} // namespace iv

using namespace iv;

// ---- host: boxes and the CPU reference ----
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
static double unit(uint64_t seed, uint64_t i, int k) { return (double)(mix(seed * 1000003ull + i * 8 + k) >> 40) / 16777216.0; }

// "mixed": centres in [-256, 256), sides in [1, 128); every 16th box degenerate (zero
// width, zero height or inverted), every 37th a copy of another set's box.
static void make_boxes(std::vector<float> &v, size_t count, uint64_t seed)
{
    v.resize(count * 4);
    for (size_t i = 0; i < count; i++) {
        double cx = (2 * unit(seed, i, 0) - 1) * 256, cy = (2 * unit(seed, i, 1) - 1) * 256;
        double w = 1 + 127 * unit(seed, i, 2), h = 1 + 127 * unit(seed, i, 3);
        float x1 = (float)(cx - w / 2), y1 = (float)(cy - h / 2), x2 = (float)(cx + w / 2), y2 = (float)(cy + h / 2);
        if (i % 37 == 5) { // shared with the other set: identical boxes, IoU 1
            uint64_t j = i / 37;
            cx = (2 * unit(99, j, 0) - 1) * 256;
            cy = (2 * unit(99, j, 1) - 1) * 256;
            x1 = (float)(cx - 20), y1 = (float)(cy - 10), x2 = (float)(cx + 20), y2 = (float)(cy + 10);
        }
        if (i % 16 == 7) {
            switch ((i / 16) % 3) {
            case 0: x2 = x1; break;
            case 1: y2 = y1; break;
            default: std::swap(x1, x2);
            }
        }
        v[4 * i] = x1, v[4 * i + 1] = y1, v[4 * i + 2] = x2, v[4 * i + 3] = y2;
    }
}

static float iou_cpu(const float *a, const float *b)
{
    volatile float aw = std::max(0.0f, a[2] - a[0]), ah = std::max(0.0f, a[3] - a[1]);
    volatile float bw = std::max(0.0f, b[2] - b[0]), bh = std::max(0.0f, b[3] - b[1]);
    volatile float aa = aw * ah, ab = bw * bh;
    volatile float iw = std::max(0.0f, std::min(a[2], b[2]) - std::max(a[0], b[0]));
    volatile float ih = std::max(0.0f, std::min(a[3], b[3]) - std::max(a[1], b[1]));
    volatile float inter = iw * ih;
    volatile float sum = aa + ab;
    volatile float uni = sum - inter;
    return uni > 0.0f ? inter / uni : 0.0f;
}

struct CpuCheck {
    size_t bad = 0;
    double maxrel = 0;
};

// out (m x n, row-major) against the CPU, lab tolerance; multithreaded over rows.
static CpuCheck cpu_check(const std::vector<float> &A, const std::vector<float> &B, const float *out, int m, int n)
{
    unsigned nt = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
    std::vector<CpuCheck> part(nt);
    std::vector<std::thread> th;
    for (unsigned t = 0; t < nt; t++)
        th.emplace_back([&, t] {
            CpuCheck c;
            for (int i = (int)t; i < m; i += (int)nt)
                for (int j = 0; j < n; j++) {
                    const float e = iou_cpu(&A[4 * (size_t)i], &B[4 * (size_t)j]);
                    const float g = out[(size_t)i * n + j];
                    double rel;
                    bool ok;
                    if (e == 0.f) {
                        ok = g == 0.f;
                        rel = ok ? 0 : INFINITY;
                    } else {
                        rel = fabs((double)g - e) / fabs((double)e);
                        ok = rel <= 4e-6;
                    }
                    c.bad += !ok;
                    if (rel > c.maxrel || rel != rel)
                        c.maxrel = rel != rel ? INFINITY : rel;
                }
            part[t] = c;
        });
    CpuCheck r;
    for (unsigned t = 0; t < nt; t++) {
        th[t].join();
        r.bad += part[t].bad;
        r.maxrel = std::max(r.maxrel, part[t].maxrel);
    }
    return r;
}

struct Variant {
    std::string name;
    bool store_only;
    int P; // blocks per SM (persistent), 0: one block per item
    void (*launch)(const float *, int, const float *, int, float *, int P, int sms);
};

template <int T, int MB, int R, int U, int S, int ST, bool SO>
static void launch_iouv(const float *a, int m, const float *b, int n, float *out, int P, int sms)
{
    if (m <= 0 || n <= 0)
        return;
    if ((((uintptr_t)a | (uintptr_t)b) & 15) != 0) { // the variants assume 16-byte boxes; else the reference
        box_iou(a, m, b, n, out, 0);
        return;
    }
    const long long slots = (long long)(n + 2) / 4 + 1;
    const int gx = (int)((slots + (long long)S * T - 1) / ((long long)S * T));
    const long long items = (long long)gx * (((long long)m + R - 1) / R);
    long long grid = items;
    if (P > 0 && (long long)P * sms < items)
        grid = (long long)P * sms;
    iouv<T, MB, R, U, S, ST, SO><<<(unsigned)grid, T>>>(a, m, b, n, out, gx, items);
}


template <int T, int MB, int R, int RP, int Q, bool CONTIG, bool FS, bool SO>
static void launch_iouA(const float *a, int m, const float *b, int n, float *out, int, int)
{
    if (m <= 0 || n <= 0)
        return;
    if ((((uintptr_t)a | (uintptr_t)b | (uintptr_t)out) & 15) != 0 || n % 4 != 0) { // rows not all aligned
        box_iou(a, m, b, n, out, 0);
        return;
    }
    const long long slots = n / 4;
    const unsigned gx = (unsigned)((slots + (long long)T * Q - 1) / ((long long)T * Q));
    const long long rb = ((long long)m + R - 1) / R;
    const unsigned gy = (unsigned)(rb < 65535 ? rb : 65535);
    iouA<T, MB, R, RP, Q, CONTIG, FS, SO><<<dim3(gx, gy), T>>>(a, m, b, n, out);
}

static void launch_ref(const float *a, int m, const float *b, int n, float *out, int, int)
{
    box_iou(a, m, b, n, out, 0);
}

static std::vector<Variant> variants()
{
    std::vector<Variant> v;
    v.push_back({"reference (box_iou())", false, 0, launch_ref});
    v.push_back({"A T128 MB8 R8 RP2 Q1 (= ref aligned)", false, 0, launch_iouA<128, 8, 8, 2, 1, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 8, 8, 2, 1, false, false, true>});
    v.push_back({"T128 MB8 R16 U2 S1 cs P0 (= ref general)", false, 0, launch_iouv<128, 8, 16, 2, 1, ST_CS, false>});
    v.push_back({"  same, store-only", true, 0, launch_iouv<128, 8, 16, 2, 1, ST_CS, true>});
    v.push_back({"T256 MB4 R16 U2 S1 cs P0 (round-1 ref)", false, 0, launch_iouv<256, 4, 16, 2, 1, ST_CS, false>});
    v.push_back({"  same, store-only", true, 0, launch_iouv<256, 4, 16, 2, 1, ST_CS, true>});
    // round 2: aligned rows; Q slots x RP rows per thread, all computed, then stored
    //                                                                 T  MB   R RP Q contig fs store-only
    v.push_back({"A T128 MB8 R16 RP1 Q1", false, 0, launch_iouA<128, 8, 16, 1, 1, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 8, 16, 1, 1, false, false, true>});
    v.push_back({"A T128 MB8 R16 RP2 Q1", false, 0, launch_iouA<128, 8, 16, 2, 1, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 8, 16, 2, 1, false, false, true>});
    v.push_back({"A T128 MB8 R16 RP4 Q1", false, 0, launch_iouA<128, 8, 16, 4, 1, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 8, 16, 4, 1, false, false, true>});
    v.push_back({"A T128 MB8 R16 RP1 Q2", false, 0, launch_iouA<128, 8, 16, 1, 2, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 8, 16, 1, 2, false, false, true>});
    v.push_back({"A T128 MB8 R16 RP1 Q2c", false, 0, launch_iouA<128, 8, 16, 1, 2, true, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 8, 16, 1, 2, true, false, true>});
    v.push_back({"A T128 MB6 R16 RP2 Q2", false, 0, launch_iouA<128, 6, 16, 2, 2, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 6, 16, 2, 2, false, false, true>});
    v.push_back({"A T128 MB4 R16 RP1 Q4", false, 0, launch_iouA<128, 4, 16, 1, 4, false, false, false>});
    v.push_back({"  store-only", true, 0, launch_iouA<128, 4, 16, 1, 4, false, false, true>});
    v.push_back({"A T128 MB4 R16 RP1 Q4c", false, 0, launch_iouA<128, 4, 16, 1, 4, true, false, false>});
    v.push_back({"A T256 MB4 R16 RP2 Q1", false, 0, launch_iouA<256, 4, 16, 2, 1, false, false, false>});
    v.push_back({"A T256 MB3 R16 RP2 Q2", false, 0, launch_iouA<256, 3, 16, 2, 2, false, false, false>});
    v.push_back({"A T128 MB8 R32 RP2 Q1", false, 0, launch_iouA<128, 8, 32, 2, 1, false, false, false>});
    // round 3: around the winner (R8 RP2)
    v.push_back({"A T128 MB8 R4 RP2 Q1", false, 0, launch_iouA<128, 8, 4, 2, 1, false, false, false>});
    v.push_back({"A T128 MB8 R8 RP1 Q1", false, 0, launch_iouA<128, 8, 8, 1, 1, false, false, false>});
    v.push_back({"A T128 MB8 R8 RP4 Q1", false, 0, launch_iouA<128, 8, 8, 4, 1, false, false, false>});
    v.push_back({"A T256 MB4 R8 RP2 Q1", false, 0, launch_iouA<256, 4, 8, 2, 1, false, false, false>});
    v.push_back({"A T64 MB12 R16 RP2 Q2", false, 0, launch_iouA<64, 12, 16, 2, 2, false, false, false>});
    // fewer instructions per IoU
    v.push_back({"A T128 MB8 R16 RP1 Q1 fs", false, 0, launch_iouA<128, 8, 16, 1, 1, false, true, false>});
    v.push_back({"A T128 MB8 R16 RP2 Q1 fs", false, 0, launch_iouA<128, 8, 16, 2, 1, false, true, false>});
    v.push_back({"A T128 MB6 R16 RP2 Q2 fs", false, 0, launch_iouA<128, 6, 16, 2, 2, false, true, false>});
    v.push_back({"A T128 MB8 R16 RP4 Q1 fs", false, 0, launch_iouA<128, 8, 16, 4, 1, false, true, false>});
    // store hints
    v.push_back({"T256 MB4 R16 U2 S1 wb P0", false, 0, launch_iouv<256, 4, 16, 2, 1, ST_WB, false>});
    v.push_back({"T256 MB4 R16 U2 S1 cg P0", false, 0, launch_iouv<256, 4, 16, 2, 1, ST_CG, false>});
    // rows per item, unroll
    v.push_back({"T256 MB4 R32 U2 S1 cs P0", false, 0, launch_iouv<256, 4, 32, 2, 1, ST_CS, false>});
    v.push_back({"T256 MB4 R64 U2 S1 cs P0", false, 0, launch_iouv<256, 4, 64, 2, 1, ST_CS, false>});
    v.push_back({"T256 MB4 R8 U2 S1 cs P0", false, 0, launch_iouv<256, 4, 8, 2, 1, ST_CS, false>});
    v.push_back({"T256 MB4 R16 U4 S1 cs P0", false, 0, launch_iouv<256, 4, 16, 4, 1, ST_CS, false>});
    v.push_back({"T256 MB4 R16 U1 S1 cs P0", false, 0, launch_iouv<256, 4, 16, 1, 1, ST_CS, false>});
    // occupancy / block size
    v.push_back({"T256 MB3 R16 U4 S1 cs P0", false, 0, launch_iouv<256, 3, 16, 4, 1, ST_CS, false>});
    v.push_back({"T512 MB2 R16 U2 S1 cs P0", false, 0, launch_iouv<512, 2, 16, 2, 1, ST_CS, false>});
    v.push_back({"T1024 MB1 R16 U2 S1 cs P0", false, 0, launch_iouv<1024, 1, 16, 2, 1, ST_CS, false>});
    v.push_back({"T128 MB8 R16 U2 S1 cs P0", false, 0, launch_iouv<128, 8, 16, 2, 1, ST_CS, false>});
    // two slots per thread (more boxes per thread, longer runs per block and row)
    v.push_back({"T256 MB2 R16 U2 S2 cs P0", false, 0, launch_iouv<256, 2, 16, 2, 2, ST_CS, false>});
    v.push_back({"  T256 MB2 R16 U2 S2, store-only", true, 0, launch_iouv<256, 2, 16, 2, 2, ST_CS, true>});
    // persistent: P blocks per SM walk the items in order
    for (int P : {4, 8}) {
        v.push_back({"T256 MB4 R16 U2 S1 cs P" + std::to_string(P), false, P, launch_iouv<256, 4, 16, 2, 1, ST_CS, false>});
        v.push_back({"T256 MB4 R8 U2 S1 cs P" + std::to_string(P), false, P, launch_iouv<256, 4, 8, 2, 1, ST_CS, false>});
        v.push_back({"T256 MB4 R4 U2 S1 cs P" + std::to_string(P), false, P, launch_iouv<256, 4, 4, 2, 1, ST_CS, false>});
    }
    v.push_back({"  T256 MB4 R16 U2 S1 P4, store-only", true, 4, launch_iouv<256, 4, 16, 2, 1, ST_CS, true>});
    v.push_back({"T256 MB4 R16 U2 S1 wb P4", false, 4, launch_iouv<256, 4, 16, 2, 1, ST_WB, false>});
    v.push_back({"T512 MB2 R8 U2 S1 cs P2", false, 2, launch_iouv<512, 2, 8, 2, 1, ST_CS, false>});
    return v;
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30;
    int sms = 0;
    BENCH_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    BENCH_CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs; median of %d runs, L2 flushed before each (bench_time)\n", prop.name, sms, runs);

    const int M = 4096, N = 50000;
    std::vector<float> A, B;
    const int M_BIG = 1100000; // > 65535 * 16 rows: both kernels loop over row groups
    make_boxes(A, M_BIG, 1);   // the first M boxes are the bench's (boxes depend on the index only)
    make_boxes(B, N, 2);
    float *da, *db, *dout, *dref;
    unsigned long long *cnt;
    unsigned *mr;
    const size_t out_elems = (size_t)M * N;
    BENCH_CK(cudaMalloc(&da, A.size() * 4));
    BENCH_CK(cudaMalloc(&db, B.size() * 4));
    BENCH_CK(cudaMalloc(&dout, out_elems * 4 + 64)); // + room for the unaligned-pointer cases
    static_assert((size_t)M_BIG * 4 + 8 <= (size_t)M * N, "big-m checks fit in dout");
    BENCH_CK(cudaMalloc(&dref, out_elems * 4));
    BENCH_CK(cudaMalloc(&cnt, 2 * sizeof *cnt));
    BENCH_CK(cudaMalloc(&mr, sizeof *mr));
    BENCH_CK(cudaMemcpy(da, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    BENCH_CK(cudaMemcpy(db, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    int wrong = 0;
    const std::vector<Variant> vars = variants();

    // ---- 1. odd shapes: every variant in full against the CPU ----
    {
        struct Odd { int m, n, off; };
        // the lab's cases (n % 4 != 0, tiny rows, m = 1, n = 1), unaligned out pointers, and
        // (the A variants' own path) n % 4 == 0 with m not a multiple of R or RP and n not
        // a multiple of a block's T * Q slots
        const Odd odd[] = {{65, 1027, 0}, {33, 1026, 0}, {7, 4097, 0}, {17, 3, 0},    {9, 2, 0},     {1, 1, 0},
                           {31, 33, 1},   {40, 1000, 2}, {300, 2049, 3}, {1000, 1, 0}, {1, 1000, 0},  {64, 100, 0},
                           {128, 1000, 0}, {500, 500, 0}, {100, 3000, 0}, {37, 2052, 0}, {3, 8, 0},     {1, 4, 0},
                           {129, 4100, 0}, {40, 1000, 1}, {4, 4, 1}, {M_BIG, 4, 0}, {M_BIG, 3, 0}};
        std::vector<float> h;
        for (auto &o : odd) {
            int nbad = 0;
            double worst = 0;
            for (auto &var : vars) {
                if (var.store_only)
                    continue;
                float *o_ptr = dout + o.off; // off floats: rows start at every misalignment
                const size_t ne = (size_t)o.m * o.n;
                BENCH_CK(cudaMemset(dout, 0xFF, (ne + 8) * 4));
                var.launch(da, o.m, db, o.n, o_ptr, var.P, sms);
                BENCH_CK(cudaGetLastError());
                h.resize(ne);
                BENCH_CK(cudaMemcpy(h.data(), o_ptr, ne * 4, cudaMemcpyDeviceToHost));
                CpuCheck c = cpu_check(A, B, h.data(), o.m, o.n);
                worst = std::max(worst, c.maxrel);
                if (c.bad) {
                    nbad++;
                    printf("odd %d x %d (+%d floats): %-34s %zu wrong (max rel %.2e)  WRONG WRONG WRONG\n", o.m, o.n,
                           o.off, var.name.c_str(), c.bad, c.maxrel);
                }
            }
            printf("odd %d x %d (+%d floats, reference: %s path): all IoU variants checked against the CPU, %d wrong, "
                   "max rel %.2e%s\n",
                   o.m, o.n, o.off, iou_rows_aligned(da, db, o.n, dout + o.off) ? "aligned" : "general", nbad, worst,
                   nbad ? "  WRONG" : "");
            wrong += nbad;
        }
    }

    // ---- 1b. the reference with box arrays that are not 16-byte aligned (general path,
    // scalar box loads), n % 4 == 0 included (it must not take the aligned path) ----
    {
        float *dau, *dbu;
        const int MA = 300, NB = 2052;
        BENCH_CK(cudaMalloc(&dau, (MA * 4 + 4) * 4));
        BENCH_CK(cudaMalloc(&dbu, (NB * 4 + 4) * 4));
        struct Un { int m, n, aoff, boff, off; };
        const Un un[] = {{300, 2052, 1, 0, 0}, {300, 2052, 0, 2, 0}, {37, 1027, 3, 1, 0}, {64, 100, 2, 3, 1}, {17, 3, 1, 1, 2}};
        std::vector<float> h;
        for (auto &u : un) {
            BENCH_CK(cudaMemcpy(dau + u.aoff, A.data(), (size_t)u.m * 16, cudaMemcpyHostToDevice));
            BENCH_CK(cudaMemcpy(dbu + u.boff, B.data(), (size_t)u.n * 16, cudaMemcpyHostToDevice));
            const size_t ne = (size_t)u.m * u.n;
            BENCH_CK(cudaMemset(dout, 0xFF, (ne + 8) * 4));
            box_iou(dau + u.aoff, u.m, dbu + u.boff, u.n, dout + u.off, 0);
            BENCH_CK(cudaGetLastError());
            h.resize(ne);
            BENCH_CK(cudaMemcpy(h.data(), dout + u.off, ne * 4, cudaMemcpyDeviceToHost));
            CpuCheck c = cpu_check(A, B, h.data(), u.m, u.n);
            printf("reference, boxes at a+%d b+%d floats, %d x %d (+%d floats, %s path): %zu wrong, max rel %.2e%s\n",
                   u.aoff, u.boff, u.m, u.n, u.off,
                   iou_rows_aligned(dau + u.aoff, dbu + u.boff, u.n, dout + u.off) ? "aligned" : "general", c.bad,
                   c.maxrel, c.bad ? "  WRONG WRONG WRONG" : "");
            wrong += c.bad != 0;
        }
        BENCH_CK(cudaFree(dau));
        BENCH_CK(cudaFree(dbu));
    }

    // ---- 2. the bench shape: reference in full against the CPU ----
    const double lab_bytes = (double)out_elems * 4 + (double)(M + N) * 16, wbytes = (double)out_elems * 4;
    {
        BENCH_CK(cudaMemset(dref, 0xFF, out_elems * 4));
        box_iou(da, M, db, N, dref, 0);
        BENCH_CK(cudaDeviceSynchronize());
        std::vector<float> h(out_elems);
        BENCH_CK(cudaMemcpy(h.data(), dref, out_elems * 4, cudaMemcpyDeviceToHost));
        CpuCheck c = cpu_check(A, B, h.data(), M, N);
        size_t ones = 0, zeros = 0;
        for (size_t k = 0; k < out_elems; k += 7)
            ones += h[k] == 1.f, zeros += h[k] == 0.f;
        printf("\nreference at %d x %d against the CPU (every element): %zu wrong, max rel %.2e  %s  "
               "(sample: %.1f%% zeros, %.3f%% ones)\n",
               M, N, c.bad, c.maxrel, c.bad ? "WRONG WRONG WRONG" : "ok", 700.0 * zeros / out_elems,
               700.0 * ones / out_elems);
        wrong += c.bad != 0;
    }

    // ---- 3. timing ----
    printf("\n## %d x %d: lab bytes = m*n*4 + (m+n)*16 = %.1f MB; ceilings write m*n*4 = %.1f MB\n", M, N,
           lab_bytes / 1e6, wbytes / 1e6);
    auto t_ms = bench_time([&] { BENCH_CK(cudaMemsetAsync(dout, 0, out_elems * 4, 0)); }, runs, 3);
    const double ceil_gbps = wbytes / (t_ms.median_ms * 1e-3) / 1e9;
    auto line = [&](const char *name, bench_timing t, double bytes, const char *note) {
        const double gbps = bytes / (t.median_ms * 1e-3) / 1e9;
        printf("%-38s %8.4f ms (min %.4f) %7.0f GB/s %6.1f%% of cudaMemset  %s\n", name, t.median_ms, t.min_ms, gbps,
               100.0 * gbps / ceil_gbps, note);
        fflush(stdout);
    };
    line("cudaMemset (ceiling)", t_ms, wbytes, "");
    const size_t n4 = out_elems / 4;
    const float4 c4 = make_float4(0.5f, 0.5f, 0.5f, 0.5f);
    line("write float4 grid-stride x4 cs 4/SM", bench_time([&] { write_strided<true><<<sms * 4, 256>>>((float4 *)dout, n4, c4); }, runs, 3), wbytes, "");
    line("write float4 grid-stride x4 cs 8/SM", bench_time([&] { write_strided<true><<<sms * 8, 256>>>((float4 *)dout, n4, c4); }, runs, 3), wbytes, "");
    line("write float4 grid-stride x4 wb 8/SM", bench_time([&] { write_strided<false><<<sms * 8, 256>>>((float4 *)dout, n4, c4); }, runs, 3), wbytes, "");
    line("write float4 chunk K=16 cs", bench_time([&] { write_chunk<16><<<(unsigned)((n4 + 4095) / 4096), 256>>>((float4 *)dout, n4, c4); }, runs, 3), wbytes, "");
    for (auto &var : vars) {
        char note[160];
        if (var.store_only) {
            snprintf(note, sizeof note, "(store-only: not an IoU, unchecked)");
        } else {
            BENCH_CK(cudaMemset(dout, 0xFF, out_elems * 4));
            var.launch(da, M, db, N, dout, var.P, sms);
            BENCH_CK(cudaGetLastError());
            BENCH_CK(cudaMemset(cnt, 0, 2 * sizeof *cnt));
            BENCH_CK(cudaMemset(mr, 0, sizeof *mr));
            compare<<<sms * 8, 256>>>(dout, dref, out_elems, cnt, mr);
            unsigned long long hc[2];
            unsigned hm;
            BENCH_CK(cudaMemcpy(hc, cnt, sizeof hc, cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(&hm, mr, sizeof hm, cudaMemcpyDeviceToHost));
            float fm;
            memcpy(&fm, &hm, 4);
            if (hc[0] == 0)
                snprintf(note, sizeof note, "bitwise = reference");
            else
                snprintf(note, sizeof note, "%llu differ from the reference, %llu beyond tolerance, max rel %.2e%s", hc[0],
                         hc[1], fm, hc[1] ? "  WRONG WRONG WRONG" : "");
            wrong += hc[1] != 0;
        }
        auto t = bench_time([&] { var.launch(da, M, db, N, dout, var.P, sms); }, runs, 3);
        BENCH_CK(cudaGetLastError());
        line(var.name.c_str(), t, var.store_only ? wbytes : lab_bytes, note);
    }
    auto t2 = bench_time([&] { BENCH_CK(cudaMemsetAsync(dout, 0, out_elems * 4, 0)); }, runs, 3);
    printf("%-38s %8.4f ms (drift check: the ceiling again at the end)\n", "cudaMemset (again)", t2.median_ms);
    printf("\n%s: %d wrong\n", wrong ? "WRONG" : "all correct", wrong);
    return wrong ? 1 : 0;
}
