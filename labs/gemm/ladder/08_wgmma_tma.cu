/* 08_wgmma_tma.cu: gemm ladder, step 8: Hopper's wgmma fed by TMA (sm_90a).
 *
 * The Hopper way, in its plain form (one CTA per 128x256 tile, no clusters):
 * - TMA (cp.async.bulk.tensor): one thread asks the copy engine for a whole 2-D box of A
 *   (128 x 64) or B (64 x 64) described by a tensor map (built once on the host with
 *   cuTensorMapEncodeTiled, passed as a __grid_constant__ parameter). The engine writes
 *   it to shared memory in the 128-byte swizzled layout, fills out-of-range parts with
 *   zeros (so edge tiles need no code), and counts the bytes on an mbarrier.
 * - Warp specialisation: warpgroup 0 is the producer (one thread issues all copies into a
 *   4-stage ring, waiting on an "empty" mbarrier per stage); warpgroups 1 and 2 are
 *   consumers, each waiting on the stage's "full" mbarrier and then computing 64 rows.
 *   setmaxnreg gives the consumers 232 registers and the producer 40.
 * - wgmma.mma_async.m64n256k16: a warpgroup (4 warps) multiplies 64x16 of A by 16x256 of B
 *   straight from shared memory (no ldmatrix, no register copies of the operands), into
 *   128 fp32 accumulators per thread. It is asynchronous: commit_group / wait_group let
 *   one k-step's products run while the next is issued.
 * - Descriptors: A is K-major (rows of K); B is row-major K x N, i.e. N-major, described
 *   with the transposed layout (imm-trans-b = 1): 64-column chunks 8 KB apart (leading
 *   byte offset), 8-row groups 1 KB apart (stride byte offset).
 * The reference adds a persistent grid with a grouped tile order and 2-CTA clusters that
 * multicast B. Needs sm_90a (lab.yaml arch_suffix: a); elsewhere, and for N % 8 != 0
 * (TMA needs 16-byte aligned rows), a simple fallback kernel runs. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "cudalab_lab.h"

#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMM_SM90A 1
#else
#define GEMM_SM90A 0
#endif

/* 1 in the sm_90a device image, 0 in any other: does the wgmma kernel have a body here? */
__device__ int gemm_has_wgmma = GEMM_SM90A;

constexpr int BM = 128, BN = 256, BK = 64, STAGES = 4, CONSUMERS = 2, THREADS = 128 * (CONSUMERS + 1);
constexpr uint32_t A_BYTES = BM * BK * 2, B_CHUNK = 64 * BK * 2, B_BYTES = BK * BN * 2;
constexpr uint32_t STAGE_BYTES = A_BYTES + B_BYTES;
static_assert(B_BYTES == (BN / 64) * B_CHUNK, "B arrives as BN / 64 boxes of 64 columns");
constexpr size_t SMEM_BYTES = (size_t)STAGES * STAGE_BYTES + 1024 + 2 * STAGES * 8;

#if GEMM_SM90A
__device__ __forceinline__ uint32_t smem_u32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
/* Arrive once and announce `bytes` of TMA traffic this phase must still receive. */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint32_t bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
/* Wait until the phase with this parity has completed. */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    uint32_t a = smem_u32(bar);
#ifdef GEMM_WATCHDOG /* development builds: trap instead of hanging on a pipeline bug */
    long long spins = 0;
    while (!mbar_try_wait(a, parity))
        if (++spins > (1ll << 31)) __trap();
#else
    while (!mbar_try_wait(a, parity)) {
    }
#endif
}
__device__ __forceinline__ void mbar_arrive_local(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}

/* TMA: a 2-D box at coordinates (c0 = inner, c1 = outer) into shared memory; completion
 * is counted in bytes on `bar`. */
