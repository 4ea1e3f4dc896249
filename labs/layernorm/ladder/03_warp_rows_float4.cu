// 03_warp_rows_float4.cu: layernorm ladder, step 3: a warp per short row, and 16-byte
// loads and stores.
//
// What changed: rows of up to 1024 columns get one warp each (8 rows per 256-thread
// block): the reductions are __shfl_xor_sync butterflies only - no shared memory, no
// __syncthreads. When cols % 4 == 0 and every pointer is 16-byte aligned, x, gamma, beta
// and y move as float4: thread t holds float4s t, t + GROUP, ... of the row. Otherwise
// the scalar layout of step 2 is used. Wider rows keep step 2's block-per-row shapes.
// Why it is faster: a 1024-wide row no longer waits at block barriers with 256 threads
// holding 4 values each; a warp holds 32 values per lane, all loads in flight at once.
// 16-byte accesses quarter the load/store instructions and put more bytes in flight per
// instruction issued.
// The reference (reference/layernorm.cu) also keeps gamma and beta in shared memory in a
// persistent grid, and spreads 64K-wide rows over a Hopper thread-block cluster, merging
// (count, mean, M2) with Chan's formula through distributed shared memory.
// In a profiler: the source view shows LDG.E.128 / STG.E.128; barrier stalls are gone on
// the 1024-wide case; DRAM throughput approaches the copy bandwidth.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

// Sums of (a, b) over a group of GROUP threads: a warp (shuffles only) or the whole block
// (one shared slot per warp; each call site passes its own slots).
template <int GROUP>
__device__ __forceinline__ float2 group_sum2(float a, float b, float2 *slots)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b += __shfl_xor_sync(0xffffffffu, b, o);
    }
    if (GROUP == 32)
        return make_float2(a, b);
    if ((threadIdx.x & 31) == 0)
        slots[threadIdx.x >> 5] = make_float2(a, b);
    __syncthreads();
    float2 t = slots[0];
#pragma unroll
    for (int w = 1; w < GROUP / 32; w++) {
        t.x += slots[w].x;
        t.y += slots[w].y;
    }
    return t;
}

// GROUP threads per row, NV vectors of VEC floats per thread (VEC = 4 needs cols % 4 == 0
// and 16-byte-aligned pointers). Vector q of the row is columns VEC q .. VEC q + VEC - 1.
template <int GROUP, int NV, int VEC, int THREADS>
__global__ void __launch_bounds__(THREADS)
    layernorm_rows(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                   float *__restrict__ y, float *__restrict__ mean_out, float *__restrict__ rstd_out, int rows, int cols,
                   float eps)
{
    constexpr int SLOTS = GROUP / 32 > 0 ? GROUP / 32 : 1;
    __shared__ float2 slots_mean[SLOTS], slots_var[SLOTS];
    const int t = threadIdx.x % GROUP;
    const int row_i = blockIdx.x * (THREADS / GROUP) + threadIdx.x / GROUP;
    if (row_i >= rows) // only the warp-per-row shape has spare groups, and it has no barriers
        return;
    const size_t row = row_i;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;

    float v[NV][VEC];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int c = (t + k * GROUP) * VEC;
        if (VEC == 4) {
            const float4 q = c < cols ? *reinterpret_cast<const float4 *>(xr + c) : make_float4(0.f, 0.f, 0.f, 0.f);
            v[k][0] = q.x;
            v[k][VEC > 1 ? 1 : 0] = q.y;
            v[k][VEC > 2 ? 2 : 0] = q.z;
            v[k][VEC > 3 ? 3 : 0] = q.w;
        } else {
            v[k][0] = c < cols ? xr[c] : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < VEC; j++)
            s += v[k][j];
    }
    const float mean0 = group_sum2<GROUP>(s, 0.0f, slots_mean).x / cols; // rounded: corrected below

    float sd = 0.0f, sd2 = 0.0f;
