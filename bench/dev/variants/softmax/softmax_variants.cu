// softmax_variants.cu: the softmax reference next to candidate kernels, issue 17 (>= 97% of
// copy at 1024 / 4096 / 32768 columns). One process: cudaMemcpy D2D (the copy ceiling, 1 GiB
// as cudalab's probe, and 256 MiB as the lab's buffers), the reference's entry point, and
// each variant at every bench shape of labs/softmax/lab.yaml, every output checked against
// an fp64 CPU softmax with the lab's tolerance (|got - ref| <= 1e-4 |ref| + 1e-30, row sums
// within 1e-4 of 1). Timed with bench/peers/cuda_timing.cuh (L2 flushed before each run,
// median of 30). Bytes = rows * cols * 4 read + the same written (grader/labs/softmax.c).
//
// First, before any timing, the reference (and each variant at its width) runs lab.yaml's
// correctness cases plus a few more that reach each of its paths (rs with padding, cluster of
// 5 and 8), each printed with its error; WRONG is printed loudly and the exit status is 1.
//
// The reference at 32768 columns (since 2026-11-26): softmax_rs<512, 4, 12>, one block of
// 512 threads per row, 4 float4 a thread in registers and 12 in shared memory (cp.async),
// two blocks per SM. Variants at 32768:
//   block 1024x8  the old reference path: one 1024-thread block per row, the row in registers;
//   rs T R+S      softmax_rs in other shapes (T threads, R float4 in registers, S in smem);
//   cluster CxTxNV  the reference's cluster path (used for 32769..65536 columns on Hopper)
//                 forced onto 32768: C blocks per row, partial (max, sum) merged through DSMEM.
// At 1024 / 4096 the reference already reaches 99%; it is timed as the control.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/peers/cuda_timing.cuh"
#include "reference/softmax.cu"

// The runner exports this; the harness stands in for it.
extern "C" void *cudalab_scratch(size_t bytes)
{
    static void *p = nullptr;
    static size_t have = 0;
    if (bytes > have) {
        if (p)
            cudaFree(p);
        p = nullptr;
        have = 0;
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            return nullptr;
        have = bytes;
    }
    return p;
}

// ---- candidates: the reference's softmax_rs (registers + shared memory) in other shapes ----

template <int T, int R, int S> static cudaError_t v_rs(const float *in, float *out, int rows, int cols)
{
    const size_t smem = (size_t)S * T * sizeof(float4);
    if (cols / 4 > T * (R + S) || cols % 4)
        return cudaErrorInvalidValue;
    static bool set = false;
    if (!set) {
        cudaError_t e = cudaFuncSetAttribute(softmax_rs<T, R, S>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
        set = true;
    }
    softmax_rs<T, R, S><<<rows, T, smem>>>(in, out, cols);
    return cudaGetLastError();
}

// ---- the harness ----

struct variant {
    const char *name;
    int min_cols, max_cols; // shapes it applies to
    cudaError_t (*fn)(const float *, float *, int, int);
};

static cudaError_t v_ref(const float *in, float *out, int rows, int cols)
{
    softmax(in, out, rows, cols, 0);
    return cudaGetLastError();
}
template <int T, int NV, int C> static cudaError_t v_block(const float *in, float *out, int rows, int cols)
{
    if ((cols / 4 + T * NV - 1) / (T * NV) != C)
        return cudaErrorInvalidValue;
    return launch_block<T, NV>(in, out, rows, cols, C, 0);
}

static const variant variants[] = {
    {"reference", 0, 1 << 30, v_ref},
    {"block 1024x8 (old ref path)", 32768, 32768, v_block<1024, 8, 1>},
    {"rs 512 threads, 4 reg + 12 smem", 32768, 32768, v_rs<512, 4, 12>},
    {"rs 512 threads, 8 reg + 8 smem", 32768, 32768, v_rs<512, 8, 8>},
    {"rs 1024 threads, 4 reg + 4 smem", 32768, 32768, v_rs<1024, 4, 4>},
    {"rs 256 threads, 8 reg + 24 smem", 32768, 32768, v_rs<256, 8, 24>},
    {"cluster 2 x 512x8", 32768, 32768, v_block<512, 8, 2>},
    {"cluster 4 x 256x8", 32768, 32768, v_block<256, 8, 4>},
    {"block 128x8 (4096)", 4096, 4096, v_block<128, 8, 1>},
};

// fp64 softmax of each row on the CPU; then every variant's output is compared with it.
static void cpu_softmax(const float *x, double *ref, int rows, int cols)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double *o = ref + (size_t)r * cols, m = -INFINITY, s = 0;
        for (int j = 0; j < cols; j++)
            m = fmax(m, (double)xr[j]);
        for (int j = 0; j < cols; j++)
            s += o[j] = exp((double)xr[j] - m);
        for (int j = 0; j < cols; j++)
            o[j] /= s;
    }
}