__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_u32(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
                 : "memory");
}
template <uint32_t N> __device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <uint32_t N> __device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* wgmma shared-memory matrix descriptor, 128-byte swizzle (layout type 1). Addresses and
 * offsets are in bytes; the descriptor keeps bits 4..17 of each. */
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo & 0x3FFFF) >> 4) << 16) |
           ((uint64_t)((sbo & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Keeps the compiler from moving accumulator reads/writes across the async wgmma. */
__device__ __forceinline__ void fence_acc(float (&d)[128])
{
#pragma unroll
    for (int i = 0; i < 128; i++) asm volatile("" : "+f"(d[i])::"memory");
}

/* D(64x256, fp32) += A(64x16, smem, K-major) * B(16x256, smem, N-major: imm-trans-b = 1).
 * scale_d = 0 makes this D = A*B (the first k-step of a tile). */
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int scale_d)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

#endif

__global__ void __launch_bounds__(THREADS, 1)
    gemm_wgmma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
               __half *__restrict__ C, int M, int N, int K)
{
#if GEMM_SM90A
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = smem_raw + ((1024 - (smem_u32(smem_raw) & 1023)) & 1023); /* swizzle atoms: 1 KB aligned */
    uint64_t *full = reinterpret_cast<uint64_t *>(smem + STAGES * STAGE_BYTES), *empty = full + STAGES;
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN, k_iters = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], CONSUMERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); /* visible to the copy engine */
    }
    __syncthreads();

    if (wg == 0) { /* producer */
        setmaxnreg_dec<40>();
        if (t == 0) {
            for (int k = 0; k < k_iters; k++) {
                int s = k % STAGES;
                mbar_wait(&empty[s], ((k / STAGES) & 1) ^ 1); /* first pass: free already */
                uint8_t *sa = smem + s * STAGE_BYTES, *sb = sa + A_BYTES;
                mbar_arrive_expect_tx(&full[s], STAGE_BYTES);
                tma_load_2d(sa, &tmA, &full[s], k * BK, m0);
                for (int j = 0; j < BN / 64; j++) tma_load_2d(sb + j * B_CHUNK, &tmB, &full[s], n0 + j * 64, k * BK);
            }
        }
    } else { /* consumers */
        setmaxnreg_inc<232>();
        const int c = wg - 1, warp = t / 32, lane = t % 32;
        float d[128];
#pragma unroll
        for (int i = 0; i < 128; i++) d[i] = 0.0f;
        for (int k = 0; k < k_iters; k++) {
            int s = k % STAGES;
            mbar_wait(&full[s], (k / STAGES) & 1);
            const uint32_t a0 = smem_u32(smem + s * STAGE_BYTES) + c * 64 * 128;
            const uint32_t b0 = smem_u32(smem + s * STAGE_BYTES + A_BYTES);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; kk++)
                wgmma_m64n256k16(d, make_desc(a0 + kk * 32, 16, 1024), make_desc(b0 + kk * 2048, B_CHUNK, 1024), 1);
            wgmma_commit();
            wgmma_wait<1>(); /* k-1 is done: give its stage back */
            if (k > 0 && t == 0) mbar_arrive_local(&empty[(k - 1) % STAGES]);
        }
        wgmma_wait<0>();
        fence_acc(d);
        const int row = m0 + c * 64 + warp * 16 + (lane >> 2), col0 = n0 + (lane & 3) * 2;
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            const int col = col0 + j * 8;
            if (col >= N) continue;
            if (row < M)
                *reinterpret_cast<__half2 *>(C + (size_t)row * N + col) = __floats2half2_rn(d[4 * j], d[4 * j + 1]);
            if (row + 8 < M)
                *reinterpret_cast<__half2 *>(C + (size_t)(row + 8) * N + col) =
                    __floats2half2_rn(d[4 * j + 2], d[4 * j + 3]);
        }
    }
#endif
}

__global__ void gemm_fallback(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C,
                              int M, int N, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = __float2half_rn(acc);
}

static PFN_cuTensorMapEncodeTiled_v12000 g_encode;
static int g_ready, g_wgmma;

static void probe_checks(cudaStream_t stream)
{
    int dev = 0, major = 0, has = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess || major != 9)
        return;
    if (cudaMemcpyFromSymbolAsync(&has, gemm_has_wgmma, sizeof has, 0, cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
        cudaStreamSynchronize(stream) != cudaSuccess || !has)
        return;
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !fn)
        return;
    g_encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    g_wgmma = cudaFuncSetAttribute(gemm_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_BYTES) ==
              cudaSuccess;
}

/* Once per process: is this a Hopper GPU running the sm_90a image, and can we encode
 * tensor maps (driver entry point through the runtime: no -lcuda needed)? */
static void probe(cudaStream_t stream)
{
    g_ready = 1;
    probe_checks(stream);
    (void)cudaGetLastError(); /* leave no error of the probe behind (e.g. on other GPUs) */
}

/* Row-major rows x cols fp16 matrix, boxes of box_rows x 64 (64 halves = the 128-byte swizzle span). */
static bool make_map(CUtensorMap *map, const void *ptr, int rows, int cols, int box_rows)
{
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)cols * 2};
    cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, estrides[2] = {1, 1};
    return g_encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<void *>(ptr), dims, strides, box, estrides,
                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M <= 0 || N <= 0) return;
    if (!g_ready) probe(stream);
    bool aligned = (((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) & 15) == 0;
    CUtensorMap ta, tb;
    if (g_wgmma && aligned && N % 8 == 0 && K > 0 && make_map(&ta, A, M, K, BM) && make_map(&tb, B, K, N, BK)) {
        dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
        gemm_wgmma<<<grid, THREADS, SMEM_BYTES, stream>>>(ta, tb, C, M, N, K);
        return;
    }
    dim3 block(32, 8), grid((N + 31) / 32, (M + 7) / 8);
    gemm_fallback<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