#pragma unroll
    for (int k = 0; k < NV; k++) {
        if ((t + k * GROUP) * VEC < cols) {
#pragma unroll
            for (int j = 0; j < VEC; j++) {
                const float d = v[k][j] - mean0;
                sd += d;
                sd2 += d * d;
            }
        }
    }
    const float2 tot = group_sum2<GROUP>(sd, sd2, slots_var);
    const float mean = mean0 + tot.x / cols; // minus mean0's own rounding error
    const float var = fmaxf((tot.y - tot.x * tot.x / cols) / cols, 0.0f);
    const float rstd = 1.0f / sqrtf(var + eps);

#pragma unroll
    for (int k = 0; k < NV; k++) {
        const int c = (t + k * GROUP) * VEC;
        if (c >= cols)
            continue;
        if (VEC == 4) {
            const float4 g = *reinterpret_cast<const float4 *>(gamma + c);
            const float4 b = *reinterpret_cast<const float4 *>(beta + c);
            float4 o;
            o.x = (v[k][0] - mean) * rstd * g.x + b.x;
            o.y = (v[k][VEC > 1 ? 1 : 0] - mean) * rstd * g.y + b.y;
            o.z = (v[k][VEC > 2 ? 2 : 0] - mean) * rstd * g.z + b.z;
            o.w = (v[k][VEC > 3 ? 3 : 0] - mean) * rstd * g.w + b.w;
            *reinterpret_cast<float4 *>(yr + c) = o;
        } else {
            yr[c] = (v[k][0] - mean) * rstd * gamma[c] + beta[c];
        }
    }
    if (t == 0) {
        mean_out[row] = mean;
        rstd_out[row] = rstd;
    }
}

// ---- rows wider than 32768: step 1's three passes ----
__global__ void __launch_bounds__(256)
    layernorm_three_pass(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
                         float *__restrict__ y, float *__restrict__ mean_out, float *__restrict__ rstd_out, int cols,
                         float eps)
{
    __shared__ float2 slots_mean[8], slots_var[8];
    const size_t row = blockIdx.x;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256)
        s += xr[c];
    const float mean0 = group_sum2<256>(s, 0.0f, slots_mean).x / cols; // rounded: corrected below
    float sd = 0.0f, sd2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) {
        const float d = xr[c] - mean0;
        sd += d;
        sd2 += d * d;
    }
    const float2 t = group_sum2<256>(sd, sd2, slots_var);
    const float mean = mean0 + t.x / cols; // minus mean0's own rounding error
    const float var = fmaxf((t.y - t.x * t.x / cols) / cols, 0.0f);
    const float rstd = 1.0f / sqrtf(var + eps);
    for (int c = threadIdx.x; c < cols; c += 256)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    if (threadIdx.x == 0) {
        mean_out[row] = mean;
        rstd_out[row] = rstd;
    }
}

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

template <int VEC>
static void launch_rows(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                        int rows, int cols, float eps, cudaStream_t stream)
{
    const int w = cols / VEC; // vectors per row (VEC = 4: cols % 4 == 0)
    if (cols <= 1024) // a warp per row, 8 rows per block
        layernorm_rows<32, 32 / VEC, VEC, 256>
            <<<(rows + 7) / 8, 256, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    else if (w <= 256 * 16 / VEC)
        layernorm_rows<256, 16 / VEC, VEC, 256><<<rows, 256, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    else if (w <= 256 * 32 / VEC)
        layernorm_rows<256, 32 / VEC, VEC, 256><<<rows, 256, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
    else
        layernorm_rows<1024, 32 / VEC, VEC, 1024>
            <<<rows, 1024, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
}

extern "C" void layernorm(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                          int rows, int cols, float eps, cudaStream_t stream)
{
    if (rows <= 0 || cols <= 0)
        return;
    if (cols > 32768)
        layernorm_three_pass<<<rows, 256, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
    else if (cols % 4 == 0 && aligned16(x) && aligned16(gamma) && aligned16(beta) && aligned16(y))
        launch_rows<4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    else
        launch_rows<1>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        fprintf(stderr, "layernorm: launch failed: %s\n", cudaGetErrorString(e));
}
