// graph_dev.cu: standalone device harness of the topo_sort and paged_attention labs.
//
// Grades one solution (.so, built as the engine builds it) the way the engine will:
// every correctness case of lab.yaml through the lab's own checker (fresh inputs, NaN
// poison, guard zones, unchanged inputs, fp64 / CPU reference), then the bench cases
// (warm-up, L2 flushed before each timed run, CUDA events, median, quick check after
// every run). In the same process it measures the GPU's copy bandwidth (cudaMemcpy
// device to device and a 16-byte copy kernel, bytes read + written) and a read-only
// stream, so a bandwidth lab's fraction of the ceiling comes from this run. For
// topo_sort the checker times its single-thread CPU Kahn on every timed graph and puts
// the median in the case's shape text; the harness prints the GPU's speed-up over it.
//
// Build (bench/dev/run_graph_device.sh does this):
//   gcc -O2 -c mini_engine.c topo_sort.c paged_attention.c
//   nvcc -O3 -arch=sm_90 graph_dev.cu *.o -ldl -Xlinker -export-dynamic -o graph_dev
// Run:
//   graph_dev --cases cases.tsv --lab topo_sort --so ref.so [--bench] [--stop-first]
//             [--ref-rate ITEMS_PER_S] [--seed N]
// Last line: "VERDICT <lab> <so> <verdict> <tier fraction> <message>".
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "mini_engine.h"
}

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(3);                                                                            \
        }                                                                                       \
    } while (0)

extern "C" const cl_checker cl_checker_topo_sort, cl_checker_paged_attention;

// ---- the CUDA backend of mini_engine ----

template <typename T> __device__ T gen_as(const cl_gen &g, uint64_t i);
template <> __device__ float gen_as<float>(const cl_gen &g, uint64_t i) { return cl_gen_f32(&g, i); }
template <> __device__ uint16_t gen_as<uint16_t>(const cl_gen &g, uint64_t i) { return cl_gen_f16(&g, i); }
template <> __device__ int32_t gen_as<int32_t>(const cl_gen &g, uint64_t i) { return (int32_t)cl_gen_value(&g, i); }
template <> __device__ double gen_as<double>(const cl_gen &g, uint64_t i) { return cl_gen_value(&g, i); }

template <typename T> __global__ void fill_kernel(T *out, size_t n, cl_gen g)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = gen_as<T>(g, i);
}

static void *d_alloc(size_t n)
{
    void *p = nullptr;
    return cudaMalloc(&p, n ? n : 1) == cudaSuccess ? p : nullptr;
}
static void d_release(void *p) { cudaFree(p); }
static int d_upload(void *d, const void *h, size_t n) { return cudaMemcpy(d, h, n, cudaMemcpyHostToDevice) != cudaSuccess; }
static int d_download(void *h, const void *d, size_t n) { return cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost) != cudaSuccess; }
static int d_set(void *d, int b, size_t n) { return cudaMemset(d, b, n) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess; }
static size_t d_mem_free(void)
{
    size_t f = 0, t = 0;
    cudaMemGetInfo(&f, &t);
    return f;
}
static int d_fill(void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    int blocks = 132 * 16, threads = 256;
    switch (t) {
    case CL_F32: fill_kernel<float><<<blocks, threads>>>((float *)dev, count, *g); break;
    case CL_F16: fill_kernel<uint16_t><<<blocks, threads>>>((uint16_t *)dev, count, *g); break;
    case CL_I32: fill_kernel<int32_t><<<blocks, threads>>>((int32_t *)dev, count, *g); break;
    case CL_F64: fill_kernel<double><<<blocks, threads>>>((double *)dev, count, *g); break;
    }
    return cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess;
}
static int d_sync(char *msg, size_t len)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(msg, len, "CUDA error: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
        return -1;
    }
    return 0;
}
static const mini_backend cuda_backend = {d_alloc, d_release, d_upload, d_download, d_set, d_fill, d_mem_free, d_sync};

// the runner service every solution may call
extern "C" void *cudalab_scratch(size_t bytes)
{
    static void *p = nullptr;
    static size_t have = 0;
    if (bytes > have) {
        if (p)
            cudaFree(p);
        p = nullptr;
        have = 0;
        if (cudaMalloc(&p, bytes) != cudaSuccess) {
            p = nullptr;
            cudaGetLastError();
        } else {
            have = bytes;
        }
    }
    return p;
}

// ---- ceilings measured in this run ----