// Largest |got - ref| / (1e-4 |ref| + 1e-30) (<= 1: within the lab's tolerance) and the
// largest |row sum - 1| / 1e-4.
static double check(const float *got, const double *ref, int rows, int cols, double *sum_err)
{
    double worst = 0, worst_sum = 0;
#pragma omp parallel for reduction(max : worst, worst_sum) schedule(dynamic, 16)
    for (int r = 0; r < rows; r++) {
        double s = 0;
        for (int j = 0; j < cols; j++) {
            const size_t i = (size_t)r * cols + j;
            const double e = fabs((double)got[i] - ref[i]) / (1e-4 * fabs(ref[i]) + 1e-30);
            if (!(e <= worst)) // NaN propagates as +inf
                worst = e == e ? e : INFINITY;
            s += got[i];
        }
        const double se = fabs(s - 1) / 1e-4;
        if (!(se <= worst_sum))
            worst_sum = se == se ? se : INFINITY;
    }
    *sum_err = worst_sum;
    return worst;
}

// Inputs: uniform in [-4, 4) (as bench/peers/softmax.py); every 5th row at +-1e4 with a
// quarter of its entries -inf (the running max moves; exp must be taken of x - max).
__global__ void fill(float *x, int rows, int cols, unsigned seed)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / cols;
        float v = 4.f * bench_uniform(i, seed);
        if (r % 5 == 2) {
            v *= 2500.f;
            if (bench_uniform(i, seed ^ 0x9e3779b9u) < -0.5f)
                v = -INFINITY;
        }
        x[i] = v;
    }
}

// ---- correctness on labs/softmax/lab.yaml's cases (and more that reach every path of the
// reference), before any timing ----

