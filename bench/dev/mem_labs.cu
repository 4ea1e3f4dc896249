/* mem_labs.cu: a standalone device harness for the transpose, softmax and layernorm labs,
 * written before the engine (cudalab-run) landed and kept as a cross-check of it and for
 * tuning. It implements the checker services of
 * grader/checker.h just far enough to drive the real checkers (grader/labs/<lab>.c)
 * against a solution compiled as the engine does (nvcc -shared, dlopen):
 *   correctness cases: generate -> poison outputs (0xFF) -> launch -> sync -> guard zones
 *                      -> input checksum -> verify(full)
 *   bench cases:       generate -> warm-up launch -> verify(full); then per timed run:
 *                      generate(fresh seed) -> poison -> flush L2 -> [events: launch] ->
 *                      guards -> verify(quick); median time -> GB/s -> fraction of the
 *                      copy bandwidth measured in the same process (a float4 copy kernel)
 * and prints one line per case and a final "RESULT {json}" line with the verdict (wrong,
 * out_of_bounds, cuda_error, slow, pass, good, excellent), the tier fractions coming from
 * the lab's lab.yaml (flattened by labyaml.py).
 *
 *   mem_labs <lab> <lab.txt> <solution.so> [--seed N] [--no-bench] [--bench-only]
 *            [--runs N] [--case SUBSTR] [--bench-case SUBSTR] [--max-mem GiB]
 * --case keeps the cases whose name contains SUBSTR, --bench-case only filters bench cases.
 *   mem_labs copy                  (only the copy bandwidth)
 *
 * The checkers' CPU-side tests run through the real engine's host backend
 * (tests/unit/test_memlabs.c); this harness is for the GPU: it also times variants of the
 * references built with -D flags, which the engine (one file, the lab's flags) cannot. */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

#include "cudalab_lab.h" /* has its own extern "C" */
extern "C" {
#include "grader/checker.h"
}

/* ---------------------------------------------------------------- device layer */

#define CUDA_CHECK(call)                                                                        \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(3);                                                                            \
        }                                                                                       \
    } while (0)

__global__ void fill_f32(float *dst, size_t n, cl_gen g)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = cl_gen_f32(&g, i);
}

__global__ void checksum_words(const uint32_t *p, size_t n, unsigned long long *out)
{
    unsigned long long acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc += cl_mix64(((uint64_t)p[i] << 32) ^ i);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, acc);
}

__global__ void copy_f4(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

/* Four independent 16-byte loads in flight per thread before the stores. n % (4 * stride)
 * need not be 0: the tail goes one float4 at a time. */
__global__ void copy_f4x4(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a, dst[i + stride] = b, dst[i + 2 * stride] = c, dst[i + 3 * stride] = d;
    }
    for (; i < n; i += stride)
        dst[i] = src[i];
}

static cudaStream_t g_stream;
static int g_sms;
static void *dev_malloc(size_t b) { void *p = NULL; return cudaMalloc(&p, b) == cudaSuccess ? p : NULL; }
static void dev_free(void *p) { cudaFree(p); }
static void dev_memset(void *p, int v, size_t b) { CUDA_CHECK(cudaMemsetAsync(p, v, b, g_stream)); }
/* Copies go on g_stream (non-blocking: it does not wait for the legacy default stream),
 * so they are ordered after the fills and launches queued there. */
static int dev_h2d(void *d, const void *h, size_t b)
{
    return cudaMemcpyAsync(d, h, b, cudaMemcpyHostToDevice, g_stream) == cudaSuccess &&
                   cudaStreamSynchronize(g_stream) == cudaSuccess
               ? 0
               : -1;
}
static int dev_d2h(void *h, const void *d, size_t b)
{
    return cudaMemcpyAsync(h, d, b, cudaMemcpyDeviceToHost, g_stream) == cudaSuccess &&
                   cudaStreamSynchronize(g_stream) == cudaSuccess
               ? 0
               : -1;
}
static void dev_fill(float *d, size_t n, const cl_gen *g)
{
    fill_f32<<<g_sms * 8, 256, 0, g_stream>>>(d, n, *g);
    CUDA_CHECK(cudaGetLastError());
}
static uint64_t dev_checksum(const void *d, size_t bytes)
{
    static unsigned long long *acc = NULL;
    if (!acc)
        CUDA_CHECK(cudaMalloc(&acc, sizeof *acc));
    unsigned long long h = 0;
    CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof *acc, g_stream));
    checksum_words<<<g_sms * 8, 256, 0, g_stream>>>((const uint32_t *)d, bytes / 4, acc);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(&h, acc, sizeof h, cudaMemcpyDeviceToHost, g_stream));
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
    return h;
}
static size_t dev_free_bytes(void)
{
    size_t f = 0, t = 0;
    CUDA_CHECK(cudaMemGetInfo(&f, &t));
    return f;
}

