// iou_variants.cu: one build of the iou reference (or of a variant file, -DIOU_SRC) at the
// bench shape of labs/iou/lab.yaml (4096 x 50000), next to cudaMemset of the same bytes (the
// write-only ceiling), in one process. bench/dev/variants/iou/run.sh builds it once per knob
// set (-DIOU_... as reference/iou.cu documents them) and prints one line per build:
//   TAG  ms  GB/s  % of cudaMemset  max error / tolerance (or "not checked")
// The check: 64 rows spread over the output, every column, against the checker's fp32 IoU
// (grader/labs/det_boxes.h) with lab.yaml's tolerance (rel 4e-6; an expected 0 exactly 0). Builds with
// IOU_NO_STORE, IOU_OUT_ROWS or IOU_STORE_ONLY are diagnostics (their output is wrong on purpose).
// Timed with bench/peers/cuda_timing.cuh (L2 flushed before every run, median of RUNS).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/peers/cuda_timing.cuh"
#include "grader/labs/det_boxes.h" // det_iou_f32: the checker's IoU
#ifndef IOU_SRC
#define IOU_SRC "reference/iou.cu"
#endif
#include IOU_SRC
#ifndef TAG
#define TAG "reference"
#endif

// "mixed" boxes: corners in [0, 1000), sides up to 100, some degenerate (as the lab's mix)
__global__ void fill_boxes(float4 *p, int k, unsigned seed)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < k; i += gridDim.x * blockDim.x) {
        const float x = 500.f + 500.f * bench_uniform(4 * (size_t)i, seed), y = 500.f + 500.f * bench_uniform(4 * (size_t)i + 1, seed);
        float w = 50.f + 50.f * bench_uniform(4 * (size_t)i + 2, seed), h = 50.f + 50.f * bench_uniform(4 * (size_t)i + 3, seed);
        if (i % 97 == 0)
            w = 0.f; // zero area
        p[i] = make_float4(x, y, x + w, y + h);
    }
}