enum { NORMAL, UNIFORM, SIGNED_LOG };
struct scase {
    const char *name;
    int rows, cols, dist;
    double a, b; // NORMAL: mean, sd; UNIFORM: [a, b); SIGNED_LOG: +-2^[a, b)
    int neginf_every;
    double neginf_frac;
};
static const scase lab_cases[] = {
    {"1000 x 1", 1000, 1, NORMAL, 0, 1, 0, 0},
    {"1 x 7", 1, 7, NORMAL, 0, 1, 0, 0},
    {"999 x 7, -inf rows", 999, 7, NORMAL, 0, 1, 3, 0.5},
    {"513 x 32", 513, 32, NORMAL, 0, 1, 0, 0},
    {"333 x 33", 333, 33, NORMAL, 0, 1, 0, 0},
    {"1000 x 1000, +-1e4", 1000, 1000, UNIFORM, -1e4, 1e4, 0, 0},
    {"256 x 1000, below -1e4", 256, 1000, UNIFORM, -2e4, -1e4, 4, 0.5},
    {"257 x 1024, -inf rows", 257, 1024, NORMAL, 0, 1, 2, 0.5},
    {"512 x 1024, +-2^100", 512, 1024, SIGNED_LOG, -20, 100, 0, 0},
    {"129 x 1025", 129, 1025, NORMAL, 0, 1, 0, 0},
    {"100 x 4096, +-1e4, -inf rows", 100, 4096, UNIFORM, -1e4, 1e4, 4, 0.5},
    {"64 x 8192", 64, 8192, NORMAL, 0, 3, 0, 0},
    {"40 x 12000, -inf rows", 40, 12000, UNIFORM, -1e4, 1e4, 3, 0.5},
    {"31 x 32768, +-1e4, -inf rows", 31, 32768, UNIFORM, -1e4, 1e4, 5, 0.5},
    {"7 x 50000, rows almost all -inf", 7, 50000, NORMAL, 0, 1, 2, 0.9999},
    {"3 x 4099", 3, 4099, UNIFORM, -1e4, 1e4, 0, 0},
    {"2 x 2^20, +-1e4, -inf row", 2, 1 << 20, UNIFORM, -1e4, 1e4, 2, 0.5},
    {"1 x 3000017, +-1e4", 1, 3000017, UNIFORM, -1e4, 1e4, 0, 0},
    // extra: every width class of the reference, odd row counts at 32768
    {"+ 9 x 16384", 9, 16384, UNIFORM, -1e4, 1e4, 3, 0.5},
    {"+ 9 x 16388 (rs, partly padded)", 9, 16388, UNIFORM, -1e4, 1e4, 3, 0.5},
    {"+ 8 x 20000, -inf rows (rs)", 8, 20000, NORMAL, 0, 3, 2, 0.9},
    {"+ 33 x 32768 (rs)", 33, 32768, NORMAL, 0, 1, 4, 0.5},
    {"+ 5 x 32772 (cluster)", 5, 32772, UNIFORM, -1e4, 1e4, 2, 0.5},
    {"+ 5 x 65536 (cluster of 8)", 5, 65536, UNIFORM, -1e4, 1e4, 2, 0.5},
};