/* ---------------------------------------------------------------- lab.txt and cases */

struct cl_case {
    char name[128];
    int bench, runs, line;
    int nparams;
    char key[16][32];
    char value[16][64];
};

struct lab_conf {
    char entry[64];
    double tier[3];
    int ntols;
    char tol_key[8][32];
    double tol_value[8];
    std::vector<cl_case> cases;
};

static uint64_t g_run_seed;

static int load_lab(const char *path, lab_conf *lab)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return -1;
    }
    char line[4096];
    int ln = 0;
    memset(lab->tier, 0, sizeof lab->tier);
    lab->ntols = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "entry %63s", lab->entry) == 1)
            continue;
        if (sscanf(line, "tier %lf %lf %lf", &lab->tier[0], &lab->tier[1], &lab->tier[2]) == 3)
            continue;
        if (strncmp(line, "tol ", 4) == 0 && lab->ntols < 8) {
            if (sscanf(line, "tol %31s %lf", lab->tol_key[lab->ntols], &lab->tol_value[lab->ntols]) == 2)
                lab->ntols++;
            continue;
        }
        if (strncmp(line, "case ", 5) == 0) {
            cl_case c;
            memset(&c, 0, sizeof c);
            c.line = ln;
            int off = 0;
            if (sscanf(line, "case %d %d %n", &c.bench, &c.runs, &off) < 2)
                goto bad;
            for (char *tok = strtok(line + off, "\t"); tok; tok = strtok(NULL, "\t")) {
                char *eq = strchr(tok, '=');
                if (!eq || c.nparams >= 16)
                    goto bad;
                *eq = 0;
                if (strcmp(tok, "name") == 0) {
                    snprintf(c.name, sizeof c.name, "%s", eq + 1);
                } else {
                    snprintf(c.key[c.nparams], 32, "%s", tok);
                    snprintf(c.value[c.nparams], 64, "%s", eq + 1);
                    c.nparams++;
                }
            }
            lab->cases.push_back(c);
            continue;
        }
    bad:
        fprintf(stderr, "%s:%d: cannot read '%s'\n", path, ln, line);
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

/* "2^28", "1e6", "16384", "-1e4" */
static int parse_num(const char *s, double *out)
{
    const char *caret = strchr(s, '^');
    char *end;
    if (caret) {
        double b = strtod(s, &end), e;
        if (end != caret)
            return -1;
        e = strtod(caret + 1, &end);
        if (*end)
            return -1;
        *out = pow(b, e);
        return 0;
    }
    *out = strtod(s, &end);
    return (*end || end == s) ? -1 : 0;
}

/* ---------------------------------------------------------------- cl_run */

struct guarded {
    char *base;
    size_t bytes;
    int input;
    uint64_t sum;
    char name[32];
};

struct cl_run {
    const lab_conf *lab;
    size_t budget;
    std::vector<guarded> bufs;
    std::vector<void *> host;
    double bytes, flops;
    char shape[256];
    char msg[2048];
    int failed;  /* 1 wrong, -1 checker/env error */
    int halved;
};

#define GUARD (64 * 1024)
#define GUARD_BYTE 0xA5

static void run_reset(cl_run *run)
{
    for (auto &b : run->bufs)
        dev_free(b.base);
    for (void *p : run->host)
        free(p);
    run->bufs.clear();
    run->host.clear();
    run->bytes = run->flops = 0;
    run->shape[0] = run->msg[0] = 0;
    run->failed = 0;
    run->halved = 0;
}