// A 64-bit hash of every output bit: builds that must agree bit for bit print the same one.
__global__ void hash_words(const unsigned *p, size_t n, unsigned long long *h)
{
    unsigned long long acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc += (unsigned long long)p[i] * (2 * i + 1) ^ (i << 20);
    atomicAdd(h, acc);
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30, m = 4096, n = 50000;
    const size_t out_bytes = (size_t)m * n * 4;
    float *a, *b, *out;
    BENCH_CK(cudaMalloc(&a, (size_t)m * 16));
    BENCH_CK(cudaMalloc(&b, (size_t)n * 16));
    BENCH_CK(cudaMalloc(&out, out_bytes));
    fill_boxes<<<64, 256>>>((float4 *)a, m, 11u);
    fill_boxes<<<256, 256>>>((float4 *)b, n, 22u);
    BENCH_CK(cudaMemset(out, 0xff, out_bytes));
    box_iou(a, m, b, n, out, 0);
    BENCH_CK(cudaDeviceSynchronize());
    char check[160] = "not checked (diagnostic build)";
    if (!IOU_OUT_ROWS && !IOU_STORE_ONLY && !IOU_NO_STORE) {
        std::vector<float> ha((size_t)m * 4), hb((size_t)n * 4), row(n);
        BENCH_CK(cudaMemcpy(ha.data(), a, ha.size() * 4, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(hb.data(), b, hb.size() * 4, cudaMemcpyDeviceToHost));
        double worst = 0.0;
        for (int k = 0; k < 64; k++) {
            const int i = k == 63 ? m - 1 : k * (m / 63);
            BENCH_CK(cudaMemcpy(row.data(), out + (size_t)i * n, (size_t)n * 4, cudaMemcpyDeviceToHost));
            for (int j = 0; j < n; j++) {
                const float want = det_iou_f32(det_box{ha[4 * (size_t)i], ha[4 * (size_t)i + 1], ha[4 * (size_t)i + 2],
                                                       ha[4 * (size_t)i + 3]},
                                               det_box{hb[4 * (size_t)j], hb[4 * (size_t)j + 1], hb[4 * (size_t)j + 2],
                                                       hb[4 * (size_t)j + 3]});
                const double e = want == 0.f ? (row[j] == 0.f ? 0.0 : INFINITY) : std::fabs(row[j] - want) / (4e-6 * want);
                worst = std::max(worst, e == e ? e : INFINITY); // NaN counts as infinite
            }
        }
        unsigned long long *dh, hh = 0;
        BENCH_CK(cudaMalloc(&dh, 8));
        BENCH_CK(cudaMemset(dh, 0, 8));
        hash_words<<<1024, 256>>>((const unsigned *)out, (size_t)m * n, dh);
        BENCH_CK(cudaMemcpy(&hh, dh, 8, cudaMemcpyDeviceToHost));
        snprintf(check, sizeof check, "err/tol %.3g %s, hash %016llx", worst, worst <= 1.0 ? "ok" : "WRONG", hh);
    }
    { // edge boxes (aligned path: n % 4 == 0): tiny (denormal areas), huge, infinite and NaN
      // coordinates, zero and negative sizes; only the hash is printed, to compare builds
        const int em = 64, en = 256;
        std::vector<float> ea(4 * em), eb(4 * en);
        const float vals[] = {0.f, 1e-20f, 3e-20f, 1e-19f, 1e-30f, 2e-30f, 1.f, 2.f, 1e18f, 3e18f, 1e30f, INFINITY, -INFINITY, NAN, -1.f, 5e-39f};
        unsigned x = 12345;
        auto pick = [&] { x = x * 1664525u + 1013904223u; return vals[(x >> 20) % 16]; };
        for (auto *v : {&ea, &eb})
            for (size_t i = 0; i < v->size(); i += 4) {
                const float x1 = pick(), y1 = pick();
                (*v)[i] = x1, (*v)[i + 1] = y1, (*v)[i + 2] = x1 + pick(), (*v)[i + 3] = y1 + pick();
            }
        float *da, *db, *dout;
        unsigned long long *dh, hh = 0;
        BENCH_CK(cudaMalloc(&da, ea.size() * 4));
        BENCH_CK(cudaMalloc(&db, eb.size() * 4));
        BENCH_CK(cudaMalloc(&dout, (size_t)em * en * 4));
        BENCH_CK(cudaMalloc(&dh, 8));
        BENCH_CK(cudaMemcpy(da, ea.data(), ea.size() * 4, cudaMemcpyHostToDevice));
        BENCH_CK(cudaMemcpy(db, eb.data(), eb.size() * 4, cudaMemcpyHostToDevice));
        BENCH_CK(cudaMemset(dh, 0, 8));
        box_iou(da, em, db, en, dout, 0);
        hash_words<<<64, 256>>>((const unsigned *)dout, (size_t)em * en, dh);
        BENCH_CK(cudaMemcpy(&hh, dh, 8, cudaMemcpyDeviceToHost));
        size_t len = strlen(check);
        snprintf(check + len, sizeof check - len, ", edge hash %016llx", hh);
    }
    const double bytes = (double)out_bytes + (double)(m + n) * 16;
    const bench_timing t = bench_time([&] { box_iou(a, m, b, n, out, 0); }, runs);
    const bench_timing w = bench_time([&] { cudaMemsetAsync(out, 0, out_bytes, 0); }, runs);
    const double gbs = bytes / t.median_ms / 1e6, wgbs = (double)out_bytes / w.median_ms / 1e6;
    printf("%-28s %.4f ms  %5.0f GB/s  %5.1f%% of cudaMemset (%4.0f GB/s)  %s\n", TAG, t.median_ms, gbs, 100.0 * gbs / wgbs, wgbs,
           check);
    return 0;
}
