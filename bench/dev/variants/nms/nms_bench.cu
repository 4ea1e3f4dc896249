// nms_bench.cu: the nms reference next to its candidate builds (nms_var.cu: sort, mask, scan), issue 17.
//
// Inputs are the checker's (grader/labs/nms.c): the same generators, det_clean (no IoU
// within 1e-5 * t of t) and the same CPU greedy NMS (det_nms_cpu), so every build's keep
// list is compared exactly, order included, on a set of the lab's test cases and on the
// four input sets of each bench size before it is timed; a mismatch prints WRONG.
// Timing: bench/peers/cuda_timing.cuh (L2 flushed, GPU busy 150 us before each run,
// events), the builds alternating run by run over the four input sets, median of RUNS.
// The nms lab's ceiling is the reference itself: each build is printed as a fraction of
// the reference's time in the same run. Phases of the reference pipeline are timed by
// difference (stop after sort, gather, mask); the scan's cycle counters (resolver work,
// bulk work, whole kernel) come from one extra run with diagnostics on.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_timing.cuh"
#include "grader/gen.h"
#include "det_boxes.h"

extern "C" {
typedef void (*nms_fn)(const float *, const float *, int, float, int *, int *, cudaStream_t);
void nms(const float *, const float *, int, float, int *, int *, cudaStream_t);
#define DECL(v)                                                                                  \
    void v(const float *, const float *, int, float, int *, int *, cudaStream_t);               \
    void v##_upto(int);                                                                          \
    void v##_set_diag(int);                                                                      \
    void v##_diag(unsigned long long out[4]);
DECL(nms_l1s)
DECL(nms_s1)
DECL(nms_m1)
DECL(nms_sm)

// the runner's scratch allocator: cached, grown on demand
void *cudalab_scratch(size_t bytes)
{
    static void *p = nullptr;
    static size_t cap = 0;
    if (bytes > cap) {
        if (p)
            cudaFree(p);
        p = nullptr;
        if (cudaMalloc(&p, bytes) != cudaSuccess) {
            cap = 0;
            return nullptr;
        }
        cap = bytes;
    }
    return p;
}
}

struct variant {
    const char *name, *what;
    nms_fn fn;
    void (*upto)(int);
    void (*set_diag)(int);
    void (*diag)(unsigned long long *);
};

static variant variants[] = {
    {"reference", "reference/nms.cu as it is (since round int2, 2026-11-26: sm = one-block sort + cheap mask loop + l1s scan)", nms, nullptr, nullptr, nullptr},
    {"l1s", "the reference before round int2 (device sort, range-tested mask loop, split scan loops)", nms_l1s,
     nms_l1s_upto, nms_l1s_set_diag, nms_l1s_diag},
    {"s1", "l1s, n <= 16384: one-block cub::BlockRadixSort + gather instead of iota + CUB device sort + gather",
     nms_s1, nms_s1_upto, nms_s1_set_diag, nms_s1_diag},
    {"m1", "l1s, IoU mask: 4-compare reject, no per-column range tests in the loop", nms_m1, nms_m1_upto,
     nms_m1_set_diag, nms_m1_diag},
    {"sm", "s1 + m1 (what the reference now is: its line should time the same)", nms_sm, nms_sm_upto, nms_sm_set_diag, nms_sm_diag},
};
static const int NV = sizeof variants / sizeof variants[0];

// ---- the checker's input generation (grader/labs/nms.c), on the host ----
struct gen_case {
    const char *name;
    int n;
    const char *dist, *scores;
    float t;
    int cluster;
};

static int irand(uint64_t seed, uint64_t i, uint32_t k, int lo, int hi)
{
    return lo + (int)(cl_rand64(seed, i, k) % (uint64_t)(hi - lo + 1));
}
static int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
static det_box mk(int x1, int y1, int x2, int y2) { return det_box{(float)x1, (float)y1, (float)x2, (float)y2}; }