extern "C" {

const char *cl_case_name(const cl_case *c) { return c->name; }
int cl_case_is_bench(const cl_case *c) { return c->bench; }
uint64_t cl_case_seed(const cl_case *c)
{
    uint64_t h = g_run_seed;
    for (const char *p = c->name; *p; p++)
        h = cl_mix64(h ^ (uint8_t)*p);
    return h;
}

static const char *param(const cl_case *c, const char *key)
{
    for (int i = 0; i < c->nparams; i++)
        if (strcmp(c->key[i], key) == 0)
            return c->value[i];
    return NULL;
}

int cl_param_has(const cl_case *c, const char *key) { return param(c, key) != NULL; }

int cl_param_f64_or(cl_run *run, const cl_case *c, const char *key, double dflt, double *out)
{
    const char *v = param(c, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (parse_num(v, out))
        return cl_errorf(run, "lab.txt:%d: %s: '%s' is not a number", c->line, key, v);
    return 0;
}

int cl_param_f64(cl_run *run, const cl_case *c, const char *key, double *out)
{
    if (!param(c, key))
        return cl_errorf(run, "lab.txt:%d: case %s has no %s", c->line, c->name, key);
    return cl_param_f64_or(run, c, key, 0, out);
}

int cl_param_i64_or(cl_run *run, const cl_case *c, const char *key, long long dflt, long long *out)
{
    double d;
    if (cl_param_f64_or(run, c, key, (double)dflt, &d))
        return -1;
    if (d != floor(d))
        return cl_errorf(run, "lab.txt:%d: %s must be an integer", c->line, key);
    *out = (long long)d;
    return 0;
}

int cl_param_i64(cl_run *run, const cl_case *c, const char *key, long long *out)
{
    if (!param(c, key))
        return cl_errorf(run, "lab.txt:%d: case %s has no %s", c->line, c->name, key);
    return cl_param_i64_or(run, c, key, 0, out);
}

const char *cl_param_str_or(const cl_case *c, const char *key, const char *dflt)
{
    const char *v = param(c, key);
    return v ? v : dflt;
}

int cl_param_size(cl_run *run, const cl_case *c, const char *key, double per_unit, double fixed,
                  long long *out)
{
    const char *v = param(c, key);
    const double budget = (double)run->budget;
    if (!v)
        return cl_errorf(run, "lab.txt:%d: case %s has no %s", c->line, c->name, key);
    if (strcmp(v, "max") == 0) {
        *out = (long long)floor((budget - fixed) / per_unit);
    } else {
        double d;
        if (parse_num(v, &d) || d < 1)
            return cl_errorf(run, "lab.txt:%d: %s: '%s' is not a size", c->line, key, v);
        *out = (long long)d;
        while (*out > 1 && fixed + per_unit * (double)*out > budget)
            *out /= 2, run->halved = 1;
    }
    if (*out < 1 || fixed + per_unit * (double)*out > budget)
        return cl_errorf(run, "case %s does not fit in %.1f GiB", c->name, budget / 1073741824.0);
    return 0;
}

double cl_tolerance(cl_run *run, const char *key, double dflt)
{
    for (int i = 0; i < run->lab->ntols; i++)
        if (strcmp(run->lab->tol_key[i], key) == 0)
            return run->lab->tol_value[i];
    return dflt;
}

size_t cl_mem_budget(cl_run *run) { return run->budget; }

static void *alloc_guarded(cl_run *run, size_t bytes, const char *name, int input)
{
    guarded g;
    memset(&g, 0, sizeof g);
    g.bytes = bytes;
    g.input = input;
    snprintf(g.name, sizeof g.name, "%s", name);
    g.base = (char *)dev_malloc(bytes + 2 * GUARD);
    if (!g.base) {
        cl_errorf(run, "out of device memory allocating %s (%zu bytes)", name, bytes);
        return NULL;
    }
    dev_memset(g.base, GUARD_BYTE, GUARD);
    dev_memset(g.base + GUARD + bytes, GUARD_BYTE, GUARD);
    run->bufs.push_back(g);
    return g.base + GUARD;
}

void *cl_alloc_in(cl_run *run, size_t bytes, const char *name) { return alloc_guarded(run, bytes, name, 1); }
void *cl_alloc_out(cl_run *run, size_t bytes, const char *name) { return alloc_guarded(run, bytes, name, 0); }
void *cl_alloc_dev(cl_run *run, size_t bytes) { return alloc_guarded(run, bytes, "scratch", 2); }

void *cl_host_alloc(cl_run *run, size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        cl_errorf(run, "out of host memory (%zu bytes)", bytes);
        return NULL;
    }
    run->host.push_back(p);
    return p;
}

int cl_upload(cl_run *run, void *dev, const void *host, size_t bytes)
{
    return dev_h2d(dev, host, bytes) ? cl_errorf(run, "upload of %zu bytes failed", bytes) : 0;
}

int cl_download(cl_run *run, void *host, const void *dev, size_t bytes)
{
    return dev_d2h(host, dev, bytes) ? cl_errorf(run, "download of %zu bytes failed", bytes) : 0;
}

int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    if (t != CL_F32)
        return cl_errorf(run, "mem_labs: cl_fill supports fp32 only");
    dev_fill((float *)dev, count, g);
    return 0;
}