__global__ void copy16_kernel(const int4 *__restrict__ in, int4 *__restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void read16_kernel(const int4 *__restrict__ in, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int4 v = __ldcs(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x7fffffff)
        *sink = acc; // keeps the loads alive
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct ceilings {
    double memcpy_gbps, copy_kernel_gbps, read_gbps;
};

static ceilings measure_ceilings(void)
{
    const size_t bytes = (size_t)1 << 30;
    void *a, *b;
    int *sink;
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMalloc(&sink, sizeof(int)));
    CUDA_CHECK(cudaMemset(a, 1, bytes));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    int sms;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<double> t_memcpy, t_kernel, t_read;
    for (int r = 0; r < 23; r++) {
        float ms;
        CUDA_CHECK(cudaEventRecord(e0));
        CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3)
            t_memcpy.push_back(ms);
        CUDA_CHECK(cudaEventRecord(e0));
        copy16_kernel<<<sms * 8, 512>>>((const int4 *)a, (int4 *)b, bytes / 16);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3)
            t_kernel.push_back(ms);
        CUDA_CHECK(cudaEventRecord(e0));
        read16_kernel<<<sms * 8, 512>>>((const int4 *)a, bytes / 16, sink);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3)
            t_read.push_back(ms);
    }
    ceilings c;
    c.memcpy_gbps = 2.0 * bytes / (median(t_memcpy) * 1e6);
    c.copy_kernel_gbps = 2.0 * bytes / (median(t_kernel) * 1e6);
    c.read_gbps = 1.0 * bytes / (median(t_read) * 1e6);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(sink));
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return c;
}

// ---- lab metadata (tiers) from the flat file ----

struct lab_meta {
    char metric[32], ceiling[32];
    double pass, good, excellent;
};

static int load_meta(const char *path, const char *lab, lab_meta *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    int found = -1;
    while (fgets(line, sizeof line, f)) {
        char l[128];
        lab_meta t;
        if (sscanf(line, "meta\t%127s\t%31s\t%31s\t%lf\t%lf\t%lf", l, t.metric, t.ceiling, &t.pass, &t.good,
                   &t.excellent) == 6 &&
            !strcmp(l, lab)) {
            *m = t;
            found = 0;
        }
    }
    fclose(f);
    return found;
}

static const char *tier_of(double frac, const lab_meta &m)
{
    return frac >= m.excellent ? "excellent" : frac >= m.good ? "good" : frac >= m.pass ? "pass" : "slow";
}

// "...; CPU Kahn (1 thread): 812.34 ms median of 20 = ..." -> 812.34
static double cpu_ms_of(const char *shape)
{
    const char *p = strstr(shape, "CPU Kahn (1 thread): ");
    return p ? atof(p + strlen("CPU Kahn (1 thread): ")) : 0.0;
}