static void gen(const gen_case &c, uint64_t seed, std::vector<det_box> &b, std::vector<float> &s)
{
    const int n = c.n, canvas = 2048, size = 96, cluster = c.cluster;
    b.resize(n);
    s.resize(n);
    if (!strcmp(c.dist, "random")) {
        for (int i = 0; i < n; i++) {
            int w = irand(seed, i, 0, 4, size), h = irand(seed, i, 1, 4, size);
            int x1 = irand(seed, i, 2, 0, canvas - 1 - w), y1 = irand(seed, i, 3, 0, canvas - 1 - h);
            b[i] = mk(x1, y1, x1 + w, y1 + h);
        }
    } else if (!strcmp(c.dist, "identical")) {
        for (int i = 0; i < n; i++)
            b[i] = mk(100, 120, 300, 250);
    } else if (!strcmp(c.dist, "disjoint")) {
        int side = (int)ceil(sqrt((double)n)), cell = canvas / side;
        std::vector<int> perm(n);
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(cl_rand64(seed, i, 5) % (uint64_t)(i + 1));
            std::swap(perm[i], perm[j]);
        }
        for (int i = 0; i < n; i++) {
            int x1 = (perm[i] % side) * cell, y1 = (perm[i] / side) * cell, x2 = x1 + cell, y2 = y1 + cell;
            if (cl_rand64(seed, i, 6) & 1) {
                x1 += 1;
                y2 -= 1;
            }
            b[i] = mk(x1, y1, x2, y2);
        }
    } else { // clusters, degenerate
        int objects = n / cluster > 0 ? n / cluster : 1;
        for (int i = 0; i < n; i++) {
            int k = (int)(cl_rand64(seed, i, 0) % (uint64_t)objects);
            uint64_t os = seed ^ 0x5bd1e995ull;
            int w = irand(os, k, 0, 8, size), h = irand(os, k, 1, 8, size);
            int cx = irand(os, k, 2, w / 2, canvas - w / 2), cy = irand(os, k, 3, h / 2, canvas - h / 2);
            int jx = w * 15 / 100 + 1, jy = h * 15 / 100 + 1;
            int x1 = cx - w / 2 + irand(seed, i, 1, -jx, jx), y1 = cy - h / 2 + irand(seed, i, 2, -jy, jy);
            int x2 = cx + w / 2 + irand(seed, i, 3, -jx, jx), y2 = cy + h / 2 + irand(seed, i, 4, -jy, jy);
            x1 = clampi(x1, 0, canvas - 2);
            y1 = clampi(y1, 0, canvas - 2);
            x2 = clampi(x2, x1 + 1, canvas - 1);
            y2 = clampi(y2, y1 + 1, canvas - 1);
            b[i] = mk(x1, y1, x2, y2);
        }
        if (!strcmp(c.dist, "degenerate"))
            for (int i = 0; i < n; i++) {
                det_box &q = b[i];
                switch (cl_rand64(seed, i, 7) % 8) {
                case 0: q.x2 = q.x1; break;
                case 1: q.y2 = q.y1; break;
                case 2: std::swap(q.x1, q.x2); std::swap(q.y1, q.y2); break;
                case 3: q.x2 = q.x1 - 1; break;
                default: break;
                }
            }
    }
    uint64_t ss = seed ^ 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < n; i++) {
        double u = cl_unit24(cl_rand64(ss, i, 8));
        switch (c.scores[0]) {
        case 't': s[i] = (float)(cl_rand64(ss, i, 9) % 4) * 0.25f; break;
        case 'e': s[i] = 0.5f; break;
        case 's': s[i] = (float)(2.0 * u - 1.0); break;
        default: s[i] = (float)u; break;
        }
    }
}

// one input set on the device with its expected keep list
struct input {
    int n;
    float t;
    float *d_boxes = nullptr, *d_scores = nullptr;
    std::vector<int> expect;
};

static input make_input(const gen_case &c, uint64_t seed)
{
    input in;
    in.n = c.n;
    in.t = c.t;
    std::vector<det_box> b;
    std::vector<float> s;
    gen(c, seed, b, s);
    int un = c.n > 0 ? c.n : 1;
    std::vector<int> start((size_t)DET_GRID_MAX * DET_GRID_MAX + 1), items(un), order(un), rank(un), sup(un),
        keep(un);
    std::vector<det_scored> tmp(un);
    if (c.n > 0 && det_clean(b.data(), c.n, c.t, 1e-5, 2048, start.data(), items.data()) < 0) {
        fprintf(stderr, "det_clean failed for %s\n", c.name);
        exit(1);
    }
    int k = 0;
    if (c.n > 0) {
        det_rank(s.data(), c.n, tmp.data(), order.data(), rank.data());
        k = det_nms_cpu(b.data(), c.n, c.t, order.data(), rank.data(), sup.data(), keep.data(), start.data(),
                        items.data());
    }
    in.expect.assign(keep.begin(), keep.begin() + k);
    BENCH_CK(cudaMalloc(&in.d_boxes, (size_t)un * 16));
    BENCH_CK(cudaMalloc(&in.d_scores, (size_t)un * 4));
    if (c.n > 0) {
        BENCH_CK(cudaMemcpy(in.d_boxes, b.data(), (size_t)c.n * 16, cudaMemcpyHostToDevice));
        BENCH_CK(cudaMemcpy(in.d_scores, s.data(), (size_t)c.n * 4, cudaMemcpyHostToDevice));
    }
    return in;
}