void cl_set_work(cl_run *run, double bytes, double flops) { run->bytes = bytes, run->flops = flops; }
void cl_set_items(cl_run *run, double items, const char *unit) {}

void cl_set_shape(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->shape, sizeof run->shape, fmt, ap);
    va_end(ap);
}

int cl_mismatch(cl_run *run, const char *where, double expected, double got, const char *fmt, ...)
{
    int n = snprintf(run->msg, sizeof run->msg, "%s: expected %.9g, got %.9g: ", where, expected, got);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->msg + n, sizeof run->msg - n, fmt, ap);
    va_end(ap);
    run->failed = 1;
    return 1;
}

int cl_failf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->msg, sizeof run->msg, fmt, ap);
    va_end(ap);
    run->failed = 1;
    return 1;
}

int cl_errorf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->msg, sizeof run->msg, fmt, ap);
    va_end(ap);
    run->failed = -1;
    return -1;
}

int cl_close(double got, double expected, double abs_tol, double rel_tol)
{
    if (isnan(got) || isnan(expected))
        return 0;
    if (isinf(got) || isinf(expected))
        return got == expected;
    return fabs(got - expected) <= abs_tol + rel_tol * fabs(expected);
}

uint64_t cl_sample_index(uint64_t seed, uint64_t k, uint64_t n) { return cl_rand64(seed, k, 99) % n; }

/* Device scratch for solutions: cached, grown on demand. */
void *cudalab_scratch(size_t bytes)
{
    static void *p = NULL;
    static size_t have = 0;
    if (bytes > have) {
        if (p)
            dev_free(p);
        have = 0;
        p = dev_malloc(bytes);
        if (!p)
            return NULL;
        have = bytes;
    }
    return p;
}

extern const cl_checker cl_checker_transpose, cl_checker_softmax, cl_checker_layernorm;
} /* extern "C" */

/* ---------------------------------------------------------------- guards and inputs */

static int check_guards(cl_run *run)
{
    std::vector<unsigned char> h(GUARD);
    for (auto &b : run->bufs) {
        for (int side = 0; side < 2; side++) {
            const char *p = side ? b.base + GUARD + b.bytes : b.base;
            if (dev_d2h(h.data(), p, GUARD))
                return cl_errorf(run, "guard download failed");
            for (size_t i = 0; i < GUARD; i++)
                if (h[i] != GUARD_BYTE) {
                    snprintf(run->msg, sizeof run->msg, "wrote %zu bytes %s buffer %s", side ? i + 1 : GUARD - i,
                             side ? "past the end of" : "before the start of", b.name);
                    return 2;
                }
        }
    }
    return 0;
}

static void sum_inputs(cl_run *run)
{
    for (auto &b : run->bufs)
        if (b.input == 1)
            b.sum = dev_checksum(b.base + GUARD, b.bytes);
}