static int run_cases(void)
{
    int wrong = 0;
    unsigned long long st = 88172645463325252ull;
    auto rnd = [&]() { // xorshift64*, uniform in [0, 1)
        st ^= st >> 12, st ^= st << 25, st ^= st >> 27;
        return (double)((st * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
    };
    printf("## correctness on lab.yaml's cases (reference, and variants at their width)\n");
    for (const scase &c : lab_cases) {
        const size_t n = (size_t)c.rows * c.cols;
        std::vector<float> hx(n), hy(n);
        std::vector<double> ref(n);
        for (int r = 0; r < c.rows; r++) {
            const bool ni = c.neginf_every && r % c.neginf_every == 0;
            for (int j = 0; j < c.cols; j++) {
                double v;
                if (c.dist == UNIFORM)
                    v = c.a + (c.b - c.a) * rnd();
                else if (c.dist == SIGNED_LOG)
                    v = (rnd() < 0.5 ? -1 : 1) * exp2(c.a + (c.b - c.a) * rnd());
                else
                    v = c.a + c.b * sqrt(-2.0 * log(1.0 - rnd())) * cos(6.283185307179586 * rnd());
                if (ni && j != r % c.cols && rnd() < c.neginf_frac) // never all -inf
                    v = -INFINITY;
                hx[(size_t)r * c.cols + j] = (float)v;
            }
        }
        cpu_softmax(hx.data(), ref.data(), c.rows, c.cols);
        float *x, *y;
        BENCH_CK(cudaMalloc(&x, n * 4));
        BENCH_CK(cudaMalloc(&y, n * 4));
        BENCH_CK(cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice));
        for (const variant &v : variants) {
            if (c.cols < v.min_cols || c.cols > v.max_cols)
                continue;
            BENCH_CK(cudaMemset(y, 0xff, n * 4));
            cudaError_t e = v.fn(x, y, c.rows, c.cols);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                printf("  %-34s %-36s LAUNCH FAILED: %s  ***** WRONG *****\n", c.name, v.name, cudaGetErrorString(e));
                cudaGetLastError();
                wrong++;
                continue;
            }
            BENCH_CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
            double sum_err;
            const double err = check(hy.data(), ref.data(), c.rows, c.cols, &sum_err);
            const bool ok = err <= 1 && sum_err <= 1;
            wrong += !ok;
            printf("  %-34s %-36s err %.3g sum_err %.3g of tol  %s\n", c.name, v.name, err, sum_err,
                   ok ? "ok" : "***** WRONG *****");
        }
        cudaFree(x), cudaFree(y);
    }
    printf("%s\n\n", wrong ? "SOME CASES ARE WRONG" : "all cases correct");
    return wrong;
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30;
    (void)bench_emit; // the header's JSON printer: not used here
    cudaDeviceProp p;
    BENCH_CK(cudaGetDeviceProperties(&p, 0));
    printf("# softmax variants on %s (%d SMs, L2 %d MB), runs %d, median after an L2 flush\n", p.name,
           p.multiProcessorCount, p.l2CacheSize >> 20, runs);

    int wrong = run_cases();
    // Ceiling: cudaMemcpy D2D, as cudalab's probe (1 GiB), and at the lab's size (256 MiB).
    double copy_gbps = 0;
    {
        const size_t sizes[2] = {(size_t)1 << 30, (size_t)256 << 20};
        for (size_t bytes : sizes) {
            void *a, *b;
            BENCH_CK(cudaMalloc(&a, bytes));
            BENCH_CK(cudaMalloc(&b, bytes));
            BENCH_CK(cudaMemset(a, 1, bytes));
            bench_timing t = bench_time([&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0); }, runs);
            const double g = 2.0 * bytes / (t.median_ms * 1e-3) / 1e9;
            printf("ceiling cudaMemcpy D2D %4zu MiB: %.4f ms, %.0f GB/s%s\n", bytes >> 20, t.median_ms, g,
                   bytes == ((size_t)1 << 30) ? "  <- copy ceiling" : "");
            if (bytes == ((size_t)1 << 30))
                copy_gbps = g;
            BENCH_CK(cudaFree(a));
            BENCH_CK(cudaFree(b));
        }
    }

    const int shapes[3][2] = {{65536, 1024}, {16384, 4096}, {2048, 32768}};
    const size_t n_max = (size_t)1 << 26;
    float *x, *y;
    BENCH_CK(cudaMalloc(&x, n_max * 4));
    BENCH_CK(cudaMalloc(&y, n_max * 4));
    std::vector<float> hx(n_max), hy(n_max);
    std::vector<double> ref(n_max);
    for (auto &sh : shapes) {
        const int rows = sh[0], cols = sh[1];
        const size_t n = (size_t)rows * cols;
        fill<<<p.multiProcessorCount * 8, 256>>>(x, rows, cols, 1234u + cols);
        BENCH_CK(cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost));
        cpu_softmax(hx.data(), ref.data(), rows, cols);
        const double bytes = 2.0 * n * 4;
        printf("\n## %d x %d\n", rows, cols);
        for (const variant &v : variants) {
            if (cols < v.min_cols || cols > v.max_cols)
                continue;
            BENCH_CK(cudaMemset(y, 0xff, n * 4)); // NaN: a kernel that writes nothing fails
            cudaError_t e = v.fn(x, y, rows, cols);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess) {
                printf("%-36s LAUNCH FAILED: %s\n", v.name, cudaGetErrorString(e));
                cudaGetLastError();
                continue;
            }
            BENCH_CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
            double sum_err;
            const double err = check(hy.data(), ref.data(), rows, cols, &sum_err);
            const bool ok = err <= 1 && sum_err <= 1;
            wrong += !ok;
            bench_timing t = bench_time([&] { v.fn(x, y, rows, cols); }, runs);
            const double g = bytes / (t.median_ms * 1e-3) / 1e9;
            printf("%-36s %.4f ms (min %.4f max %.4f)  %6.0f GB/s  %5.1f%% of copy  err %.3g sum_err %.3g of tol  %s\n",
                   v.name, t.median_ms, t.min_ms, t.max_ms, g, 100.0 * g / copy_gbps, err, sum_err,
                   ok ? "ok" : "***** WRONG *****");
        }
    }
    printf("\n%s\n", wrong ? "SOME VARIANTS ARE WRONG" : "all variants correct");
    return wrong != 0;
}