int main(int argc, char **argv)
{
    const char *cases_path = nullptr, *lab = nullptr, *so = nullptr;
    int do_bench = 0, stop_first = 0;
    double ref_rate = 0;
    uint64_t seed = 0x5EED2026ull;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cases") && i + 1 < argc) cases_path = argv[++i];
        else if (!strcmp(argv[i], "--lab") && i + 1 < argc) lab = argv[++i];
        else if (!strcmp(argv[i], "--so") && i + 1 < argc) so = argv[++i];
        else if (!strcmp(argv[i], "--bench")) do_bench = 1;
        else if (!strcmp(argv[i], "--stop-first")) stop_first = 1;
        else if (!strcmp(argv[i], "--ref-rate") && i + 1 < argc) ref_rate = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], nullptr, 0);
        else {
            fprintf(stderr, "usage: %s --cases F --lab L --so S [--bench] [--stop-first] [--ref-rate R] [--seed N]\n", argv[0]);
            return 2;
        }
    }
    if (!cases_path || !lab || !so) {
        fprintf(stderr, "graph_dev: --cases, --lab and --so are required\n");
        return 2;
    }
    const cl_checker *chk = !strcmp(lab, "topo_sort") ? &cl_checker_topo_sort
                            : !strcmp(lab, "paged_attention") ? &cl_checker_paged_attention : nullptr;
    if (!chk) {
        fprintf(stderr, "graph_dev: unknown lab %s\n", lab);
        return 2;
    }
    lab_meta meta;
    if (load_meta(cases_path, lab, &meta)) {
        fprintf(stderr, "graph_dev: no meta line for %s in %s\n", lab, cases_path);
        return 2;
    }
    static cl_case cases[64];
    int ncases = 0;
    if (mini_load_cases(cases_path, lab, cases, 64, &ncases))
        return 2;
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        printf("VERDICT %s %s missing_symbol 0 %s\n", lab, so, dlerror());
        return 1;
    }
    const void *entry = dlsym(dl, lab);
    if (!entry) {
        printf("VERDICT %s %s missing_symbol 0 no symbol %s\n", lab, so, lab);
        return 1;
    }

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    mini_set_backend(&cuda_backend);
    mini_set_seed(seed);
    ceilings ceil = {0, 0, 0};
    if (do_bench) {
        ceil = measure_ceilings();
        printf("# %s, %d SMs, L2 %d MB; copy: cudaMemcpy %.0f GB/s, 16-byte kernel %.0f GB/s (read + write); "
               "read-only %.0f GB/s\n",
               prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, ceil.memcpy_gbps, ceil.copy_kernel_gbps,
               ceil.read_gbps);
    }
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    const size_t flush_bytes = (size_t)256 << 20; // > 5x the 50 MB L2 of an H100
    void *flush;
    CUDA_CHECK(cudaMalloc(&flush, flush_bytes));

    const char *verdict = "pass";
    char message[1200] = "";
    int failed = 0;
    double worst_frac = 1e30;
    // correctness cases
    for (int i = 0; i < ncases; i++) {
        if (cases[i].bench)
            continue;
        mini_case_run *cr = mini_case_open(chk, &cases[i]);
        int rc = mini_case_generate(cr, cl_case_seed(&cases[i]));
        float ms = 0;
        if (rc == 0) {
            mini_case_snapshot_inputs(cr);
            cudaEvent_t e0, e1;
            CUDA_CHECK(cudaEventCreate(&e0));
            CUDA_CHECK(cudaEventCreate(&e1));
            CUDA_CHECK(cudaEventRecord(e0, stream));
            mini_case_launch(cr, entry, stream);
            cudaEventRecord(e1, stream);
            rc = mini_case_check(cr, 1);
            if (cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
                ms = 0;
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
        }
        const char *v = rc == 0 ? "ok" : mini_case_verdict(cr);
        printf("  %-44s %-13s %9.3f ms  %s\n", cases[i].name, v, ms, mini_case_shape(cr));
        if (rc) {
            printf("      %s\n", mini_case_message(cr));
            if (!failed) {
                verdict = v;
                snprintf(message, sizeof message, "%s: %s", cases[i].name, mini_case_message(cr));
            }
            failed = 1;
        }
        mini_case_close(cr);
        fflush(stdout);
        if (failed && (stop_first || !strcmp(verdict, "cuda_error")))
            break;
    }
    // bench cases
    for (int i = 0; i < ncases && do_bench && !failed; i++) {
        if (!cases[i].bench)
            continue;
        mini_case_run *cr = mini_case_open(chk, &cases[i]);
        uint64_t s0 = cl_case_seed(&cases[i]);
        int rc = mini_case_generate(cr, s0);
        if (rc == 0) { // warm-up, fully checked
            mini_case_launch(cr, entry, stream);
            rc = mini_case_check(cr, 1);
        }
        std::vector<double> times;
        cudaEvent_t e0, e1;
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
        for (int r = 0; r < cases[i].runs && rc == 0; r++) {
            rc = mini_case_generate(cr, cl_mix64(s0 + (uint64_t)r + 1));
            if (rc)
                break;
            CUDA_CHECK(cudaMemsetAsync(flush, r & 0xFF, flush_bytes, stream));
            CUDA_CHECK(cudaEventRecord(e0, stream));
            mini_case_launch(cr, entry, stream);
            CUDA_CHECK(cudaEventRecord(e1, stream));
            rc = mini_case_check(cr, 0);
            float ms;
            if (rc == 0 && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess)
                times.push_back(ms);
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        if (rc) {
            printf("  %-44s %-13s  %s\n      %s\n", cases[i].name, mini_case_verdict(cr), mini_case_shape(cr),
                   mini_case_message(cr));
            verdict = mini_case_verdict(cr);
            snprintf(message, sizeof message, "%s (timed run): %s", cases[i].name, mini_case_message(cr));
            failed = 1;
            mini_case_close(cr);
            break;
        }
        double med = median(times), lo = *std::min_element(times.begin(), times.end()),
               hi = *std::max_element(times.begin(), times.end());
        double frac;
        char metric[256];
        if (!strcmp(meta.metric, "throughput")) {
            double rate = mini_case_items(cr) / (med * 1e-3);
            double cpu_ms = cpu_ms_of(mini_case_shape(cr));
            frac = ref_rate > 0 ? rate / ref_rate : 1.0;
            snprintf(metric, sizeof metric, "%.3f G%s/s; CPU Kahn 1 thread %.2f ms -> speed-up %.1fx; %.2f of the reference",
                     rate / 1e9, mini_case_item_unit(cr), cpu_ms, cpu_ms > 0 ? cpu_ms / med : 0.0, frac);
        } else {
            double gbps = mini_case_bytes(cr) / (med * 1e6);
            frac = gbps / ceil.memcpy_gbps;
            snprintf(metric, sizeof metric, "%.0f GB/s = %.1f%% of cudaMemcpy copy (%.1f%% of the copy kernel, %.1f%% of read-only)",
                     gbps, 100 * frac, 100 * gbps / ceil.copy_kernel_gbps, 100 * gbps / ceil.read_gbps);
        }
        worst_frac = std::min(worst_frac, frac);
        printf("  %-44s %-13s median %.4f ms (min %.4f, max %.4f, %zu runs)  %s\n      %s\n", cases[i].name,
               tier_of(frac, meta), med, lo, hi, times.size(), metric, mini_case_shape(cr));
        printf("BENCH\t%s\t%s\t%.6f\t%.6g\t%.6g\t%.6g\t%.4f\n", lab, cases[i].name, med, mini_case_bytes(cr),
               mini_case_items(cr), cpu_ms_of(mini_case_shape(cr)), frac);
        mini_case_close(cr);
        fflush(stdout);
    }
    if (!failed && do_bench && worst_frac < 1e29)
        verdict = tier_of(worst_frac, meta);
    for (char *p = message; *p; p++)
        if (*p == '\n')
            *p = ' ';
    printf("VERDICT %s %s %s %.3f %s\n", lab, so, verdict, worst_frac < 1e29 ? worst_frac : 0.0, message);
    return 0;
}