static int inputs_changed(cl_run *run)
{
    for (auto &b : run->bufs)
        if (b.input == 1 && dev_checksum(b.base + GUARD, b.bytes) != b.sum) {
            snprintf(run->msg, sizeof run->msg, "input %s was modified", b.name);
            return 2;
        }
    return 0;
}

static void poison_outputs(cl_run *run)
{
    for (auto &b : run->bufs)
        if (b.input == 0)
            dev_memset(b.base + GUARD, 0xFF, b.bytes);
}

/* ---------------------------------------------------------------- timing */

static float *g_flush;
static const size_t FLUSH_BYTES = 256u << 20;

/* The ceiling: a 1 GiB device-to-device copy, bytes read + written over the median time,
 * the best of three ways (grid-stride float4 kernel, the same with 4 loads in flight per
 * thread, cudaMemcpyAsync). verbose: print each. */
static double copy_bandwidth(int verbose)
{
    const size_t bytes = (size_t)1 << 30, n4 = bytes / 16;
    float4 *a, *b;
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMemsetAsync(a, 1, bytes, g_stream));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    static const char *names[3] = {"float4 grid-stride kernel", "float4 x4 in flight kernel", "cudaMemcpyAsync"};
    double best = 0;
    for (int way = 0; way < 3; way++) {
        std::vector<float> ms;
        for (int i = 0; i < 25; i++) {
            CUDA_CHECK(cudaEventRecord(e0, g_stream));
            if (way == 0)
                copy_f4<<<g_sms * 4, 512, 0, g_stream>>>(a, b, n4);
            else if (way == 1)
                copy_f4x4<<<g_sms * 4, 512, 0, g_stream>>>(a, b, n4);
            else
                CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, g_stream));
            CUDA_CHECK(cudaGetLastError());
            CUDA_CHECK(cudaEventRecord(e1, g_stream));
            CUDA_CHECK(cudaEventSynchronize(e1));
            float t;
            CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
            if (i >= 5)
                ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double gbps = 2.0 * (double)bytes / (ms[ms.size() / 2] * 1e6); /* read + write */
        if (verbose)
            printf("copy, %-28s %7.0f GB/s (1 GiB, read + write, median of 20)\n", names[way], gbps);
        best = std::max(best, gbps);
    }
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return best;
}

/* ---------------------------------------------------------------- the run */

static const char *verdict_of_fraction(const lab_conf *lab, double f)
{
    return f >= lab->tier[2] ? "excellent" : f >= lab->tier[1] ? "good" : f >= lab->tier[0] ? "pass" : "slow";
}

typedef void (*launch_fn)(void *, const void *, void *);