static int *d_keep, *d_num;
static int failures = 0;

// runs fn on in, compares with the CPU; returns 0 when exact
static int check(const variant &v, const input &in, const char *what)
{
    BENCH_CK(cudaMemset(d_keep, 0xff, (size_t)(in.n > 0 ? in.n : 1) * 4));
    BENCH_CK(cudaMemset(d_num, 0xff, 4));
    v.fn(in.d_boxes, in.d_scores, in.n, in.t, d_keep, d_num, 0);
    BENCH_CK(cudaDeviceSynchronize());
    int k = -1;
    BENCH_CK(cudaMemcpy(&k, d_num, 4, cudaMemcpyDeviceToHost));
    std::vector<int> got(k > 0 ? k : 0);
    if (k > 0 && k <= in.n)
        BENCH_CK(cudaMemcpy(got.data(), d_keep, (size_t)k * 4, cudaMemcpyDeviceToHost));
    int first = -1;
    if (k != (int)in.expect.size())
        first = 0;
    for (int i = 0; first < 0 && i < k; i++)
        if (got[i] != in.expect[i])
            first = i;
    if (first >= 0) {
        printf("WRONG  %-10s %-44s kept %d, expected %d, first difference at keep[%d]\n", v.name, what, k,
               (int)in.expect.size(), first);
        failures++;
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 30;
    cudaDeviceProp prop;
    BENCH_CK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    BENCH_CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("# nms variants on %s (%d SMs), runs %d; clock rate attribute %d MHz\n", prop.name,
           prop.multiProcessorCount, runs, clock_khz / 1000);
    BENCH_CK(cudaMalloc(&d_keep, 50000 * 4 * 2));
    BENCH_CK(cudaMalloc(&d_num, 4));

    // ---- correctness on the lab's test shapes ----
    const gen_case tests[] = {
        {"n = 0", 0, "random", "uniform", 0.5f, 16},
        {"n = 1", 1, "random", "uniform", 0.5f, 16},
        {"n = 2, identical boxes, equal scores", 2, "identical", "equal", 0.5f, 16},
        {"chunk edge n = 64", 64, "clusters", "ties", 0.3f, 8},
        {"disjoint, t = 0.5", 3000, "disjoint", "uniform", 0.5f, 16},
        {"all scores equal", 4000, "clusters", "equal", 0.6f, 16},
        {"block sort edge n = 4096 (IPT 4)", 4096, "clusters", "ties", 0.5f, 16},
        {"block sort edge n = 8193 (IPT 10)", 8193, "degenerate", "signed", 0.5f, 16},
        {"block sort edge n = 10240 (IPT 10)", 10240, "clusters", "equal", 0.5f, 16},
        {"block sort edge n = 10241 (IPT 16), t = 0", 10241, "clusters", "signed", 0.0f, 16},
        {"block sort edge n = 16384 (IPT 16)", 16384, "clusters", "ties", 0.5f, 16},
        {"device sort n = 16385", 16385, "clusters", "uniform", 0.5f, 16},
        {"all identical, equal scores", 1000, "identical", "equal", 0.5f, 16},
        {"all identical, t = 1.0", 1000, "identical", "ties", 1.0f, 16},
        {"disjoint and touching, t = 0.0", 5000, "disjoint", "ties", 0.0f, 16},
        {"clusters, t = 0.0", 3000, "clusters", "uniform", 0.0f, 16},
        {"clusters, t = 1.0", 3000, "clusters", "uniform", 1.0f, 16},
        {"many equal scores (4 levels)", 10000, "clusters", "ties", 0.5f, 16},
        {"chunk edge n = 63", 63, "clusters", "ties", 0.3f, 8},
        {"chunk edge n = 65", 65, "clusters", "ties", 0.3f, 8},
        {"chunk edges n = 129", 129, "clusters", "uniform", 0.4f, 4},
        {"random boxes, t = 0.7", 4097, "random", "uniform", 0.7f, 16},
        {"negative scores", 2000, "clusters", "signed", 0.45f, 16},
        {"zero-area and inverted boxes", 2000, "degenerate", "uniform", 0.3f, 16},
        {"dense clusters", 20000, "clusters", "uniform", 0.5f, 64},
        {"largest: 50000 boxes", 50000, "clusters", "uniform", 0.5f, 16},
        {"70000 boxes (bulk rows past one word a thread)", 70000, "clusters", "uniform", 0.5f, 16},
    };
    for (const gen_case &c : tests) {
        input in = make_input(c, 12345);
        int bad = 0;
        for (int v = 0; v < NV; v++)
            bad += check(variants[v], in, c.name);
        printf("test   %-48s n %6d kept %6zu: %s\n", c.name, c.n, in.expect.size(),
               bad ? "SOME BUILDS WRONG" : "all builds exact");
        cudaFree(in.d_boxes);
        cudaFree(in.d_scores);
    }

    // ---- bench sizes ----
    for (int n : {10000, 50000}) {
        gen_case c = {"bench", n, "clusters", "uniform", 0.5f, 16};
        std::vector<input> sets;
        for (int k = 0; k < 4; k++)
            sets.push_back(make_input(c, 1000 + k));
        size_t kept = 0;
        for (auto &s : sets)
            kept += s.expect.size();
        char shape[64];
        snprintf(shape, sizeof shape, "%d boxes", n);
        for (int v = 0; v < NV; v++)
            for (auto &s : sets)
                check(variants[v], s, shape);
        // alternate builds run by run: each round times every build once, on the next input set
        std::vector<std::vector<float>> t(NV);
        int set = 0;
        for (int v = 0; v < NV; v++) // warm-up (module load, CUB's first call)
            bench_time([&] { variants[v].fn(sets[0].d_boxes, sets[0].d_scores, n, 0.5f, d_keep, d_num, 0); }, 1, 2);
        for (int r = 0; r < runs; r++) {
            set = (set + 1) % 4;
            for (int v = 0; v < NV; v++) {
                const input &s = sets[set];
                bench_timing one = bench_time([&] { variants[v].fn(s.d_boxes, s.d_scores, n, 0.5f, d_keep, d_num, 0); }, 1, 0);
                t[v].push_back((float)one.median_ms);
            }
        }
        double ref_ms = 0;
        for (int v = 0; v < NV; v++) {
            std::vector<float> x = t[v];
            std::sort(x.begin(), x.end());
            bench_timing bt = {x[x.size() / 2], x.front(), x.back()};
            if (v == 0)
                ref_ms = bt.median_ms;
            for (auto &s : sets) // the last answers are still right
                check(variants[v], s, shape);
            char extra[512];
            snprintf(extra, sizeof extra,
                     ", \"items\": %d, \"boxes_per_s\": %.4g, \"kept_mean\": %.1f, \"of_reference\": %.4f, \"what\": \"%s\"",
                     n, n / (bt.median_ms * 1e-3), kept / 4.0, ref_ms / bt.median_ms, variants[v].what);
            std::string peer = std::string("cudalab ") + variants[v].name;
            bench_emit("nms", shape, peer.c_str(), bt, 0, 0, extra);
        }
        // phases, by difference (s1 / sm: phase 1 is the one-block sort with the gather, gather 0)
        for (int v = 1; v < NV; v++) {
            double ph[5] = {0, 0, 0, 0, 0};
            for (int k = 1; k <= 4; k++) {
                variants[v].upto(k);
                int q = 0;
                ph[k] = bench_time([&] {
                            q = (q + 1) % 4;
                            variants[v].fn(sets[q].d_boxes, sets[q].d_scores, n, 0.5f, d_keep, d_num, 0);
                        }, runs, 2).median_ms;
            }
            variants[v].upto(4);
            printf("phases %-10s %6d boxes: sort+iota %.4f ms, gather %.4f, mask %.4f, scan %.4f, total %.4f ms\n",
                   variants[v].name, n, ph[1], ph[2] - ph[1], ph[3] - ph[2], ph[4] - ph[3], ph[4]);
        }
        for (int v = 1; v < NV; v++) {
            unsigned long long d[4];
            variants[v].set_diag(1);
            check(variants[v], sets[0], shape);
            variants[v].diag(d);
            variants[v].set_diag(0);
            const double mhz = clock_khz / 1000.0;
            printf("scan   %-10s %6d boxes: %llu steps; cycles per step: resolver work %.0f, bulk work %.0f, whole step "
                   "%.0f (%.3f us at %.0f MHz); scan kernel %.4f ms\n",
                   variants[v].name, n, d[3], (double)d[0] / d[3], (double)d[1] / d[3], (double)d[2] / d[3],
                   (double)d[2] / d[3] / mhz, mhz, (double)d[2] / mhz * 1e-3);
        }
        for (auto &s : sets) {
            cudaFree(s.d_boxes);
            cudaFree(s.d_scores);
        }
    }
    printf(failures ? "# WRONG: %d mismatches (see above)\n" : "# all builds exact on every input (%d mismatches)\n",
           failures);
    return failures ? 1 : 0;
}