/* Launch, synchronise, check errors. 0 ok; sets verdict and returns 1 otherwise. */
static int launch_checked(cl_run *run, const cl_checker *ck, void *st, const void *entry, const char **verdict)
{
    ck->launch(st, entry, (void *)g_stream);
    cudaError_t e = cudaStreamSynchronize(g_stream);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(run->msg, sizeof run->msg, "CUDA error: %s", cudaGetErrorString(e));
        *verdict = "cuda_error";
        return 1;
    }
    if (check_guards(run)) {
        *verdict = "out_of_bounds";
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
    if (argc == 2 && strcmp(argv[1], "copy") == 0) {
        cudaDeviceProp p;
        CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
        printf("device: %s, %d SMs, L2 %d MB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
        printf("copy bandwidth (best): %.0f GB/s\n", copy_bandwidth(1));
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: mem_labs <lab> <lab.txt> <solution.so> [--seed N] [--no-bench] "
                        "[--bench-only] [--runs N] [--case SUBSTR] [--bench-case SUBSTR] [--max-mem GiB]\n");
        return 2;
    }
    const char *labname = argv[1], *labtxt = argv[2], *solution = argv[3];
    const int i0 = 4;
    int no_bench = 0, bench_only = 0, runs_override = 0;
    const char *only_case = NULL, *only_bench = NULL;
    double max_mem = 0; /* --max-mem GiB: cap the memory budget (e.g. under compute-sanitizer) */
    g_run_seed = (uint64_t)time(NULL) * 2654435761u;
    for (int i = i0; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            g_run_seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--no-bench") == 0)
            no_bench = 1;
        else if (strcmp(argv[i], "--bench-only") == 0)
            bench_only = 1;
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs_override = atoi(argv[++i]);
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only_case = argv[++i];
        else if (strcmp(argv[i], "--bench-case") == 0 && i + 1 < argc)
            only_bench = argv[++i];
        else if (strcmp(argv[i], "--max-mem") == 0 && i + 1 < argc)
            max_mem = strtod(argv[++i], NULL) * 1073741824.0;
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }

    const cl_checker *ck = strcmp(labname, "transpose") == 0 ? &cl_checker_transpose
                           : strcmp(labname, "softmax") == 0 ? &cl_checker_softmax
                           : strcmp(labname, "layernorm") == 0 ? &cl_checker_layernorm
                                                               : NULL;
    lab_conf lab;
    if (!ck || load_lab(labtxt, &lab))
        return 2;

    const void *entry = NULL;
    void *so = dlopen(solution, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        printf("RESULT {\"lab\":\"%s\",\"solution\":\"%s\",\"verdict\":\"compile_error\",\"message\":\"dlopen failed\"}\n",
               labname, solution);
        fprintf(stderr, "%s\n", dlerror());
        return 0;
    }
    entry = dlsym(so, lab.entry);
    if (!entry) {
        printf("RESULT {\"lab\":\"%s\",\"solution\":\"%s\",\"verdict\":\"missing_symbol\"}\n", labname, solution);
        return 0;
    }
    const char *label = solution;
    CUDA_CHECK(cudaMalloc(&g_flush, FLUSH_BYTES));

    cl_run run;
    run.lab = &lab;
    run.bufs.clear();
    run.host.clear();
    run.bytes = run.flops = 0;
    run.failed = run.halved = 0;
    run.budget = (size_t)(0.45 * (double)dev_free_bytes());
    if (max_mem > 0 && (double)run.budget > max_mem)
        run.budget = (size_t)max_mem;

    const double ceiling = copy_bandwidth(0);
    printf("%s: %s, seed %llu, copy bandwidth %.0f GB/s\n", labname, label, (unsigned long long)g_run_seed, ceiling);

    const char *verdict = NULL;
    char failmsg[2600] = "";
    double worst = 1e30;
    int ncorrect = 0, npassed = 0;
    std::vector<char> state;
    for (auto &c : lab.cases) {
        if ((only_case && !strstr(c.name, only_case)) || (c.bench && only_bench && !strstr(c.name, only_bench)))
            continue;
        if ((c.bench && (no_bench || verdict)) || (!c.bench && bench_only))
            continue;
        run_reset(&run);
        state.assign(ck->state_size, 0);
        void *st = state.data();
        if (ck->setup(&run, &c, st)) {
            printf("  %-28s checker error: %s\n", c.name, run.msg);
            verdict = "checker_error";
            snprintf(failmsg, sizeof failmsg, "%s: %s", c.name, run.msg);
            break;
        }
        uint64_t seed = cl_case_seed(&c);
        if (!c.bench) {
            ncorrect++;
            if (ck->generate(&run, st, seed)) {
                verdict = "checker_error";
                snprintf(failmsg, sizeof failmsg, "%s: %s", c.name, run.msg);
                break;
            }
            sum_inputs(&run);
            poison_outputs(&run);
            if (launch_checked(&run, ck, st, entry, &verdict)) {
                snprintf(failmsg, sizeof failmsg, "%s: %s", c.name, run.msg);
                printf("  %-28s %-22s %s\n", c.name, verdict, run.msg);
                break;
            }
            if (inputs_changed(&run)) {
                verdict = "out_of_bounds";
                snprintf(failmsg, sizeof failmsg, "%s: %s", c.name, run.msg);
                printf("  %-28s %-22s %s\n", c.name, verdict, run.msg);
                break;
            }
            int rc = ck->verify(&run, st, 1);
            if (rc) {
                verdict = rc > 0 ? "wrong" : "checker_error";
                snprintf(failmsg, sizeof failmsg, "%s (%s): %s", c.name, run.shape, run.msg);
                printf("  %-28s %-22s %s\n", c.name, verdict, run.msg);
                break;
            }
            npassed++;
            printf("  %-28s ok    %s\n", c.name, run.shape);
            continue;
        }
        /* bench */
        if (ck->generate(&run, st, seed)) {
            verdict = "checker_error";
            snprintf(failmsg, sizeof failmsg, "%s: %s", c.name, run.msg);
            break;
        }
        poison_outputs(&run);
        if (!launch_checked(&run, ck, st, entry, &verdict) && ck->verify(&run, st, 1))
            verdict = run.failed < 0 ? "checker_error" : "wrong";
        if (verdict) {
            snprintf(failmsg, sizeof failmsg, "%s (warm-up): %s", c.name, run.msg);
            printf("  %-28s %-22s %s\n", c.name, verdict, run.msg);
            break;
        }
        const int runs = runs_override ? runs_override : (c.runs > 0 ? c.runs : 20);
        std::vector<float> ms;
        cudaEvent_t e0, e1;
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
        for (int r = 0; r < runs && !verdict; r++) {
            if (ck->generate(&run, st, cl_mix64(seed + 1 + (uint64_t)r))) {
                verdict = "checker_error";
                break;
            }
            poison_outputs(&run);
            CUDA_CHECK(cudaMemsetAsync(g_flush, r & 0xFF, FLUSH_BYTES, g_stream));
            CUDA_CHECK(cudaEventRecord(e0, g_stream));
            ck->launch(st, entry, (void *)g_stream);
            CUDA_CHECK(cudaEventRecord(e1, g_stream));
            cudaError_t e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                e = cudaGetLastError();
            if (e != cudaSuccess) {
                snprintf(run.msg, sizeof run.msg, "CUDA error: %s", cudaGetErrorString(e));
                verdict = "cuda_error";
                break;
            }
            float t;
            CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
            if (check_guards(&run)) {
                verdict = "out_of_bounds";
                break;
            }
            if (ck->verify(&run, st, 0)) {
                verdict = "wrong";
                break;
            }
        }
        CUDA_CHECK(cudaEventDestroy(e0));
        CUDA_CHECK(cudaEventDestroy(e1));
        if (verdict) {
            snprintf(failmsg, sizeof failmsg, "%s (timed run): %s", c.name, run.msg);
            printf("  %-28s %-22s %s\n", c.name, verdict, run.msg);
            break;
        }
        std::vector<float> sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        const double med = sorted[sorted.size() / 2], best = sorted[0];
        const double gbps = run.bytes / (med * 1e6), frac = gbps / ceiling;
        worst = std::min(worst, frac);
        printf("  %-28s bench %9.4f ms (min %.4f, %d runs) %7.0f GB/s = %5.1f%% of copy  [%s]%s\n", c.name, med,
               best, (int)ms.size(), gbps, 100 * frac, verdict_of_fraction(&lab, frac),
               run.halved ? " (size halved to fit)" : "");
        printf("BENCH {\"lab\":\"%s\",\"solution\":\"%s\",\"case\":\"%s\",\"shape\":\"%s\",\"median_ms\":%.5f,"
               "\"min_ms\":%.5f,\"bytes\":%.0f,\"gbps\":%.1f,\"copy_gbps\":%.1f,\"fraction\":%.4f}\n",
               labname, label, c.name, run.shape, med, best, run.bytes, gbps, ceiling, frac);
    }
    run_reset(&run);
    if (!verdict)
        verdict = (worst < 1e29) ? verdict_of_fraction(&lab, worst) : "correct";
    char esc[5300];
    size_t k = 0;
    for (const char *p = failmsg; *p && k + 2 < sizeof esc; p++) {
        if (*p == '"' || *p == '\\')
            esc[k++] = '\\';
        esc[k++] = *p;
    }
    esc[k] = 0;
    printf("RESULT {\"lab\":\"%s\",\"solution\":\"%s\",\"seed\":%llu,\"verdict\":\"%s\",\"cases_passed\":%d,"
           "\"cases\":%d,\"worst_fraction\":%.4f,\"copy_gbps\":%.1f,\"message\":\"%s\"}\n",
           labname, label, (unsigned long long)g_run_seed, verdict, npassed, ncorrect, worst < 1e29 ? worst : 0.0,
           ceiling, esc);
    return 0;
}
